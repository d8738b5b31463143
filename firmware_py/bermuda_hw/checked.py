"""Checked files: TOML read once into declared pydantic models, errors naming file, key, problem.

Every file an owner writes (the configuration, a board, a colour calibration)
goes through here: `read_toml` reads the text (UTF-8, a byte-order mark read
past) and parses it; `check` validates the table against a model whose fields
declare their types and bounds. Unknown keys are refused. Any problem becomes
one `ConfigError` (or the subclass given) naming the file, the dotted key
(`gantry.x.travel_mm`, `ports[2].berths[0]`) and the problem in plain words.

A model's own checks that span several keys raise `KeyProblem` naming the key
(relative to the model) that the owner should change.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from bermuda_hw.errors import ConfigError, describe_os_error, not_utf8

# The largest file any of them can sensibly be: a board with a thousand spaces is ~100 kB.
MAX_FILE_BYTES = 4 << 20

M = TypeVar("M", bound=BaseModel)
E = TypeVar("E", bound=ConfigError)


class Strict(BaseModel):
    """A table of a checked file: unknown keys refused, values frozen once read."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=False)


class KeyProblem(ValueError):
    """A model's own check failed at `key` (dotted, relative to the model's table)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem


# --- value types: TOML's own types, never coerced from another ------------------------------

Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Positive = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)]
NonNegative = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)]
Integer = Annotated[int, Field(strict=True)]
Flag = Annotated[bool, Field(strict=True)]
Text = Annotated[str, Field(strict=True)]
Name = Annotated[str, Field(strict=True, min_length=1)]


# --- reading --------------------------------------------------------------------------------


def read_toml(path: str | Path, error: type[E]) -> dict[str, Any]:
    """The parsed table of a TOML file; any reason it cannot be read is `error` naming it."""
    file = Path(path)
    try:
        # without O_NONBLOCK a named pipe would wait for a writer forever
        with os.fdopen(os.open(file, os.O_RDONLY | os.O_NONBLOCK), "rb") as stream:
            mode = os.fstat(stream.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError
            if not stat.S_ISREG(mode):
                raise error(file, None, "is not a regular file (a pipe, a socket or a device)")
            raw = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise error(file, None, "file not found") from None
    except IsADirectoryError:
        raise error(file, None, "is a directory, not a file") from None
    except OSError as exc:
        raise error(file, None, f"cannot be read: {describe_os_error(exc)}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise error(
            file, None, f"is larger than {MAX_FILE_BYTES >> 20} MB: not a file of this kind"
        )
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows editors) is read past
    except UnicodeDecodeError as exc:
        raise error(file, None, not_utf8(exc)) from None
    return parse_toml(text, str(file), error)


def parse_toml(text: str, source: str | Path | None, error: type[E]) -> dict[str, Any]:
    """The parsed table of a TOML text; invalid TOML is `error` naming `source`."""
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        # ValueError: a 5,000-digit number; RecursionError: arrays nested thousands deep
        problem = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        raise error(source, None, f"is not valid TOML: {problem}") from None


def check(
    model: type[M],
    data: Mapping[str, Any],
    source: str | Path | None,
    error: type[ConfigError] = ConfigError,
    prefix: str = "",
) -> M:
    """`data` validated as `model`; the first problem is `error` naming source, key, problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key, problem = describe(first, data)
        raise error(source, _join(prefix, key) or None, problem) from None
    except KeyProblem as exc:  # raised outside pydantic's own wrapping (a model's __init__)
        raise error(source, _join(prefix, exc.key), exc.problem) from None


def _join(prefix: str, key: str) -> str:
    if not prefix:
        return key
    if not key:
        return prefix
    return f"{prefix}{key}" if key.startswith("[") else f"{prefix}.{key}"


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def dotted(loc: Sequence[int | str]) -> str:
    """A location as the owner writes it: `ports[2].berths[0]`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            key = part if _BARE_KEY.fullmatch(part) else json.dumps(part)  # as TOML quotes it
            text += f".{key}" if text else key
    return text


def _walk(loc: Sequence[int | str], data: Any, kind: str) -> list[int | str]:
    """The part of pydantic's location that names keys of the file (not union members)."""
    kept: list[int | str] = []
    here = data
    for n, part in enumerate(loc):
        last = n == len(loc) - 1
        if isinstance(here, Mapping | list) and _has(here, part):
            here = here[part]  # type: ignore[index]
        elif last and kind in ("missing", "extra_forbidden"):
            pass
        else:
            break
        kept.append(part)
    return kept


def _has(container: Mapping[str, Any] | list[Any], part: int | str) -> bool:
    if isinstance(container, Mapping):
        return isinstance(part, str) and part in container
    return isinstance(part, int) and 0 <= part < len(container)


def _show(value: Any) -> str:
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bound(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


_EXPECTED = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "model_type": "a table",
    "dict_type": "a table",
    "model_attributes_type": "a table",
    "dataclass_type": "a table",
    "int_from_float": "an integer",
}


# pydantic's bound errors: the context key of the bound, and how it reads
_BOUNDS = {
    "greater_than": ("gt", "greater than"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "less_than_equal": ("le", "at most"),
}


def describe(error: ErrorDetails, data: Any) -> tuple[str, str]:
    """The dotted key and the problem, in the owner's words, of one pydantic error."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    value = error.get("input")
    loc = _walk(error["loc"], data, kind)
    if kind == "value_error" and isinstance(ctx.get("error"), KeyProblem):
        problem: KeyProblem = ctx["error"]
        return _join(dotted(loc), problem.key), problem.problem
    key = dotted(loc)
    if kind == "missing" and loc and isinstance(loc[-1], int):  # a list too short for its shape
        return dotted(loc[:-1]), f"has too few items ({loc[-1]} given)"
    if kind == "missing":
        return key, "is missing"
    if kind == "extra_forbidden":
        return key, "unknown key"
    if kind in _EXPECTED:
        if kind in ("model_type", "dict_type", "model_attributes_type", "dataclass_type"):
            return key, "must be a table"
        return key, f"must be {_EXPECTED[kind]}, not {_show(value)}"
    if kind == "finite_number":
        return key, f"must be a finite number, not {_show(value)}"
    if kind in _BOUNDS:
        bound, words = _BOUNDS[kind]
        return key, f"must be {words} {_bound(ctx[bound])}, not {_show(value)}"
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        shown = ", ".join(o or '""' for o in options) or str(ctx.get("expected"))
        return key, f"must be one of {shown}, not {_show(value)}"
    if kind in ("too_short", "too_long"):
        low = ctx.get("min_length")
        high = ctx.get("max_length")
        count = len(value) if hasattr(value, "__len__") else "?"
        if kind == "too_short" and isinstance(value, str):
            return key, "must not be empty"
        if low is not None and high is not None and low == high:
            want = f"exactly {low}"
        elif kind == "too_short":
            want = f"at least {low}"
        else:
            want = f"at most {high}"
        return key, f"must have {want} items, not {count}"
    if kind == "string_too_long":
        return key, f"must be at most {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch":
        return key, f"{_show(value)} is not allowed here (pattern {ctx.get('pattern')})"
    if kind == "value_error":
        return key, str(ctx.get("error", error["msg"]))
    return key, f"{error['msg'][:1].lower()}{error['msg'][1:]}, not {_show(value)}"
