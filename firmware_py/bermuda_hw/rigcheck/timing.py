"""`selftest --timing`: the real STEP edge times, read back on a second GPIO, against the plan.

The owner wires a jumper from the x axis's STEP pin to a spare GPIO input.
The rig's own step executor (lgpio's wave queue on a Pi with python3-lgpio)
then plays a step train at `max_step_rate_hz` with the drivers disabled (the
motors do not move), and the kernel's time stamps of the read-back rising
edges are compared with the plan's step times.

The figure to reach: every edge read back; the 99th percentile of the edge
error within `GOAL_P99_US`; and no edge off by half a full step period or
more at that rate (the step thread's own abort limit, `LATE_FRACTION`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.motion.mover import default_executor
from bermuda_hw.motion.stepstream import LATE_FRACTION
from bermuda_hw.planning.profile import TrapezoidProfile
from bermuda_hw.planning.steps import StepPlan

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.config import Config

GOAL_P99_US = 100.0
TRAIN_S = 1.0  # the step train's length
SETTLE_S = 0.2  # after the train, for the last alerts to arrive


@dataclass(frozen=True)
class TimingReport:
    """Read-back edges against the plan: errors in microseconds after the first edge."""

    planned: int
    seen: int
    errors_us: npt.NDArray[np.float64]
    limit_us: float  # half a full step period at the rate played
    executor: str

    @property
    def p50_us(self) -> float:
        return float(np.percentile(np.abs(self.errors_us), 50)) if self.errors_us.size else 0.0

    @property
    def p99_us(self) -> float:
        return float(np.percentile(np.abs(self.errors_us), 99)) if self.errors_us.size else 0.0

    @property
    def max_us(self) -> float:
        return float(np.abs(self.errors_us).max()) if self.errors_us.size else 0.0

    @property
    def ok(self) -> bool:
        return (
            self.seen == self.planned and self.p99_us <= GOAL_P99_US and self.max_us < self.limit_us
        )

    def summary(self) -> str:
        return (
            f"{self.seen} of {self.planned} edges read back; error p50 {self.p50_us:.1f} us, "
            f"p99 {self.p99_us:.1f} us, max {self.max_us:.1f} us (goal: every edge, p99 <= "
            f"{GOAL_P99_US:g} us, max < {self.limit_us:.0f} us); {self.executor}"
        )


def judge_timing(
    planned_s: npt.NDArray[np.float64],
    seen_s: npt.NDArray[np.float64],
    limit_us: float,
    executor: str = "",
) -> TimingReport:
    """Compare read-back rising edges with the planned ones (both from their first edge)."""
    planned_s = np.asarray(planned_s, dtype=np.float64)
    seen_s = np.sort(np.asarray(seen_s, dtype=np.float64))
    n = min(planned_s.size, seen_s.size)
    if n == 0:
        errors = np.zeros(0)
    else:
        errors = ((seen_s[:n] - seen_s[0]) - (planned_s[:n] - planned_s[0])) * 1e6
    return TimingReport(int(planned_s.size), int(seen_s.size), errors, limit_us, executor)


def step_train(rate_hz: float, count: int) -> StepPlan:
    """`count` steps of axis x at one rate, the first one period after the start."""
    times = np.arange(1, count + 1, dtype=np.float64) / rate_hz
    profile = TrapezoidProfile.plan(float(count), rate_hz, 1e12)
    return StepPlan(
        (0, 0),
        (count, 0),
        profile,
        times,
        np.zeros(count, dtype=np.int8),
        np.ones(count, dtype=np.int8),
    )


def measure_step_timing(
    config: Config, backend: Backend, readback_pin: int, train_s: float = TRAIN_S
) -> TimingReport:
    """Play a step train on STEP x with the drivers disabled; read it back on `readback_pin`."""
    g = config.gantry
    factory = backend.pin_factory
    rate = g.max_step_rate_hz
    plan = step_train(rate, max(2, int(rate * train_s)))
    limit_us = LATE_FRACTION * g.x.microsteps / rate * 1e6
    seen: list[float] = []
    lock = threading.Lock()

    def edge(ticks: Any, state: Any) -> None:
        if state:
            with lock:
                seen.append(float(ticks))

    readback = factory.pin(readback_pin)
    enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
    axes: list[StepperAxis] = []
    try:
        axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
        readback.function = "input"
        readback.edges = "rising"
        readback.when_changed = edge
        executor = default_executor(backend)(
            axes,
            enable,
            backend.clock,
            g.min_pulse_us * 1e-6,
            threading.Event(),
            backend.step_thread_priority,
        )
        try:
            note = str(getattr(executor, "realtime_note", type(executor).__name__))
            enable.disable()  # the drivers ignore STEP: nothing moves
            executor.execute(plan)
            backend.clock.sleep(SETTLE_S)
        finally:
            executor.close()
        readback.when_changed = None
    finally:
        for axis in axes:
            axis.close()
        enable.close()
        readback.close()
    with lock:
        times = np.array(seen)
    return judge_timing(plan.times_s, times, limit_us, note)
