"""Reading the JSON documents of the rules commands (`podium rules meter`, `podium rules bbj`):
numbers as Decimal (never float), a key given twice refused, every problem named."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
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


def shown(value: object, limit: int = 60) -> str:
    """A JSON value as a message quotes it: as it was written (a number read as Decimal is
    shown as the number, which ``json.dumps`` can not do), at most ``limit`` characters."""
    out: list[str] = []
    size = 0

    def put(text: str) -> bool:
        nonlocal size
        out.append(text)
        size += len(text)
        return size <= limit

    def render(v: object) -> bool:
        if isinstance(v, (list, dict)):
            items = list(v.items()) if isinstance(v, dict) else [(None, x) for x in v]
            if not put("{" if isinstance(v, dict) else "["):
                return False
            for i, (k, x) in enumerate(items):
                if (i and not put(", ")) or (k is not None and not put(json.dumps(k) + ": ")):
                    return False
                if not render(x):
                    return False
            return put("}" if isinstance(v, dict) else "]")
        return put(str(v) if isinstance(v, Decimal) else json.dumps(v))

    if render(value):
        return "".join(out)
    return "".join(out)[:limit] + "..."


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
    out = dict(pairs)
    if len(out) == len(pairs):  # the usual case, in C; else name the first key given again
        return out
    out = {}
    for k, v in pairs:
        if k in out:
            raise JsonDocError(f"key {k!r} appears twice in one object")
        out[k] = v
    return out


MAX_DEPTH = 64  # arrays and objects inside each other; a rules document needs about 5
MAX_BYTES = 16 * 1024 * 1024  # a case or a scenario is a few kilobytes
MAX_NUMBER = 40  # characters of a JSON number (core.kernel.money.MAX_TEXT)

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` nests arrays/objects more than ``limit`` deep (brackets inside
    strings do not count).  Checked before parsing: the parser would recurse that deep."""
    if text.count("[") + text.count("{") <= limit:  # can not open more than it has
        return False
    depth = 0
    for m in _TOKENS.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER:
        raise JsonDocError(f"the number {text[:20]}... is longer than {MAX_NUMBER} characters")
    return int(text)


def _decimal(text: str) -> Decimal:
    if len(text) > MAX_NUMBER:
        raise JsonDocError(f"the number {text[:20]}... is longer than {MAX_NUMBER} characters")
    return Decimal(text)  # an exponent is kept as written; parse_decimal bounds the magnitude


def _constant(text: str) -> object:
    raise JsonDocError(f"{text} is not a JSON number")


_DECODER = json.JSONDecoder(parse_float=_decimal, parse_int=_int, parse_constant=_constant,
                            object_pairs_hook=_no_duplicate_keys)


def parse_json_text(text: str) -> object:
    """A JSON document: numbers as int or Decimal (never float), at most
    :data:`MAX_DEPTH` deep, no number longer than :data:`MAX_NUMBER` characters, no NaN or
    Infinity, no key twice in one object; JsonDocError (without a file name) otherwise."""
    if too_deep(text):
        raise JsonDocError(f"nested too deeply (more than {MAX_DEPTH} arrays or objects "
                           "inside each other)")
    try:
        if text.startswith("\ufeff"):  # as json.loads says it (one decoder, made once)
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise JsonDocError(f"not valid JSON: {exc.msg} at line {exc.lineno} "
                           f"column {exc.colno}") from None
    except RecursionError:  # too_deep should have said so; never a traceback
        raise JsonDocError("nested too deeply") from None


def load_json_file(path: str) -> object:
    """The document in ``path``; JsonDocError for a missing, unreadable, oversized or
    malformed file (:func:`parse_json_text`)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise JsonDocError(f"{path}: no such file") from None
    except OSError as exc:
        raise JsonDocError(f"{path}: can not be read: {exc.strerror or exc}") from None
    except ValueError:  # a NUL in the name
        raise JsonDocError(f"{path!r}: not a file name") from None
    if len(raw) > MAX_BYTES:
        raise JsonDocError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MB; not a case "
                           "or scenario file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonDocError(f"{path}: can not be read: not UTF-8 text ({exc.reason} at byte "
                           f"{exc.start})") from None
    try:
        return parse_json_text(text)
    except JsonDocError as exc:
        raise JsonDocError(f"{path}: {exc}") from None
