"""The kpr command line (click + rich): ``app`` assembles the group from the command
modules (``analyze``, ``avatar``), which share ``common`` and ``options``."""
