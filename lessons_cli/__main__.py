from lessons_cli.main import main

main()
