"""Cloud motion figures: executed vs minimum move time, step-edge timing error, planning time.

Also: the step stream beside a competing OpenCV thread (the camera's vision work);
the wave executor (lgpio's tx_wave, over the lgpio stand-in) beside that thread and
three page clients, its steps judged by the simulated rig's motors; and the kernel
calls per step through gpiozero's lgpio factory over a stand-in lgpio module that
counts them.
"""

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
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.sim.rig import ObservedPin, make_mock_factory

_LATE: list[str] = []  # moves the step stream aborted as late, for the report
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
    """Play a plan in real time through gpiozero MockPins; edge errors (us), run and plan time.

    A move aborted as late reports the edges made until then.
    """
    clock = WallClock(spin_s=REALTIME_SPIN_S) if priority > 0 else WallClock()
    g = config.gantry
    recorder = _EdgeRecorder({axis.step_pin for axis in g.axes})
    factory = make_mock_factory(recorder, clock)
    enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
    axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
    stream = StepStream(
        axes,
        enable,
        clock,
        min_pulse_s=g.min_pulse_us * 1e-6,
        estop=threading.Event(),
        realtime_priority=priority,
    )
    try:
        enable.enable()
        result = stream.execute(plan)
        rises = np.array(recorder.rises)
        planned = result.start_s + plan.times_s[: len(rises)]
        errors_us = (rises - planned) * 1e6
        if result.reason == "late":
            _LATE.append(
                f"step {result.late_step} of {plan.step_count} came "
                f"{result.late_s * 1e3:.2f} ms late: move aborted"
            )
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
        (0, 0),
        (count, 0),
        profile,
        times,
        np.zeros(count, dtype=np.int8),
        np.ones(count, dtype=np.int8),
    )


def _percentiles(errors_us: np.ndarray) -> str:
    p50, p99 = np.percentile(errors_us, [50, 99])
    return (
        f"p50 {p50:7.1f} us, p99 {p99:7.1f} us, max {errors_us.max():8.1f} us, "
        f"min {errors_us.min():6.1f} us"
    )


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
            g.max_speed_mm_s,
            g.accel_mm_s2,
        )
        ratio = ran_s / minimum
        worst = max(worst, ratio)
        print(
            f"  move {start}->{end}: minimum {minimum:6.3f} s, executed/minimum {ratio:.5f}; "
            f"edge error {_percentiles(errors)}"
        )
    print(f"  worst executed/minimum {worst:.5f} (goal <= {GOAL_RATIO})")
    for label, rate in (
        ("maximum speed", g.max_speed_mm_s * g.x.steps_per_mm),
        ("max_step_rate_hz", g.max_step_rate_hz),
    ):
        count = int(rate * 3)
        errors, _, _ = _real_time_stream(config, _constant_rate_plan(rate, count), priority)
        print(
            f"  step-edge error at {label} ({rate:.0f} steps/s, {count} steps): "
            f"{_percentiles(errors)}  (goal p99 <= {GOAL_P99_US:g} us)"
        )


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


class _CompetingVision:
    """A thread doing what the camera's reader does: blur, threshold and find markers."""

    def __init__(self) -> None:
        import cv2

        self.cv2 = cv2
        rng = np.random.default_rng(1)
        self.image = rng.integers(0, 255, (960, 1280), dtype=np.uint8)
        self.detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
        )
        self.frames = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        cv2 = self.cv2
        while not self._stop.is_set():
            blurred = cv2.GaussianBlur(self.image, (0, 0), 2.0)
            self.detector.detectMarkers(blurred)
            cv2.cvtColor(cv2.merge([blurred, blurred, blurred]), cv2.COLOR_BGR2LAB)
            self.frames += 1

    def __enter__(self) -> _CompetingVision:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _competing_section(config: Config) -> None:
    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    a = kin.dot_to_steps(board.grid, 0, 4)
    b = kin.dot_to_steps(board.grid, 8, 4)
    plan = plan_line(kin, a, b, Limits(g.max_speed_mm_s, g.accel_mm_s2))
    full_step_ms = g.x.microsteps / (g.max_speed_mm_s * g.x.steps_per_mm) * 1e3
    print(
        f"beside a competing OpenCV thread (blur + ArUco + Lab on 1280 x 960, as the reader "
        f"does); a step more than half a full step late ({full_step_ms / 2:.2f} ms at full "
        f"speed) aborts the move:"
    )
    for priority in (0, RealBackend.step_thread_priority):
        _LATE.clear()
        started = time.perf_counter()
        with _CompetingVision() as vision:
            errors, ran_s, _ = _real_time_stream(config, plan, priority)
        fps = vision.frames / (time.perf_counter() - started)
        mode = "SCHED_FIFO" if priority and _fifo_allowed(priority) else "ordinary"
        outcome = _LATE[0] if _LATE else f"completed in {ran_s:.3f} s"
        print(
            f"  {mode:10s} scheduling: {len(errors)} edges, {_percentiles(errors)}; "
            f"vision {fps:.1f} frames/s; {outcome}"
        )


def _syscall_section(config: Config) -> None:
    """Kernel calls per step through gpiozero's LGPIOFactory, over a counting stand-in lgpio."""
    from bermuda_hw.sim.lgpio_standin import standin_lgpio_factory

    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    a = kin.dot_to_steps(board.grid, 2, 2)
    b = kin.dot_to_steps(board.grid, 3, 3)
    plan = plan_line(kin, a, b, Limits(5.0, 100.0))  # slow: never late, whatever the load
    print("kernel calls per step through gpiozero's LGPIOFactory (stand-in lgpio counting):")
    with standin_lgpio_factory() as (factory, lgpio):
        enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
        axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
        try:
            for label, direct in (
                ("STEP through the pin's state setter", False),
                ("STEP written with lgpio directly", True),
            ):
                if not direct:
                    for axis in axes:
                        pin = axis.step_pin
                        axis.write_step = lambda level, pin=pin: setattr(pin, "state", level)
                else:
                    from bermuda_hw.devices.stepper import _line_writer

                    for axis in axes:
                        axis.write_step = _line_writer(axis.step_pin)
                stream = StepStream(
                    axes,
                    enable,
                    WallClock(),
                    min_pulse_s=g.min_pulse_us * 1e-6,
                    estop=threading.Event(),
                )
                enable.enable()
                lgpio.reset_counts()
                result = stream.execute(plan)
                stream.close()
                calls = dict(sorted(lgpio.calls.items()))
                print(
                    f"  {label}: {lgpio.kernel_calls / result.steps_done:.2f} per step "
                    f"({result.steps_done} steps, both axes; {calls})"
                )
        finally:
            for axis in axes:
                axis.close()
            enable.close()


class _PageClients:
    """The table's page served in this process, three clients streaming its camera view
    (frames rendered by the simulated camera in a thread of their own)."""

    def __init__(self, config: Config, clients: int = 3) -> None:
        import importlib.util
        import tempfile
        from pathlib import Path

        from bermuda_hw.config import WebConfig
        from bermuda_hw.controller.commands import CommandQueue
        from bermuda_hw.web.service import start_page

        spec = importlib.util.spec_from_file_location(
            "bench_web", Path(__file__).resolve().parent / "bench_web.py"
        )
        assert spec is not None and spec.loader is not None
        web = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(web)
        board = load_board()
        self.feeder = web._Feeder(board, config)
        feeder = self.feeder

        class PageSource:  # what the page asks of the controller
            def __init__(self) -> None:
                self.commands = CommandQueue()
                self.subscribers: list[object] = []
                self.snapshot = None

            @property
            def camera_view(self) -> object:
                return feeder.view

        self._state = tempfile.TemporaryDirectory()
        self.page = start_page(
            PageSource(),
            board,
            WebConfig(enabled=True, bind="127.0.0.1:0"),
            Path(self._state.name),
            simulate=True,
        )
        self.stop = threading.Event()
        self.frames = [0] * clients
        self.threads = [
            threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(clients)
        ]

    def _client(self, i: int) -> None:
        import urllib.request

        url = self.page.local_url + "api/camera.mjpeg"
        with urllib.request.urlopen(url, timeout=30) as r:
            while not self.stop.is_set():
                chunk = r.read(65536)
                if not chunk:
                    return
                self.frames[i] += chunk.count(b"--frame")

    def __enter__(self) -> _PageClients:
        self.feeder.thread.start()
        for t in self.threads:
            t.start()
        time.sleep(1.0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.page.stop()
        self.feeder.close()
        self._state.cleanup()


class _Line:
    """An lgpio line number as the simulated rig's pin listener wants it."""

    def __init__(self, bcm: int) -> None:
        self.bcm = bcm


def _wave_section(config: Config) -> None:
    """The wave executor over the lgpio stand-in (its tx thread times the edges, as lgpio's
    C thread does), judged by the simulated rig's motors, beside vision and page clients."""
    from bermuda_hw.motion.wave import lgpio_wave_executor
    from bermuda_hw.sim.lgpio_standin import standin_lgpio_factory
    from bermuda_hw.sim.rig import SimRig

    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    clock = WallClock()
    rig = SimRig(config, clock)
    print(
        "wave executor (lgpio tx_wave over the lgpio stand-in, edges timed by its tx "
        "thread), beside a competing OpenCV thread and 3 page clients streaming the camera; "
        "the simulated rig's motors judge the steps:"
    )
    aborted = 0
    worst = 0.0
    with standin_lgpio_factory() as (factory, lgpio):
        # the rig judges the levels after each move: on the Pi the tx thread costs Python
        # nothing, and the stand-in's own playback should cost the feeder little
        levels: list[tuple[int, int, float]] = []
        lgpio.on_level = lambda line, level, t: levels.append((line, level, t))
        enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
        axes = [StepperAxis(axis, pin_factory=factory) for axis in g.axes]
        executor = lgpio_wave_executor(
            axes, enable, clock, g.min_pulse_us * 1e-6, threading.Event(), 0
        )
        try:
            with _PageClients(config) as page, _CompetingVision() as vision:
                started = time.perf_counter()
                enable.enable()
                for start, end in MOVES:
                    a = kin.dot_to_steps(board.grid, *start)
                    b = kin.dot_to_steps(board.grid, *end)
                    for model, steps in zip(rig.axes.values(), a, strict=True):
                        model.position_steps = steps
                    lost = rig.lost_steps
                    lgpio.reset_counts()
                    plan = plan_line(kin, a, b, Limits(g.max_speed_mm_s, g.accel_mm_s2))
                    result = executor.execute(plan)
                    for line, level, t in levels:
                        rig.on_pin_change(_Line(line), t, bool(level))  # type: ignore
                    levels.clear()
                    minimum = minimum_time_s(
                        math.dist(board.grid.dot_mm(*start), board.grid.dot_mm(*end)),
                        g.max_speed_mm_s,
                        g.accel_mm_s2,
                    )
                    ratio = (result.end_s - result.start_s) / minimum
                    reached = tuple(m.position_steps for m in rig.axes.values()) == b
                    if result.reason != "done" or not reached or rig.lost_steps != lost:
                        aborted += 1
                    worst = max(worst, ratio)
                    print(
                        f"  move {start}->{end}: {result.reason}, {result.steps_done} steps, "
                        f"executed/minimum {ratio:.5f}, lost {rig.lost_steps - lost}, "
                        f"target {'reached' if reached else 'MISSED'}; "
                        f"{lgpio.calls['tx_wave']} tx_wave calls, "
                        f"{lgpio.kernel_calls / max(result.steps_done, 1):.3f} lgpio calls "
                        "per step"
                    )
                # a stop condition (an endstop while homing) turning true mid-move: how
                # long the tx thread still made steps after it did
                a = kin.dot_to_steps(board.grid, 0, 4)
                b = kin.dot_to_steps(board.grid, 8, 4)
                plan = plan_line(kin, a, b, Limits(g.max_speed_mm_s, g.accel_mm_s2))
                after_ms: list[float] = []
                for trial in range(5):
                    due = time.monotonic() + 0.4 + 0.13 * trial

                    def stop(due: float = due) -> bool:
                        return time.monotonic() >= due

                    levels.clear()
                    result = executor.execute(plan, stop)
                    rises = [
                        t
                        for line, level, t in levels
                        if level and line in {axis.config.step_pin for axis in axes}
                    ]
                    if result.reason != "condition" or not rises:
                        aborted += 1
                        print(f"  stop trial {trial}: {result.reason}, {len(rises)} steps")
                        continue
                    after_ms.append((max(rises) - due) * 1e3)
                levels.clear()
                fps = vision.frames / (time.perf_counter() - started)
                sent = sum(page.frames)
        finally:
            executor.close()
            for axis in axes:
                axis.close()
            enable.close()
    load = os.getloadavg()[0]
    print(
        f"  {aborted} aborted of {len(MOVES)} moves and 5 stop trials; "
        f"worst executed/minimum {worst:.5f}; "
        f"vision {fps:.1f} frames/s, {sent} camera frames sent to the page clients "
        f"(load {load:.2f})"
    )
    print(
        f"  a stop condition turning true at full speed: the last step came "
        f"{max(after_ms, default=math.nan):+.2f} ms after it (worst of {len(after_ms)}; "
        "the bound if Python stalls altogether: the queue's 120 ms)"
    )


def main() -> None:
    config = load_config()
    g = config.gantry
    kin = GantryKinematics.from_config(g)
    board = load_board()
    print(
        f"limits: {g.max_speed_mm_s:g} mm/s, {g.accel_mm_s2:g} mm/s^2, "
        f"{g.x.steps_per_mm:g} steps/mm; goal ratio <= {GOAL_RATIO}, p99 <= {GOAL_P99_US:g} us"
    )

    print("executed / minimum duration, simulated rig (virtual clock, exact planned times):")
    for name, ratio, minimum in _ratios_on_sim(config):
        print(f"  {name:18s} minimum {minimum:6.3f} s   ratio {ratio:.5f}")

    for priority in (0, RealBackend.step_thread_priority):
        _real_time_section(config, priority)
    if _LATE:
        print("  aborted as late: " + "; ".join(_LATE))
    _competing_section(config)
    _wave_section(config)
    _syscall_section(config)

    period_us = 1e6 / (g.max_speed_mm_s * g.x.steps_per_mm)
    latencies = _estop_latency(config)
    print(
        f"emergency stop at full speed: last step edge {max(latencies):+.1f} us relative to "
        f"the stop (worst of {len(latencies)}; <= 0: no edge after it; goal: within one "
        f"step period, {period_us:.0f} us)"
    )

    a = kin.dot_to_steps(board.grid, 0, 0)
    b = kin.dot_to_steps(board.grid, 8, 8)
    limits = Limits(g.max_speed_mm_s, g.accel_mm_s2)
    plan_line(kin, a, b, limits)
    runs = 20
    started = time.perf_counter()
    for _ in range(runs):
        plan = plan_line(kin, a, b, limits)
    per_plan_ms = (time.perf_counter() - started) / runs * 1e3
    print(
        f"planning a full-board diagonal move ({plan.step_count} steps, "
        f"{plan.duration_s:.2f} s): {per_plan_ms:.2f} ms"
    )


if __name__ == "__main__":
    main()
