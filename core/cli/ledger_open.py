"""An existing ledger opened for a command that only reads it (``podium report deadlines``,
``podium forms``): never created nor migrated; a missing file, a URL that is not one, a server
that does not answer or a ledger at another schema revision is refused in one line naming it
(the password never shown)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError


class LedgerRefused(ValueError):
    """The ledger given can not be read; the message names it (``--db``) and why."""


def safe_url(url: str) -> str:
    """``url`` as it may be shown: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(the --db value)"


def short(text: str) -> str:
    """A text that may be a whole path, cut to what one message line shows."""
    return text if len(text) <= 255 else f"{text[:60]}... ({len(text):,} characters)"


def open_for_reading(url: str) -> Engine:
    """The ledger, for reading: it must exist and be at this Podium's schema revision."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from core.ledger.db import alembic_config, make_engine

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise LedgerRefused("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                            "postgresql+psycopg://user@host/podium)") from None
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        try:
            is_file = bool(path) and path != ":memory:" and Path(path).is_file()
        except (OSError, ValueError):  # a name too long, a NUL
            is_file = False
        if not is_file:
            raise LedgerRefused(f"ledger {short(safe_url(url))}: no such ledger file")
    try:
        engine = make_engine(url)
    except ValueError as exc:
        raise LedgerRefused(str(exc).replace(url, safe_url(url))) from None
    except ImportError as exc:
        raise LedgerRefused(f"--db: no driver for {safe_url(url)}: {exc}") from None
    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except SQLAlchemyError as exc:
        engine.dispose()
        raise LedgerRefused(read_problem(url, exc)) from None
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if current != head:
        engine.dispose()
        raise LedgerRefused(f"ledger {safe_url(url)}: schema revision {current or 'none'}, "
                            f"this Podium reads {head}; open it once with the console (which "
                            "brings it up to date)")
    return engine


def read_problem(url: str, exc: BaseException) -> str:
    """The one line for a ledger that could not be read (its first line of the error)."""
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"ledger {safe_url(url)}: can not be read: {first}"
