from sleuth_shell.cli import main

main()
