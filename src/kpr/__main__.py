"""``python -m kpr`` runs the command line."""

from kpr.cli.console import run

run()
