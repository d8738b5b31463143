"""Checked files (config, board, colour calibration): any table in, a value or one named error.

The properties mutate the parsed table of a valid file (a value of another
TOML type, a list for a table, a key removed or added, an item dropped from a
list) and hand it to the loader: it is accepted as typed values, or refused
with one error naming the file and the dotted key of the problem. The
text-level fuzzing (bytes, truncation, directories, unreadable files) is in
chaos/fuzz.py, run with a few cases by tests/test_chaos_smoke.py and with
1,000 per kind by `make chaos`.
"""

from __future__ import annotations

import copy
import datetime
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bermuda_hw.camera_config import CameraConfig, parse_camera_config
from bermuda_hw.checked import describe, dotted
from bermuda_hw.config import Config, default_config_text, parse_config
from bermuda_hw.errors import BoardFileError, CalibrationError, ConfigError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import board_from_table, classic_board_text
from bermuda_hw.vision.colors import ColorCalibration, calibration_from_table

ROOT = Path(__file__).resolve().parents[1]
COLORS = ("blue", "yellow", "green", "red")
CAMERA = {"source": "usb:0", "width_px": 640, "colour_gains": [1.5, 1.2], "af_mode": "auto"}

# every kind of value a TOML file can hold, including the awkward ones
toml_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.floats(),
        st.booleans(),
        st.text(max_size=8),
        st.dates(),
        st.times(),
        st.datetimes(),
        st.sampled_from([0, -1, 99, 400, 1e308, float("nan"), "", "blue", "A", "N"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _places(data: Any, here: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every key and list item of a parsed file, as paths from the top."""
    out: list[tuple[str | int, ...]] = [here] if here else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _places(value, (*here, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out += _places(value, (*here, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, valid: dict[str, Any]) -> dict[str, Any]:
    """A valid table with one to three mutations."""
    data = copy.deepcopy(valid)
    for _ in range(draw(st.integers(1, 3))):
        places = _places(data)
        if not places:
            break
        where = draw(st.sampled_from(places))
        parent: Any = data
        for part in where[:-1]:
            parent = parent[part]
        last = where[-1]
        action = draw(st.sampled_from(("value", "value", "drop", "unknown", "wrap")))
        if action == "value":
            parent[last] = draw(toml_values)
        elif action == "drop":
            del parent[last]
        elif action == "wrap":
            parent[last] = [parent[last]] if draw(st.booleans()) else {"x": parent[last]}
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = draw(toml_values)
        else:
            parent.append(draw(toml_values))
    return data


def _holds(
    load: Callable[[dict[str, Any]], object],
    data: dict[str, Any],
    source: str,
    error: type[ConfigError],
    result: type,
) -> None:
    try:
        value = load(data)
    except error as exc:
        assert exc.file == source, exc
        assert exc.key, exc  # a table that parsed always has a key to blame
        assert "\n" not in str(exc)
        assert str(exc).startswith(f"{source}: {exc.key}: ")
        return
    assert isinstance(value, result)


EXAMPLES = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
CONFIG = tomllib.loads(default_config_text()) | {"camera": CAMERA}
BOARD = tomllib.loads(classic_board_text())
CALIBRATION = tomllib.loads((ROOT / "calibration" / "colors.example.toml").read_text("utf-8"))


@EXAMPLES
@given(mutated(CONFIG))
def test_a_mutated_configuration_is_typed_or_refused_by_key(data: dict[str, Any]) -> None:
    _holds(lambda d: parse_config(d, Path("config.toml")), data, "config.toml", ConfigError, Config)


@EXAMPLES
@given(mutated(BOARD))
def test_a_mutated_board_is_typed_or_refused_by_key(data: dict[str, Any]) -> None:
    _holds(lambda d: board_from_table(d, "board.toml"), data, "board.toml", BoardFileError, Board)


@EXAMPLES
@given(mutated(CALIBRATION))
def test_a_mutated_calibration_is_typed_or_refused_by_key(data: dict[str, Any]) -> None:
    _holds(
        lambda d: calibration_from_table(d, "colors.toml", COLORS),
        data,
        "colors.toml",
        CalibrationError,
        ColorCalibration,
    )


@EXAMPLES
@given(mutated({"camera": CAMERA}))
def test_a_mutated_camera_table_is_typed_or_refused_by_key(data: dict[str, Any]) -> None:
    table = data.get("camera")
    if not isinstance(table, dict):
        return
    _holds(
        lambda d: parse_camera_config(d["camera"], "config.toml"),
        data,
        "config.toml",
        ConfigError,
        CameraConfig,
    )


@pytest.mark.parametrize(
    ("loc", "text"),
    [
        (("gantry", "x", "travel_mm"), "gantry.x.travel_mm"),
        (("ports", 2, "berths", 0), "ports[2].berths[0]"),
        ((), ""),
    ],
)
def test_keys_are_written_as_the_owner_writes_them(loc: tuple[str | int, ...], text: str) -> None:
    assert dotted(loc) == text


def test_a_union_member_is_not_taken_for_a_key() -> None:
    error = {"type": "int_type", "loc": ("controls", "buzzer_pin", "int"), "msg": "", "input": "x"}
    data = {"controls": {"buzzer_pin": "x"}}
    assert describe(error, data) == (
        "controls.buzzer_pin",  # type: ignore[arg-type]
        "must be an integer, not 'x'",
    )


def test_dates_and_times_are_wrong_types_not_tracebacks() -> None:
    data = copy.deepcopy(CONFIG)
    data["gantry"]["accel_mm_s2"] = datetime.date(1976, 1, 1)
    with pytest.raises(ConfigError, match=r"gantry\.accel_mm_s2: must be a number"):
        parse_config(data, Path("config.toml"))
