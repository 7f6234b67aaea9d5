from mcpbench.cli import main

main()
