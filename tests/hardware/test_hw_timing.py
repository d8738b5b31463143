"""`selftest --timing`: STEP edges read back on a second GPIO, judged against the plan."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bermuda_hw.cli import main
from bermuda_hw.rigcheck.timing import GOAL_P99_US, judge_timing, step_train
from bermuda_hw.sim.lgpio_standin import PI4B_REVISION, StandInLgpio

READBACK = 17


@pytest.fixture
def pi_lgpio(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StandInLgpio]:
    """This machine as a Pi 4 to gpiozero, with the lgpio stand-in as its lgpio."""
    module = StandInLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", module)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: PI4B_REVISION)
    monkeypatch.setenv("LG_WD", str(tmp_path))
    yield module
    sys.modules.pop("gpiozero.pins.lgpio", None)


def test_edges_on_their_planned_times_pass() -> None:
    plan = step_train(8000.0, 800)
    report = judge_timing(plan.times_s, plan.times_s + 3.0, limit_us=1000.0)
    assert report.ok and report.seen == 800 and report.max_us < 1e-3


def test_a_late_edge_or_a_missing_one_fails() -> None:
    plan = step_train(8000.0, 800)
    late = plan.times_s.copy()
    late[400:] += 1.2e-3  # the tx thread kept from running for 1.2 ms
    report = judge_timing(plan.times_s, late, limit_us=1000.0)
    assert not report.ok and report.max_us == pytest.approx(1200.0)
    jitter = plan.times_s + np.where(np.arange(800) % 50 == 0, 150e-6, 0.0)
    report = judge_timing(plan.times_s, jitter, limit_us=1000.0)
    assert not report.ok and report.p99_us > GOAL_P99_US  # 2 % of edges 150 us off
    report = judge_timing(plan.times_s, np.delete(plan.times_s, 10), limit_us=1000.0)
    assert not report.ok and report.seen == 799


def test_selftest_timing_reads_the_wave_executor_s_edges_back(
    pi_lgpio: StandInLgpio,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pi_lgpio.jumper(20, READBACK)  # STEP x of the default configuration
    assert main(["selftest", "--timing", "--readback-pin", str(READBACK)]) == 0
    out = capsys.readouterr().out
    assert "PASS  step edge timing" in out
    assert "8000 of 8000 edges read back" in out
    assert "lgpio's tx thread" in out
    # the drivers stayed disabled throughout: ENABLE (active low) never went low
    assert all(level == 1 for line, level in pi_lgpio.writes if line == 7)


def test_selftest_timing_without_the_jumper_says_what_to_wire(
    pi_lgpio: StandInLgpio,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["selftest", "--timing", "--readback-pin", str(READBACK)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  step edge timing" in out and "0 of 8000 edges" in out
    assert f"check the jumper from STEP x (BCM 20) to BCM {READBACK}" in out


def test_selftest_timing_refuses_a_read_back_pin_the_rig_uses(
    pi_lgpio: StandInLgpio,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["selftest", "--timing", "--readback-pin", "21"]) == 2
    assert "BCM 21 is gantry.x.dir_pin" in capsys.readouterr().out
    assert pi_lgpio.calls["tx_wave"] == 0


def test_selftest_timing_on_busy_lines_says_to_stop_the_service(
    pi_lgpio: StandInLgpio,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def busy(*args: object, **kwargs: object) -> int:
        raise pi_lgpio.error("GPIO busy")

    monkeypatch.setattr(pi_lgpio, "gpio_claim_input", busy)
    assert main(["selftest", "--timing", "--readback-pin", str(READBACK)]) == 1
    out = capsys.readouterr().out
    assert "GPIO busy" in out and "sudo systemctl stop bermuda-hw" in out
