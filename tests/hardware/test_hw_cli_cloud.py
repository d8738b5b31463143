"""`bermuda-hw cloud` on the simulated rig."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bermuda_hw.cli import main


def test_cloud_spin_on_the_simulated_rig(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cloud", "--simulate", "--spin", "C 2 N"]) == 0
    out = capsys.readouterr().out
    assert "final pose: dot (4, 2), letter C, x 254.00 mm, y 166.00 mm" in out
    assert "peak speed: 60.00 mm/s" in out
    assert "peak acceleration: 150.00 mm/s^2" in out
    assert "cloud at x 254.00 mm, y 166.00 mm, heading 90.00 degrees; lost steps: 0" in out


def test_cloud_json_with_the_top_level_simulate_flag(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--simulate", "cloud", "--spin", "G West", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["pose"] == {"col": 0, "row": 4, "letter": "G", "x_mm": 78.0, "y_mm": 254.0}
    assert result["leaves_board"] is True
    assert result["turn_deg"] == 270.0
    assert result["lost_steps"] == 0
    assert result["sim_truth"]["heading_deg"] == pytest.approx(270.0, abs=0.1)
    assert result["duration_s"] > 0


def test_cloud_reports_a_bad_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[gantry]\nmax_speed = 3\n")
    assert main(["cloud", "--simulate", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bermuda-hw: error: ")
    assert f"{path}: gantry.max_speed: unknown key" in err


def test_cloud_refuses_a_bad_spin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cloud", "--simulate", "--spin", "Q 2 N"]) == 1
    assert "cloud letter" in capsys.readouterr().err


def test_cloud_reports_the_measured_pose_and_fails_when_it_differs(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the rig as built has its axes 7 mm further along the board than the configuration believes
    (table_dir / "true-rig.toml").write_text(
        "[gantry.x]\nmicrosteps = 4\nboard_offset_mm = 27.0\n"
        "[gantry.y]\nmicrosteps = 4\nboard_offset_mm = 27.0\n"
    )
    belief = table_dir / "belief.toml"
    belief.write_text(
        '[gantry.x]\nmicrosteps = 4\n[gantry.y]\nmicrosteps = 4\n[sim]\nrig = "true-rig.toml"\n'
    )
    assert main(["cloud", "--simulate", "--config", str(belief), "--spin", "C 2 N", "--json"]) == 1
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["pose"]["x_mm"] == 254.0 and result["sim_truth"]["letter"] == "C"
    assert result["sim_truth"]["x_mm"] == pytest.approx(261.0, abs=0.1)
    assert captured.err.startswith("bermuda-hw: error: the cloud was measured at x 261.00 mm")
    assert "(0 lost steps)" in captured.err
