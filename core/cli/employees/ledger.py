"""The ledger ``podium employees`` (and ``podium floor``) works on: opened from ``--db`` (default:
the console's, :func:`core.ledger.db.default_url`) and brought up to date first, as the console
does; only ``add`` may make a new SQLite ledger.  A ledger that can not be opened, and a
database failure during a step, is one line naming the ledger (its URL without the password)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from core.cli.employees.records import EmployeeError
from core.cli.ledger_open import safe_url
from core.ledger.db import default_url, make_engine, sqlite_file, upgrade

T = TypeVar("T")


def open_ledger(url: str | None, *, create: bool = False) -> Engine:
    """The ledger, brought up to date.  Only ``add`` (``create``) may make a new SQLite ledger:
    any other command on a ledger that is not there is refused and leaves no file."""
    url = url or default_url(create=create)
    file = sqlite_path(url)
    if not create and file is not None and not file.exists():
        raise EmployeeError(f"ledger {safe_url(url)}: no such ledger (the first enrollment "
                            "makes it: podium employees add --bootstrap, docs/operator.md)")
    if url.strip() in ("sqlite://", "sqlite:///:memory:") or url.strip().startswith(
            ("sqlite:///:memory:?", "sqlite://?")):
        raise EmployeeError("--db: an in-memory SQLite ledger keeps nothing once the command "
                            "ends; give the ledger's URL (e.g. sqlite:///ledger.sqlite3)")
    try:
        engine = make_engine(url)
    except ArgumentError:
        raise EmployeeError("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                            "postgresql+psycopg://user@host/podium)") from None
    except ValueError as exc:
        raise EmployeeError(str(exc).replace(url, safe_url(url))) from None
    except ImportError as exc:
        raise EmployeeError(f"--db: no driver for {safe_url(url)}: {exc}") from None
    try:
        upgrade(engine)
    except Exception as exc:  # noqa: BLE001 - any failure to reach or migrate the ledger
        engine.dispose()
        raise EmployeeError(ledger_problem(url, exc)) from None
    return engine


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite ledger URL (None: another database, in memory, or not a URL: the
    engine names that problem)."""
    try:
        return sqlite_file(url) if url.strip().startswith("sqlite") else None
    except (ArgumentError, ValueError):
        return None


def ledger_problem(url: str, exc: BaseException) -> str:
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"ledger {safe_url(url)}: can not be opened: {first}"


@contextmanager
def ledger(url: str | None, *, create: bool = False) -> Iterator[Engine]:
    """:func:`open_ledger`, disposed of when the command is done."""
    engine = open_ledger(url, create=create)
    try:
        yield engine
    finally:
        engine.dispose()


def guarded(url: str | None, step: Callable[[], T]) -> T:
    """Run one ledger step; a database failure becomes one line naming the ledger."""
    try:
        return step()
    except SQLAlchemyError as exc:
        raise EmployeeError(ledger_problem(url or default_url(), exc)) from None
