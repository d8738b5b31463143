"""`bermuda-hw selftest`: the checklist on the simulated rig, and injected faults on their lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.cli import main
from bermuda_hw.cli.selftest import ScriptedOwner
from bermuda_hw.config import load_config
from bermuda_hw.rigcheck.selftest import CheckLine, run_selftest
from bermuda_hw.rules.boardfile import load_board

RIG = """
[gantry.x]
microsteps = 4
[gantry.y]
microsteps = 4
[controls]
estop_pin = 4
buzzer_pin = 12
[camera]
width_px = 800
height_px = 600
[sim]
start_x_mm = 60.0
start_y_mm = 60.0
"""

LINES = [
    "config",
    "pin factory",
    "I2C PCA9685",
    "step timing",
    "endstop x",
    "endstop y",
    "e-stop",
    "spin button",
    "status LED",
    "buzzer",
    "camera",
    "homing y",
    "homing x",
    "corner markers",
    "cloud marker",
    "cloud full turn",
]


def _selftest(tmp_path: Path, extra: str = "") -> dict[str, CheckLine]:
    path = tmp_path / "rig.toml"
    path.write_text(RIG + extra)
    config = load_config(path)
    with SimBackend(config) as backend:
        lines = run_selftest(
            config, load_board(), backend, ScriptedOwner(backend, config), press_timeout_s=2.0
        )
    assert [line.name for line in lines] == LINES
    return {line.name: line for line in lines}


def test_every_line_passes_on_a_healthy_rig(tmp_path: Path) -> None:
    lines = _selftest(tmp_path)
    assert all(line.ok for line in lines.values()), "\n".join(map(str, lines.values()))


@pytest.mark.parametrize(
    ("fault", "line", "words"),
    [
        ('dead_endstop = "x"', "endstop x", "never read pressed"),
        ("missing_pca9685 = true", "I2C PCA9685", "nothing answers at 0x40"),
        ("covered_marker = 10", "cloud marker", "marker 10 on the cloud not seen"),
        ("covered_marker = 2", "corner markers", "not seen: 2"),
    ],
)
def test_an_injected_fault_fails_its_own_line(
    tmp_path: Path, fault: str, line: str, words: str
) -> None:
    lines = _selftest(tmp_path, fault + "\n")
    assert lines[line].ok is False
    assert words in lines[line].detail and lines[line].todo
    others = [x for x in lines.values() if x.name != line]
    assert not [x for x in others if x.ok is False], "\n".join(map(str, others))
    if line != "corner markers":  # the lines that need the failed one are skipped, naming it
        assert any(x.ok is None for x in others)


def test_the_command_prints_the_checklist_and_fails_on_a_fault(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = table_dir / "rig.toml"
    path.write_text(RIG + "missing_pca9685 = true\n")
    assert main(["selftest", "--simulate", "--config", str(path), "--timeout", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  I2C PCA9685" in out and "what to do: check the PCA9685's VCC" in out
    assert "SKIP  cloud full turn    not tried: needs I2C PCA9685" in out
    assert "PASS  homing x" in out


def test_the_simulated_rig_with_no_configuration_passes_every_line(
    table_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bermuda-hw selftest --simulate` on a fresh machine: the reference rig, e-stop and
    buzzer included, passes the whole checklist (nothing skipped)."""
    monkeypatch.setattr("bermuda_hw.cli.selftest.DEFAULT_CONFIG_PATH", table_dir / "none.toml")
    assert main(["selftest", "--simulate", "--timeout", "2"]) == 0
    out = capsys.readouterr().out
    for name in LINES:
        assert f"PASS  {name}" in out, out
    assert f"{len(LINES)} passed, 0 failed, 0 skipped" in out


def test_a_refused_real_time_priority_fails_the_step_timing_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(pid: int, policy: int, param: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("os.sched_setscheduler", refuse)
    monkeypatch.setattr(SimBackend, "step_thread_priority", 50)  # as the real backend asks
    lines = _selftest(tmp_path)
    line = lines["step timing"]
    assert line.ok is False
    assert "SCHED_FIFO priority 50 not granted" in line.detail
    assert "LimitRTPRIO=50" in line.todo
    assert all(other.ok for name, other in lines.items() if name != "step timing")
