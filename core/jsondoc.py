"""Reading the JSON documents of the rules commands (`podium rules meter`, `podium rules bbj`):
numbers as Decimal (never float), a key given twice refused, every problem named."""

from __future__ import annotations

import json
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
