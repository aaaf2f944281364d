from skillwiki.cli import main

main()
