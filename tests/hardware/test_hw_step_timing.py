"""Step timing: a late step aborts the move, the executor is a seam, and moves keep the CPU."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from bermuda_hw.backends.camera import LiveSource
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.clock import WallClock
from bermuda_hw.config import Config
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.errors import CameraError, HomingError, StepTimingError
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.motion.stepstream import (
    MOVE_SWITCH_INTERVAL_S,
    StepExecutor,
    StepResult,
    StepStream,
)
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.steps import Limits, StepPlan, plan_line
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.lgpio_standin import standin_lgpio_factory
from bermuda_hw.sim.rig import ObservedPin

MakeMover = Callable[..., tuple[CloudMover, SimBackend]]


def _stall_at(backend: SimBackend, step_number: int, stall_s: float) -> list[float]:
    """Hold the step thread up once, after a given rising STEP edge of axis x (a stall).

    Returns the list of rising-edge times seen on x, for checking what followed.
    """
    original = backend.pin_factory.observer
    x_step = backend.config.gantry.x.step_pin
    rises: list[float] = []

    def observer(pin: ObservedPin, t: float, level: bool) -> None:
        original(pin, t, level)
        if pin.bcm == x_step and level:
            rises.append(t)
            if len(rises) == step_number:
                backend.virtual_clock.advance(stall_s)  # the thread ran this much later

    backend.pin_factory.observer = observer
    return rises


def test_a_late_step_aborts_the_move_instead_of_a_burst(
    rig_mover: tuple[CloudMover, SimBackend],
) -> None:
    mover, backend = rig_mover
    mover.home()
    mover.goto_dot(1, 4)
    rises = _stall_at(backend, 400, 0.030)  # 30 ms: several full steps at cruise speed
    lost_before = backend.rig.lost_steps
    with pytest.raises(StepTimingError, match=r"step 400 came 29\.\d+ ms late"):
        mover.goto_dot(7, 4)
    assert len(rises) == 400  # not one step after the stall: no burst of the backlog
    assert backend.rig.lost_steps == lost_before
    assert not backend.rig.enabled  # the drivers are off
    assert not mover.homed
    with pytest.raises(HomingError):
        mover.goto_dot(4, 4)
    mover.home()  # and homing brings it back
    mover.goto_dot(4, 4)
    assert backend.rig.lost_steps == lost_before


def test_a_short_hiccup_is_tolerated(rig_mover: tuple[CloudMover, SimBackend]) -> None:
    mover, backend = rig_mover
    mover.home()
    mover.goto_dot(1, 4)
    # cruise at 60 mm/s, 20 steps/mm with 4 microsteps: a full step every 3.3 ms
    _stall_at(backend, 400, 0.0005)
    mover.goto_dot(7, 4)
    assert mover.pose().dot == (7, 4)
    assert backend.rig.lost_steps == 0


def test_the_step_thread_logs_whether_sched_fifo_was_granted(
    make_backend: Callable[..., SimBackend],
    fast_config: Config,
    caplog: pytest.LogCaptureFixture,
) -> None:
    backend = make_backend(fast_config)
    g = fast_config.gantry
    enable = MotorEnable(g.enable_pin, active_high=False, pin_factory=backend.pin_factory)
    axes = [StepperAxis(a, pin_factory=backend.pin_factory) for a in g.axes]
    with caplog.at_level(logging.INFO, logger="bermuda_hw.motion"):
        stream = StepStream(
            axes,
            enable,
            backend.clock,
            min_pulse_s=2e-6,
            estop=threading.Event(),
            realtime_priority=1,
        )
        stream.close()
    line = " ".join(r.getMessage() for r in caplog.records)
    assert "SCHED_FIFO priority 1" in line
    assert ("granted" in line) and (stream.realtime == ("not granted" not in line))
    for axis in axes:
        axis.close()
    enable.close()


class _Quiet:
    """A stand-in for the camera's frame grabbing: records when it was paused."""

    def __init__(self) -> None:
        self.paused = False
        self.pauses = 0

    def pause(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume(self) -> None:
        self.paused = False


def test_during_a_move_frames_pause_and_the_switch_interval_is_short(
    rig_mover: tuple[CloudMover, SimBackend],
) -> None:
    mover, backend = rig_mover
    mover.home()
    quiet = _Quiet()
    mover.pause_during_moves(quiet)
    seen: list[tuple[bool, float]] = []
    original = backend.pin_factory.observer

    def observer(pin: ObservedPin, t: float, level: bool) -> None:
        original(pin, t, level)
        if level and pin.bcm == backend.config.gantry.x.step_pin:
            seen.append((quiet.paused, sys.getswitchinterval()))

    backend.pin_factory.observer = observer
    before = sys.getswitchinterval()
    mover.goto_dot(6, 4)
    mover.turn_to(3)
    assert seen and all(paused for paused, _ in seen)
    assert all(interval <= MOVE_SWITCH_INTERVAL_S for _, interval in seen)
    assert not quiet.paused and quiet.pauses == 2
    assert sys.getswitchinterval() == before


class _GatedCamera(LiveSource):
    """A live camera whose every grab waits for a permit from the test."""

    name = "gated"

    def __init__(self) -> None:
        super().__init__(timeout_s=2.0)
        self.gate = threading.Semaphore(0)

    def _start(self) -> None:
        pass

    def _grab(self) -> Any:
        self.gate.acquire()
        return np.zeros((4, 4, 3), np.uint8)

    def _stop(self) -> None:
        self.gate.release()


def test_a_paused_live_camera_takes_no_frames() -> None:
    camera = _GatedCamera()
    with camera:
        camera.gate.release()
        camera.read()
        camera.pause()
        for _ in range(5):
            camera.gate.release()  # frames the camera could take, were it not paused
        camera.read(timeout_s=1.0)  # at most the grab that was under way when it paused
        with pytest.raises(CameraError, match="stalled"):
            camera.read(timeout_s=0.2)
        assert camera.grabs <= 2
        camera.resume()
        camera.read(timeout_s=1.0)
        assert camera.grabs >= 3


class _RecordingExecutor:
    """A step executor of another kind (a microcontroller, say): takes plans, reports moves."""

    realtime = True

    def __init__(self) -> None:
        self.plans: list[StepPlan] = []

    def execute(self, plan: StepPlan, stop_when: Callable[[], bool] | None = None) -> StepResult:
        self.plans.append(plan)
        moved = [plan.end_steps[i] - plan.start_steps[i] for i in range(2)]
        return StepResult("done", plan.step_count, moved, 0.0)

    def close(self) -> None:
        pass


def test_another_step_executor_plugs_in_without_touching_planning(
    make_backend: Callable[..., SimBackend], fast_config: Config, board: Board
) -> None:
    backend = make_backend(fast_config)
    recorder = _RecordingExecutor()

    def factory(*_: Any) -> StepExecutor:
        return recorder

    with CloudMover(fast_config, backend, board, executor=factory) as mover:
        mover._homed = True  # this executor has no endstops to home against
        mover.goto_dot(2, 3)
        assert mover.pose().dot == (2, 3)
        kin = GantryKinematics.from_config(fast_config.gantry)
        expected = plan_line(
            kin,
            (0, 0),
            kin.dot_to_steps(board.grid, 2, 3),
            Limits(fast_config.gantry.max_speed_mm_s, fast_config.gantry.accel_mm_s2),
        )
        assert np.array_equal(recorder.plans[0].times_s, expected.times_s)


def test_steps_through_gpiozero_s_lgpio_factory_cost_one_kernel_call_per_edge(
    config: Config,
) -> None:
    g = config.gantry
    with standin_lgpio_factory() as (factory, lgpio):
        enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
        axes = [StepperAxis(a, pin_factory=factory) for a in g.axes]
        stream = StepStream(axes, enable, WallClock(), min_pulse_s=2e-6, estop=threading.Event())
        try:
            kin = GantryKinematics.from_config(g)
            # slow enough (2 mm/s) that a busy test machine never makes a step late
            plan = plan_line(kin, (0, 0), (40, 40), Limits(2.0, 50.0))
            enable.enable()
            lgpio.reset_counts()
            result = stream.execute(plan)
            assert result.reason == "done" and result.steps_done == 80
            x, y = g.x.step_pin, g.y.step_pin
            levels = [level for line, level in lgpio.writes if line in (x, y)]
            assert len(levels) == 2 * 80 and levels.count(1) == 80  # a rise and a fall per step
            assert lgpio.calls["gpio_read"] == 0
            # one call per STEP edge, plus setting the two DIR lines once (mode query + write)
            assert lgpio.kernel_calls == 2 * 80 + 4
        finally:
            stream.close()
            for axis in axes:
                axis.close()
            enable.close()
