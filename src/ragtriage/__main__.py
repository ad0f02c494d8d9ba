"""`python -m ragtriage`: the same as the `ragtriage` command."""

from .cli.main import main

main()
