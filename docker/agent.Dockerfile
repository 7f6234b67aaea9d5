# The agent image: the base image (docker/rootfs.sh: Debian's python3, no registry) plus the built-in
# baselines' standard-library MCP client at /opt/mcpbench. scripts/setup-docker.sh builds it with a
# context holding only these files; the base is a local image, so nothing is pulled.
ARG BASE
FROM ${BASE}
COPY mcpbench/ /opt/mcpbench/mcpbench/
ENV PYTHONPATH=/opt/mcpbench PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8
LABEL org.mcpbench.role=agent
