"""Calibrated values written into the owner's configuration file, with a diff shown first."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.rigcheck.configfile import config_diff, update_config_text

OWNER = """# my rig
[gantry]
max_speed_mm_s = 50.0   # slower: my cloud is tall

[gantry.x]
microsteps = 4
board_offset_mm = 27.0  # measured with a ruler
"""


def test_values_replace_in_place_keep_comments_and_add_what_is_missing() -> None:
    new = update_config_text(
        OWNER,
        {
            "gantry": {"skew_deg": 0.12},
            "gantry.x": {"board_offset_mm": 20.04, "steps_per_mm": 19.998},
            "rotation.stepper": {"half_steps_per_rev": 4075.77, "zero_offset_steps": 226},
        },
    )
    assert "board_offset_mm = 20.04 # measured with a ruler" in new  # the comment's column kept
    assert "max_speed_mm_s = 50.0   # slower: my cloud is tall" in new
    assert new.startswith("# my rig\n")
    data = tomllib.loads(new)
    assert data["gantry"] == {
        "max_speed_mm_s": 50.0,
        "skew_deg": 0.12,
        "x": {"microsteps": 4, "board_offset_mm": 20.04, "steps_per_mm": 19.998},
    }
    assert data["rotation"]["stepper"] == {"half_steps_per_rev": 4075.77, "zero_offset_steps": 226}
    diff = config_diff(OWNER, new, "rig.toml")
    assert "-board_offset_mm = 27.0  # measured with a ruler" in diff
    assert "+board_offset_mm = 20.04 # measured with a ruler" in diff
    changed = [line for line in diff.splitlines() if line[:1] in "+-"]
    assert not [line for line in changed if "max_speed_mm_s" in line]  # untouched: unchanged


@given(st.floats(-1000, 1000, allow_nan=False), st.integers(-(10**6), 10**6))
def test_written_values_read_back(value: float, steps: int) -> None:
    new = update_config_text(
        OWNER, {"gantry.y": {"board_offset_mm": value}, "gantry.x": {"board_offset_mm": steps}}
    )
    data = tomllib.loads(new)
    assert abs(data["gantry"]["y"]["board_offset_mm"] - value) <= 5e-7
    assert data["gantry"]["x"]["board_offset_mm"] == steps
