"""Test certificates for the controller link: a casino CA (and a second, foreign one) made once
per test process with ``core.controllers.certs``, certificates issued on demand and cached.

The shared fixtures (tests/harness.py, the links and tables of tests/core/controllers/test_link.py)
run over TLS with these, so the real path is what the tests exercise; plain TCP only where a test
says so.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from core.controllers import certs, tls
from core.floorconfig import ControllerLinkConfig


@dataclass(frozen=True)
class Pki:
    """One CA's certificate folder (``podium certs`` layout)."""

    folder: Path

    def table(self, table_id: str) -> tls.TlsFiles:
        files = certs.table_files(self.folder, table_id)
        if not Path(files.cert).exists():
            certs.issue(self.folder, tables=[table_id])
        return files

    def console(self, name: str = certs.DEFAULT_CONSOLE) -> tls.TlsFiles:
        files = certs.console_files(self.folder, name)
        if not Path(files.cert).exists():
            certs.issue(self.folder, consoles=[name])
        return files

    def table_context(self, table_id: str) -> ssl.SSLContext:
        """A controller's server context for ``table_id``."""
        return tls.controller_context(self.table(table_id))

    def console_context(self, name: str = certs.DEFAULT_CONSOLE) -> ssl.SSLContext:
        return tls.console_context(self.console(name))

    def link_config(self) -> ControllerLinkConfig:
        """A floor file's ``[controller_link]`` for this CA's console."""
        c = self.console()
        return ControllerLinkConfig("tls", c.ca, c.cert, c.key)


@functools.cache
def pki(name: str = "casino") -> Pki:
    """The CA ``name`` ("casino": the one every fixture trusts; any other: a foreign CA)."""
    root = Path(tempfile.mkdtemp(prefix=f"podium-pki-{name}-"))
    atexit.register(shutil.rmtree, root, True)
    certs.init(root / "pki", [], organization=f"Test {name}", consoles=[])
    return Pki(root / "pki")
