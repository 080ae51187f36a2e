"""The ``podium`` command line: ``main`` dispatches to each command's module (``add_arguments`` and
``run``), every command here: the rules' JSON commands of CLI.md read their input, call a game's
rules (``core/<game>/rules/``) and print."""

from core.cli.dispatch import main

__all__ = ["main"]
