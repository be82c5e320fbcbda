"""Codemod stage, input check: validate ``manifest.json`` against ``manifest.schema.json``.

The schema ships inside the package next to this module. The validator is a small
hand-written interpreter of the JSON Schema subset the schema uses (``type``, ``required``,
``properties``, ``additionalProperties``, ``enum``, ``items``, ``minimum``, ``pattern``,
``minLength``, ``minItems``, ``maxItems``), so no extra dependency is needed. Errors are one
line each, e.g. ``manifest.json: deletions[3].path: expected string``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

# the schema ships with the writer (analyzer/outputs); read as data, never imported
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "outputs" / "manifest.schema.json"

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,), "null": (type(None),),
}


@cache
def load_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def validate(data: Any, schema: dict[str, Any] | None = None,
             name: str = "manifest.json") -> list[str]:
    """Every schema violation of ``data`` as a one-line message (empty when valid)."""
    errors: list[tuple[str, str]] = []  # (where, what)
    _check(data, schema if schema is not None else load_schema(), "", errors)
    return [f"{name}: {where or '(top level)'}: {what}" for where, what in errors]


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[name])


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def _check(value: Any, schema: dict[str, Any], where: str,
           errors: list[tuple[str, str]]) -> None:
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, t) for t in names):
            errors.append((where, "expected " + " or ".join(names)))
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append((where, f"{value!r} is not one of "
                       + ", ".join(repr(v) for v in schema["enum"])))
        return
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append((where, "string too short"))
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append((where, f"does not match {schema['pattern']}"))
    if _is_type(value, "number") and "minimum" in schema and value < schema["minimum"]:
        errors.append((where, f"{value} is less than {schema['minimum']}"))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append((where, f"expected at least {schema['minItems']} items"))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append((where, f"expected at most {schema['maxItems']} items"))
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], _join(where, i), errors)
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                errors.append((_join(where, key), "required property missing"))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                _check(item, props[key], _join(where, key), errors)
            elif extra is False:
                errors.append((_join(where, key), "unexpected property"))
            elif isinstance(extra, dict):
                _check(item, extra, _join(where, key), errors)
