"""`bermuda-hw calibrate` on a simulated rig whose configuration is wrong: the truth comes back."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bermuda_hw.cli import main
from bermuda_hw.config import load_config
from bermuda_hw.rigcheck.calibrate import CalibrationFailed, fit_gantry, fit_rotation

TRUE_RIG = """
# the simulated rig as it is built: quarter microsteps (20 steps/mm), board offsets 20 mm,
# the 28BYJ-48's true gearbox, and the cloud mounted 20 degrees short of letter A
[gantry.x]
microsteps = 4
[gantry.y]
microsteps = 4
[rotation.stepper]
half_steps_per_rev = 4075.77
zero_offset_steps = 226
"""

BELIEF = """
# what the owner wrote before calibrating: offsets 7 mm off, steps/mm 3 % off,
# a whole-number gearbox and letter A taken to be at the notch
[gantry.x]
microsteps = 4
steps_per_mm = 20.6
board_offset_mm = 27.0   # board x of the carriage at axis 0
[gantry.y]
microsteps = 4
steps_per_mm = 20.6
board_offset_mm = 27.0
[rotation.stepper]
half_steps_per_rev = 4096
[camera]
height_mm = 765.0   # the lens above the board, with a tape measure (5 mm over: 760 it is)
[sim]
rig = "true-rig.toml"
"""


def test_fits_recover_exact_mechanics_from_exact_sightings() -> None:
    kx, ky, ox, oy, skew = 19.9, 20.3, 18.5, 21.0, 0.4
    lean = math.tan(math.radians(skew))
    steps = [(sx, sy) for sx in (500, 2500, 4500, 6500) for sy in (700, 3000, 5800)]
    seen = [(ox + sx / kx + lean * sy / ky, oy + sy / ky) for sx, sy in steps]
    fit = fit_gantry(steps, seen)
    assert fit.steps_per_mm == pytest.approx((kx, ky), rel=1e-9)
    assert fit.board_offset_mm == pytest.approx((ox, oy), abs=1e-9)
    assert fit.skew_deg == pytest.approx(skew, abs=1e-9)
    positions = [round(k * 255.3) for k in range(17)]
    headings = [((p - 226) * 360 / 4075.77) % 360 for p in positions]
    rev, at_zero, rms = fit_rotation(positions, headings)
    assert rev == pytest.approx(4075.77, rel=1e-9) and rms < 1e-9
    assert at_zero == pytest.approx((-226 * 360 / 4075.77) % 360)
    with pytest.raises(CalibrationFailed, match="counterclockwise"):
        fit_rotation(positions, [(-h) % 360 for h in headings])


def test_calibration_on_a_wrong_config_finds_the_rig_as_built(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (table_dir / "true-rig.toml").write_text(TRUE_RIG)
    path = table_dir / "rig.toml"
    path.write_text(BELIEF)
    truth = load_config(table_dir / "true-rig.toml")

    assert main(["calibrate", "gantry", "--simulate", "--config", str(path), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "-board_offset_mm = 27.0   # board x of the carriage at axis 0" in out  # the diff
    gantry = load_config(path).gantry
    for axis, true_axis in zip(gantry.axes, truth.gantry.axes, strict=True):
        assert axis.board_offset_mm == pytest.approx(true_axis.board_offset_mm, abs=0.5)
        assert axis.steps_per_mm == pytest.approx(true_axis.steps_per_mm, rel=0.002)
    assert abs(gantry.skew_deg) < 0.1

    assert main(["calibrate", "rotation", "--simulate", "--config", str(path), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "letter at the notch after the turn: A (expected A)" in out
    stepper = load_config(path).rotation.stepper
    rev = truth.rotation.stepper.half_steps_per_cloud_rev
    assert stepper.half_steps_per_cloud_rev == pytest.approx(rev, rel=0.002)
    offset_deg = (stepper.zero_offset_steps - truth.rotation.stepper.zero_offset_steps) * 360 / rev
    assert abs(offset_deg) < 1.0
    assert 'rig = "true-rig.toml"' in path.read_text()  # the rest of the file is kept
