"""Reading the JSON documents of the rules commands (`podium rules meter`, `podium rules bbj`):
numbers as Decimal (never float), a key given twice refused, every problem named."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any


class JsonDocError(ValueError):
    """A JSON input file that can not be used; the message names the file and the problem."""


def json_type(value: object) -> str:
    """How a JSON value is called in a message: "a string", "an array", "null" ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a number"


def json_object(value: object, where: str,
                error: type[ValueError] = JsonDocError) -> dict[str, Any]:
    """``value`` as a JSON object, or ``error`` naming ``where``."""
    if not isinstance(value, dict):
        raise error(f"{where}: must be a JSON object, not {json_type(value)}")
    return value


def json_array(value: object, where: str, error: type[ValueError] = JsonDocError) -> list[Any]:
    """``value`` as a JSON array, or ``error`` naming ``where``."""
    if not isinstance(value, list):
        raise error(f"{where}: must be a JSON array, not {json_type(value)}")
    return value


def check_keys(obj: Mapping[str, Any], where: str, required: tuple[str, ...],
               optional: tuple[str, ...] = (), error: type[ValueError] = JsonDocError) -> None:
    """Every required key present and no key unknown, or ``error`` naming the key."""
    for k in required:
        if k not in obj:
            raise error(f"{where}: missing key {k!r}")
    unknown = [k for k in obj if k not in required and k not in optional]
    if unknown:
        raise error(f"{where}: unknown key {unknown[0]!r} (expected "
                    f"{', '.join(required + optional)})")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise JsonDocError(f"key {k!r} appears twice in one object")
        out[k] = v
    return out


def load_json_file(path: str) -> object:
    """The document in ``path``; JsonDocError for a missing, unreadable or malformed file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JsonDocError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise JsonDocError(f"{path}: can not be read: {exc}") from None
    try:
        return json.loads(text, parse_float=Decimal, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise JsonDocError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} "
                           f"column {exc.colno}") from None
    except JsonDocError as exc:
        raise JsonDocError(f"{path}: {exc}") from None
