"""Cloud motion figures: executed vs minimum move time, step-edge timing error, planning time."""

from __future__ import annotations

import math
import os
import threading
import time

import numpy as np

from bermuda_hw.backends.real import REALTIME_SPIN_S, RealBackend
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.clock import WallClock
from bermuda_hw.config import Config, load_config
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.motion.stepstream import StepStream
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.profile import TrapezoidProfile
from bermuda_hw.planning.steps import Limits, StepPlan, plan_line
from bermuda_hw.rules.board import load_board
from bermuda_hw.sim.rig import ObservedPin, make_mock_factory

GOAL_RATIO = 1.02
GOAL_P99_US = 100.0

# (from dot, to dot): short, medium, full-board straight and diagonal moves
MOVES = [((4, 4), (4, 3)), ((4, 4), (4, 2)), ((4, 4), (7, 4)), ((0, 4), (8, 4)), ((0, 0), (8, 8))]


def minimum_time_s(distance_mm: float, speed_mm_s: float, accel_mm_s2: float) -> float:
    """The textbook minimum time of a rest-to-rest move under speed and acceleration limits."""
    if distance_mm * accel_mm_s2 >= speed_mm_s**2:
        return distance_mm / speed_mm_s + speed_mm_s / accel_mm_s2
    return 2.0 * math.sqrt(distance_mm / accel_mm_s2)


def _ratios_on_sim(config: Config) -> list[tuple[str, float, float]]:
    """Executed duration over the minimum, on the simulated rig (virtual clock)."""
    board = load_board()
    backend = SimBackend(config)
    mover = CloudMover(config, backend, board)
    out = []
    try:
        mover.home()
        g = config.gantry
        for start, end in MOVES:
            mover.goto_dot(*start)
            since = backend.clock.monotonic()
            report = mover.goto_dot(*end)
            a = board.grid.dot_mm(*start)
            b = board.grid.dot_mm(*end)
            minimum = minimum_time_s(math.dist(a, b), g.max_speed_mm_s, g.accel_mm_s2)
            # executed: from the first step's plan time 0 to the last edge, by the rig's clock
            executed = report.duration_s
            speed, accel = backend.rig.peaks(since)
            out.append((f"{start}->{end}", executed / minimum, minimum))
            assert backend.rig.lost_steps == 0, "the rig lost steps"
            assert speed <= g.max_speed_mm_s * 1.001 and accel <= g.accel_mm_s2 * 1.001
    finally:
        mover.close()
        backend.close()
    return out


class _EdgeRecorder:
    """Rising edges on the STEP pins, timed by the clock when the pin's state changes."""

    def __init__(self, step_pins: set[int]) -> None:
        self.step_pins = step_pins
        self.rises: list[float] = []

    def __call__(self, pin: ObservedPin, t: float, level: bool) -> None:
        if level and pin.bcm in self.step_pins:
            self.rises.append(t)


def _real_time_stream(
    config: Config, plan: StepPlan, priority: int
) -> tuple[np.ndarray, float, float]:
    """Play a plan in real time through gpiozero MockPins; edge errors (us), run and plan time."""
    clock = WallClock(spin_s=REALTIME_SPIN_S) if priority > 0 else WallClock()
    g = config.gantry
    recorder = _EdgeRecorder({axis.step_pin for axis in g.axes})
    factory = make_mock_factory(recorder, clock)
    enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
    axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
    stream = StepStream(axes, enable, clock, min_pulse_s=g.min_pulse_us * 1e-6,
                        estop=threading.Event(), realtime_priority=priority)
    try:
        enable.enable()
        result = stream.execute(plan)
        planned = result.start_s + plan.times_s
        errors_us = (np.array(recorder.rises) - planned) * 1e6
        return errors_us, result.end_s - result.start_s, plan.duration_s
    finally:
        stream.close()
        for axis in axes:
            axis.close()
        enable.close()
        factory.reset()
        factory.close()


def _constant_rate_plan(rate_hz: float, count: int) -> StepPlan:
    """A step train at one rate on axis x (the rig's worst case: its fastest steps)."""
    times = np.arange(1, count + 1, dtype=np.float64) / rate_hz
    profile = TrapezoidProfile.plan(count / 80.0, rate_hz / 80.0, 1e9)
    return StepPlan(
        (0, 0), (count, 0), profile, times, np.zeros(count, dtype=np.int8),
        np.ones(count, dtype=np.int8),
    )


def _percentiles(errors_us: np.ndarray) -> str:
    p50, p99 = np.percentile(errors_us, [50, 99])
    return (f"p50 {p50:7.1f} us, p99 {p99:7.1f} us, max {errors_us.max():8.1f} us, "
            f"min {errors_us.min():6.1f} us")


def _real_time_section(config: Config, priority: int) -> None:
    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    granted = _fifo_allowed(priority)
    mode = f"SCHED_FIFO priority {priority}" if priority and granted else "ordinary scheduling"
    if priority and not granted:
        mode += f" (SCHED_FIFO {priority} not permitted here)"
    print(f"real time through gpiozero MockPins, wall clock, step thread under {mode}:")
    worst = 0.0
    for start, end in MOVES[:4]:
        a = kin.dot_to_steps(board.grid, *start)
        b = kin.dot_to_steps(board.grid, *end)
        plan = plan_line(kin, a, b, Limits(g.max_speed_mm_s, g.accel_mm_s2))
        errors, ran_s, _ = _real_time_stream(config, plan, priority)
        minimum = minimum_time_s(
            math.dist(board.grid.dot_mm(*start), board.grid.dot_mm(*end)),
            g.max_speed_mm_s, g.accel_mm_s2,
        )
        ratio = ran_s / minimum
        worst = max(worst, ratio)
        print(f"  move {start}->{end}: minimum {minimum:6.3f} s, executed/minimum {ratio:.5f}; "
              f"edge error {_percentiles(errors)}")
    print(f"  worst executed/minimum {worst:.5f} (goal <= {GOAL_RATIO})")
    for label, rate in (("maximum speed", g.max_speed_mm_s * g.x.steps_per_mm),
                        ("max_step_rate_hz", g.max_step_rate_hz)):
        count = int(rate * 3)
        errors, _, _ = _real_time_stream(config, _constant_rate_plan(rate, count), priority)
        print(f"  step-edge error at {label} ({rate:.0f} steps/s, {count} steps): "
              f"{_percentiles(errors)}  (goal p99 <= {GOAL_P99_US:g} us)")


def _estop_latency(config: Config, trials: int = 5) -> list[float]:
    """Real time from emergency_stop() to the stream's last STEP edge, at full speed (us)."""
    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    a = kin.dot_to_steps(board.grid, 0, 4)
    b = kin.dot_to_steps(board.grid, 8, 4)
    plan = plan_line(kin, a, b, Limits(g.max_speed_mm_s, g.accel_mm_s2))
    clock = WallClock()
    recorder = _EdgeRecorder({axis.step_pin for axis in g.axes})
    factory = make_mock_factory(recorder, clock)
    enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
    axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
    estop = threading.Event()
    stream = StepStream(axes, enable, clock, min_pulse_s=g.min_pulse_us * 1e-6, estop=estop)
    latencies = []
    try:
        for trial in range(trials):
            estop.clear()
            recorder.rises.clear()
            runner = threading.Thread(target=stream.execute, args=(plan,))
            runner.start()
            time.sleep(1.5 + 0.37 * trial)  # cruising at full speed by then
            called = clock.monotonic()
            estop.set()
            runner.join()
            latencies.append((recorder.rises[-1] - called) * 1e6)
    finally:
        stream.close()
        for axis in axes:
            axis.close()
        enable.close()
        factory.reset()
        factory.close()
    return latencies


def _fifo_allowed(priority: int) -> bool:
    if priority <= 0:
        return False
    result: list[bool] = []

    def probe() -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
            result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return result[0]


def main() -> None:
    config = load_config()
    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    print(f"limits: {g.max_speed_mm_s:g} mm/s, {g.accel_mm_s2:g} mm/s^2, "
          f"{g.x.steps_per_mm:g} steps/mm; goal ratio <= {GOAL_RATIO}, p99 <= {GOAL_P99_US:g} us")

    print("executed / minimum duration, simulated rig (virtual clock, exact planned times):")
    for name, ratio, minimum in _ratios_on_sim(config):
        print(f"  {name:18s} minimum {minimum:6.3f} s   ratio {ratio:.5f}")

    for priority in (0, RealBackend.step_thread_priority):
        _real_time_section(config, priority)

    period_us = 1e6 / (g.max_speed_mm_s * g.x.steps_per_mm)
    latencies = _estop_latency(config)
    print(f"emergency stop at full speed: last step edge {max(latencies):+.1f} us relative to "
          f"the stop (worst of {len(latencies)}; <= 0: no edge after it; goal: within one "
          f"step period, {period_us:.0f} us)")

    a = kin.dot_to_steps(board.grid, 0, 0)
    b = kin.dot_to_steps(board.grid, 8, 8)
    limits = Limits(g.max_speed_mm_s, g.accel_mm_s2)
    plan_line(kin, a, b, limits)
    runs = 20
    started = time.perf_counter()
    for _ in range(runs):
        plan = plan_line(kin, a, b, limits)
    per_plan_ms = (time.perf_counter() - started) / runs * 1e3
    print(f"planning a full-board diagonal move ({plan.step_count} steps, "
          f"{plan.duration_s:.2f} s): {per_plan_ms:.2f} ms")


if __name__ == "__main__":
    main()
