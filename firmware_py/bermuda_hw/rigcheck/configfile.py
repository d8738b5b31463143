"""Measured values into the owner's configuration file: the new text and a diff to show first.

Only the keys that change are touched: a key's value is replaced in place
(its comment kept), a missing key is added to its section, a missing section
is added at the end. Everything else in the file stays as the owner wrote it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping

Value = float | int | bool | str | list[float] | list[int]

_HEADER = re.compile(r"^\s*\[([A-Za-z0-9_.\-]+)\]\s*(#.*)?$")


def format_value(value: Value) -> str:
    """A TOML literal for a value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.6f}".rstrip("0")
        return text + "0" if text.endswith(".") else text
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(format_value(v) for v in value) + "]"


def update_config_text(text: str, changes: Mapping[str, Mapping[str, Value]]) -> str:
    """`text` with `changes[section][key] = value` applied."""
    lines = text.splitlines()
    for section, values in changes.items():
        for key, value in values.items():
            lines = _set(lines, section, key, format_value(value))
    return "\n".join(lines) + "\n"


def _set(lines: list[str], section: str, key: str, literal: str) -> list[str]:
    start = None
    end = len(lines)
    for i, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None:
            continue
        if start is not None:
            end = i
            break
        if match.group(1) == section:
            start = i
    if start is None:
        out = list(lines)
        if out and out[-1].strip():
            out.append("")
        return [*out, f"[{section}]", f"{key} = {literal}"]
    pattern = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#]*?)(\s*#.*)?$")
    last_key = start
    for i in range(start + 1, end):
        match = pattern.match(lines[i])
        if match is not None:
            comment = match.group(3) or ""
            if comment:
                width = (
                    len(match.group(1)) + len(match.group(2)) + len(comment) - len(comment.lstrip())
                )
                line = f"{match.group(1)}{literal}"
                comment = " " * max(1, width - len(line)) + comment.lstrip()
                return [*lines[:i], line + comment, *lines[i + 1 :]]
            return [*lines[:i], f"{match.group(1)}{literal}", *lines[i + 1 :]]
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            last_key = i
    return [*lines[: last_key + 1], f"{key} = {literal}", *lines[last_key + 1 :]]


def config_diff(old: str, new: str, name: str) -> str:
    """A unified diff of the file before and after."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"{name} (now)",
            tofile=f"{name} (calibrated)",
        )
    )
