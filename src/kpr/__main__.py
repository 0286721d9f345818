"""``python -m kpr`` runs the command line."""

from kpr.cli.app import main

main()
