"""The kpr command line (typer); see ``kpr.cli.app``."""
