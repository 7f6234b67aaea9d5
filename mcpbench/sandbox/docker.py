class DockerSandbox:
    name = "docker"
    isolates = True
