"""The ``podium`` command line: ``main`` dispatches to each command's module (``add_arguments`` and
``run``); the rules' JSON commands of CLI.md live next to their rules (``core.rules.*_command``),
the others here."""

from core.cli.dispatch import main

__all__ = ["main"]
