"""The simulated motors' physics: tolerant of timing jitter, strict about real overloads."""

from __future__ import annotations

import numpy as np

from bermuda_hw.config import Config
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.steps import Limits, plan_line
from bermuda_hw.sim.rig import AxisModel


def motor(config: Config) -> AxisModel:
    sim = config.sim
    spm = config.gantry.x.steps_per_mm
    model = AxisModel(
        config=config.gantry.x,
        pull_out_steps_s=sim.pull_out_speed_mm_s * spm,
        accel_steps_s2=sim.motor_accel_mm_s2 * spm,
        pull_in_steps_s=10.0 * spm,
    )
    model.dir_level = True
    return model


def drive(model: AxisModel, times: np.ndarray) -> None:
    for t in times:
        model.step(float(t), enabled=True)


def full_board_times(config: Config) -> np.ndarray:
    kin = GantryKinematics.from_config(config.gantry)
    plan = plan_line(kin, (0, 0), (28_160, 0), Limits(60.0, 150.0))
    return plan.axis_times(0)


def test_linux_like_jitter_loses_no_steps(config: Config) -> None:
    times = full_board_times(config)
    rng = np.random.default_rng(3)
    jitter = np.abs(rng.normal(0.0, 30e-6, times.size))  # late edges, tens of microseconds
    jittered = np.maximum.accumulate(times + jitter)
    model = motor(config)
    drive(model, jittered)
    assert model.lost_steps == 0 and model.position_steps == 28_160


def stalled(times: np.ndarray, stall_s: float) -> np.ndarray:
    """The stream stops half way for `stall_s`, then sends the missed steps at once."""
    out = times.copy()
    middle = out.size // 2
    tail = out[middle:]
    late = tail < tail[0] + stall_s
    tail[late] = tail[0] + stall_s + np.arange(int(late.sum())) * 20e-6
    return np.maximum.accumulate(out)


def test_a_short_stall_is_absorbed_and_a_long_one_loses_steps(config: Config) -> None:
    times = full_board_times(config)
    short = motor(config)
    drive(short, stalled(times, 0.002))  # ten microsteps late, under one full step
    assert short.lost_steps == 0
    long = motor(config)
    drive(long, stalled(times, 0.020))  # a whole millimetre: the rotor falls out of step
    assert long.lost_steps > 0


def test_a_jump_to_full_speed_stalls_at_once(config: Config) -> None:
    times = np.arange(1, 4801) / 4800.0  # 60 mm/s from rest, no ramp
    model = motor(config)
    drive(model, times)
    assert model.lost_steps > 4000


def test_disabled_drivers_ignore_steps(config: Config) -> None:
    model = motor(config)
    model.step(0.0, enabled=False)
    assert model.position_steps == 0 and model.lost_steps == 1
