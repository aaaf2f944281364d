from skillwiki.cli.app import main

main()
