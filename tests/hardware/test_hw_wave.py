"""The service's own lgpio pin factory: one lgpio call per STEP edge, and the wave executor
whose edges lgpio's tx thread times, checked against the plan on the lgpio stand-in."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.backends.real import RealBackend, _lgpio_factory
from bermuda_hw.config import Config
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.errors import MotionError
from bermuda_hw.motion.mover import CloudMover, default_executor
from bermuda_hw.motion.stepstream import StepStream
from bermuda_hw.motion.wave import (
    MARKER_US,
    LgpioWaveExecutor,
    lgpio_wave_executor,
    wave_or_stream,
    wave_pulses,
)
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.profile import TrapezoidProfile
from bermuda_hw.planning.steps import Limits, StepPlan, plan_line
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.lgpio_standin import PI4B_REVISION, StandInLgpio

PULSE_US = 2


@pytest.fixture
def service_factory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[Any, StandInLgpio]]:
    """The real backend's own lgpio pin factory, over the lgpio stand-in, as on a Pi 4."""
    module = StandInLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", module)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: PI4B_REVISION)
    monkeypatch.setenv("LG_WD", str(tmp_path))
    factory = _lgpio_factory(0)
    try:
        yield factory, module
    finally:
        factory.close()
        sys.modules.pop("gpiozero.pins.lgpio", None)


@pytest.fixture
def rig(
    service_factory: tuple[Any, StandInLgpio], config: Config
) -> Iterator[tuple[list[StepperAxis], MotorEnable, StandInLgpio]]:
    factory, module = service_factory
    g = config.gantry
    enable = MotorEnable(g.enable_pin, active_high=g.enable_active_high, pin_factory=factory)
    axes = [StepperAxis(a, pin_factory=factory) for a in g.axes]
    try:
        yield axes, enable, module
    finally:
        for axis in axes:
            axis.close()
        enable.close()


def _executor(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio], estop: threading.Event | None = None
) -> LgpioWaveExecutor:
    from bermuda_hw.clock import WallClock

    axes, enable, _ = rig
    executor = lgpio_wave_executor(
        axes, enable, WallClock(), PULSE_US * 1e-6, estop or threading.Event(), 0
    )
    assert isinstance(executor, LgpioWaveExecutor)
    return executor


def test_the_service_factory_writes_a_step_edge_in_one_lgpio_call(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
) -> None:
    axes, _, lgpio = rig
    assert type(axes[0].step_pin).__name__ != "LGPIOPin"  # the backend's own subclass
    lgpio.reset_counts()
    for _ in range(10):
        axes[0].write_step(True)
        axes[0].write_step(False)
    assert dict(lgpio.calls) == {"gpio_write": 20}
    assert lgpio.writes == [(axes[0].config.step_pin, level) for level in (1, 0) * 10]


def _plan(config: Config, start: tuple[int, int], end: tuple[int, int]) -> StepPlan:
    kin = GantryKinematics.from_config(config.gantry)
    return plan_line(kin, start, end, Limits(60.0, 2000.0))


def _rises(
    waves: list[tuple[int, list[tuple[int, int, int]]]], lines: list[int]
) -> dict[int, list[int]]:
    """The rising edges the queued pulses ask for, per line, in us from the plan's start."""
    rises: dict[int, list[int]] = {line: [] for line in lines}
    plan_waves = waves[1:]  # the first wave is the one-pulse marker of plan time 0
    assert waves[0][1] == [(0, 0, MARKER_US)]
    t_us = 0
    for _, pulses in plan_waves:
        for bits, mask, delay_us in pulses:
            for bit, line in enumerate(lines):
                if mask >> bit & 1 and bits >> bit & 1:
                    rises[line].append(t_us)
            t_us += delay_us
    return rises


def test_queued_pulses_match_the_planned_step_times(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
) -> None:
    axes, enable, lgpio = rig
    executor = _executor(rig)
    try:
        plan = _plan(config, (900, 900), (300, 1300))  # x toward home, y away: 0.4 s
        enable.enable()
        lgpio.reset_counts()
        levels: list[tuple[int, int, float]] = []
        lgpio.on_level = lambda line, level, t: levels.append((line, level, t))
        result = executor.execute(plan)
        assert result.reason == "done" and result.steps_done == plan.step_count
        assert result.moved == [-600, 400]
        lines = [axis.config.step_pin for axis in axes]
        rises = _rises(lgpio.waves, lines)
        for index, line in enumerate(lines):
            planned_us = plan.axis_times(index) * 1e6
            assert len(rises[line]) == planned_us.size
            assert np.abs(np.array(rises[line]) - planned_us).max() <= 0.5
        # what lgpio's tx thread plays: every edge at its time from the wave's start
        start = lgpio.tx_start_s[0] + MARKER_US * 1e-6  # after the marker
        for index, line in enumerate(lines):
            played = [(t, level) for t, g, level in lgpio.played if g == line]
            up = np.array([t for t, level in played if level]) - start
            down = np.array([t for t, level in played if not level]) - start
            assert np.abs(up - plan.axis_times(index)).max() < 1e-6
            assert np.abs(down - up - PULSE_US * 1e-6).max() < 1e-6
        # at every STEP rise the axis's DIR line is at the level the plan's direction asks
        for axis, sign in zip(axes, (-1, 1), strict=True):
            want = int((sign > 0) != axis.config.invert_dir)
            dir_level = None
            rises = 0
            for line, level, _ in sorted(levels, key=lambda e: e[2]):
                if line == axis.config.dir_pin:
                    dir_level = level
                elif line == axis.config.step_pin and level:
                    assert dir_level == want
                    rises += 1
            assert rises == int(np.sum(plan.axes == axes.index(axis)))
        # the reported edges are the plan's, from the moment the tx thread took it up
        assert abs(result.start_s - start) <= executor.start_error_s + 1e-6
        assert np.allclose(np.array(result.edge_times_s) - result.start_s, plan.times_s)
        assert result.edge_axes == plan.axes.tolist()
    finally:
        executor.close()
    # the STEP lines are gpiozero's outputs again, low
    for axis in axes:
        assert lgpio.modes[axis.config.step_pin] & 2 and lgpio.levels[axis.config.step_pin] == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(5, 4000)), min_size=1, max_size=60))
def test_wave_pulses_raise_and_lower_each_line_at_its_time(
    steps: list[tuple[int, int]],
) -> None:
    # per axis, a step every `gap` us (longer than the pulse); both axes merged in time
    clocks = [0, 0]
    times: list[float] = []
    axes: list[int] = []
    for axis, gap in steps:
        clocks[axis] += gap
        times.append(clocks[axis] * 1e-6)
        axes.append(axis)
    order = np.argsort(times, kind="stable")
    profile = TrapezoidProfile.plan(1.0, 1.0, 1.0)
    plan = StepPlan(
        (0, 0),
        (0, 0),
        profile,
        np.array(times)[order],
        np.array(axes, dtype=np.int8)[order],
        np.ones(len(times), dtype=np.int8),
    )
    pulses = wave_pulses(plan, PULSE_US)
    assert pulses.times_us[0] == 0 and np.all(np.diff(pulses.times_us) > 0)
    assert np.all(pulses.bits & ~pulses.masks == 0)
    for axis in (0, 1):
        bit = 1 << axis
        touched = pulses.masks & bit != 0
        ups = pulses.times_us[touched & (pulses.bits & bit != 0)]
        downs = pulses.times_us[touched & (pulses.bits & bit == 0)]
        planned = np.rint(plan.axis_times(axis) * 1e6)
        assert np.array_equal(ups, planned) and np.array_equal(downs, planned + PULSE_US)
    assert int(pulses.delays_us.sum()) == int(pulses.times_us[-1])


def test_steps_closer_than_the_pulse_are_refused(config: Config) -> None:
    profile = TrapezoidProfile.plan(1.0, 1.0, 1.0)
    plan = StepPlan(
        (0, 0),
        (2, 0),
        profile,
        np.array([1e-3, 1e-3 + 2e-6]),
        np.zeros(2, dtype=np.int8),
        np.ones(2, dtype=np.int8),
    )
    with pytest.raises(MotionError, match="not longer than the 2 us STEP pulse"):
        wave_pulses(plan, PULSE_US)


def test_the_e_stop_cancels_the_queue_and_disables_at_once(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
) -> None:
    axes, enable, lgpio = rig
    estop = threading.Event()
    executor = _executor(rig, estop)
    try:
        plan = _plan(config, (0, 0), (6000, 0))  # about 1.4 s
        enable.enable()
        out: list[Any] = []
        runner = threading.Thread(target=lambda: out.append(executor.execute(plan)))
        runner.start()
        time.sleep(0.3)
        pressed = time.monotonic()
        estop.set()
        runner.join(5.0)
        result = out[0]
        assert result.reason == "estop" and not enable.is_enabled
        assert 0 < result.steps_done < plan.step_count
        line = axes[0].config.step_pin
        last_edge = max(t for t, g, level in lgpio.played if g == line and level)
        assert last_edge < pressed + 0.05  # the queue was cancelled, not played out
        assert lgpio.tx_busy(lgpio, line, lgpio.TX_WAVE) == 0
        assert lgpio.levels[line] == 0
        # the steps reported as made are those played, to within the steps due while the
        # executor watched for the wave's start
        played = sum(1 for _, g, level in lgpio.played if g == line and level)
        rate_hz = plan.peak_step_rate_hz(0)
        assert abs(played - result.steps_done) <= rate_hz * executor.start_error_s + 2
    finally:
        executor.close()


def test_a_stop_condition_cancels_the_rest_of_the_plan(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
) -> None:
    axes, enable, lgpio = rig
    executor = _executor(rig)
    try:
        plan = _plan(config, (0, 0), (0, 6000))
        enable.enable()
        seen: list[float] = []
        intervals: list[float] = []

        def endstop() -> bool:
            intervals.append(sys.getswitchinterval())
            if len(seen) < 50:
                seen.append(time.monotonic())
                return False
            seen.append(time.monotonic())
            return True

        before = sys.getswitchinterval()
        result = executor.execute(plan, endstop)
        assert result.reason == "condition"
        # while the plan runs, other threads hand the interpreter back within 0.5 ms
        assert max(intervals) <= 0.0005 and sys.getswitchinterval() == before
        line = axes[1].config.step_pin
        edges = [t for t, g, level in lgpio.played if g == line and level]
        assert 0 < len(edges) < plan.step_count
        assert max(edges) <= seen[-1] + 1e-3  # nothing played after the stop
        assert lgpio.tx_busy(lgpio, line, lgpio.TX_WAVE) == 0
    finally:
        executor.close()


def test_a_queue_that_runs_dry_ends_the_move_as_late(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
) -> None:
    axes, enable, lgpio = rig
    executor = _executor(rig)
    try:
        plan = _plan(config, (0, 0), (3000, 0))
        enable.enable()
        calls = [0]

        def starved() -> bool:  # Python kept from running for 0.3 s
            calls[0] += 1
            if calls[0] == 20:
                time.sleep(0.3)
            return False

        result = executor.execute(plan, starved)
        assert result.reason == "late" and 0 < result.steps_done < plan.step_count
        line = axes[0].config.step_pin
        played = sum(1 for _, g, level in lgpio.played if g == line and level)
        assert played == result.steps_done  # every queued step was made, and no more
    finally:
        executor.close()


def test_the_chooser_takes_the_wave_queue_where_there_is_one(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bermuda_hw.clock import WallClock

    axes, enable, _ = rig
    assert default_executor(RealBackend(config)) is wave_or_stream
    chosen = wave_or_stream(axes, enable, WallClock(), 2e-6, threading.Event(), 0)
    try:
        assert isinstance(chosen, LgpioWaveExecutor)
    finally:
        chosen.close()
    monkeypatch.delattr(StandInLgpio, "tx_wave")  # an lgpio without wave functions
    chosen = wave_or_stream(axes, enable, WallClock(), 2e-6, threading.Event(), 0)
    try:
        assert isinstance(chosen, StepStream)
    finally:
        chosen.close()


def test_the_simulated_rig_keeps_the_python_step_thread(
    make_backend: Any,
    board: Board,
) -> None:
    backend = make_backend()
    mover = CloudMover(backend.config, backend, board)
    try:
        assert isinstance(mover.stream, StepStream)
    finally:
        mover.close()


def test_the_stand_in_s_wave_queue_follows_lgpio_s_tx_thread() -> None:
    now = [100.0]
    lg = StandInLgpio(lambda: now[0])
    lg.group_claim_output(0, [20, 24], [0, 0])
    assert lg.tx_room(0, 20, lg.TX_WAVE) == 10 and lg.tx_busy(0, 20, lg.TX_WAVE) == 0
    assert lg.tx_wave(0, 20, []) == 0  # lgpio.py sends nothing for no pulses
    wave = [lg.pulse(1, 1, 100), lg.pulse(0, 1, 100)]  # STEP 20 up for 100 us
    assert [lg.tx_wave(0, 20, wave) for _ in range(10)] == list(range(9, -1, -1))
    with pytest.raises(lg.error, match="TX queue full"):
        lg.tx_wave(0, 20, wave)
    now[0] += 0.00145  # the thread woke at 100.0 s (on its 20 ms round) and plays on
    start = lg.tx_start_s[0]
    assert start == 100.0 and lg.tx_busy(0, 20, lg.TX_WAVE) == 1
    played = [(round((t - start) * 1e6), g, level) for t, g, level in lg.played]
    assert played[:4] == [(0, 20, 1), (100, 20, 0), (200, 20, 1), (300, 20, 0)]
    assert len(played) == 15  # 0 .. 1400 us
    assert lg.tx_room(0, 20, lg.TX_WAVE) == 7  # waves 8 to 10 left, the eighth playing
    now[0] += 0.001
    assert lg.tx_busy(0, 20, lg.TX_WAVE) == 0 and lg.tx_room(0, 20, lg.TX_WAVE) == 10
    # a new wave waits for the thread's next wake, 20 ms after its last one (at 2 ms,
    # when the last wave ended); group_free stops it with its queue
    lg.tx_wave(0, 20, wave)
    lg.tx_wave(0, 20, wave)
    second = lg.tx_start_s[1]
    assert second == pytest.approx(100.022)
    now[0] = second + 150e-6
    assert lg.group_free(0, 20) == 0
    now[0] += 1.0
    assert lg.tx_busy(0, 20, lg.TX_WAVE) == 0
    assert [round((t - second) * 1e6) for t, _, _ in lg.played[20:]] == [0, 100]


class _NoTurn:
    """A rotation actuator that is never asked to turn (the gantry alone is tested)."""

    kind = "stepper"
    letter = 0

    def assume_letter(self, letter: int) -> None:
        self.letter = letter

    def turn_to(self, letter: int, stop: Any = None, held: Any = None) -> float:
        raise AssertionError("no turn expected")

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Carriage:
    """Both axes' carriages over the lgpio stand-in: STEP and DIR in, endstop levels out."""

    def __init__(self, config: Config, lgpio: StandInLgpio, start_mm: float) -> None:
        self.axes = config.gantry.axes
        self.lgpio = lgpio
        self.position = {a.name: round(start_mm * a.steps_per_mm) for a in self.axes}
        self.lowest = dict(self.position)
        self.dir_level = {a.name: 0 for a in self.axes}
        self.enable_pin = config.gantry.enable_pin
        self.enabled_level = int(config.gantry.enable_active_high)
        self.unpowered_steps = 0
        lgpio.on_level = self.on_level

    def settle(self) -> None:
        for axis in self.axes:
            self.lgpio.levels[axis.endstop_pin] = int(
                axis.endstop.level(self.position[axis.name] <= 0)
            )

    def on_level(self, line: int, level: int, t: float) -> None:
        for axis in self.axes:
            name = axis.name
            if line == axis.dir_pin:
                self.dir_level[name] = level
            elif line == axis.step_pin and level:
                if self.lgpio.levels.get(self.enable_pin) != self.enabled_level:
                    self.unpowered_steps += 1
                    return
                self.position[name] += 1 if bool(self.dir_level[name]) != axis.invert_dir else -1
                self.lowest[name] = min(self.lowest[name], self.position[name])
                self.settle()


@pytest.fixture
def wave_mover(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config: Config, board: Board
) -> Iterator[tuple[CloudMover, _Carriage, StandInLgpio]]:
    """A mover on the real backend, this machine a Pi 4 with the lgpio stand-in as lgpio."""
    module = StandInLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", module)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: PI4B_REVISION)
    monkeypatch.setenv("LG_WD", str(tmp_path))
    backend = RealBackend(config)
    try:
        mover = CloudMover(config, backend, board, rotation=_NoTurn())  # type: ignore[arg-type]
        carriage = _Carriage(config, module, start_mm=4.0)
        carriage.settle()
        try:
            yield mover, carriage, module
        finally:
            mover.close()
    finally:
        backend.close()
        sys.modules.pop("gpiozero.pins.lgpio", None)


def test_the_real_backend_homes_with_the_wave_executor(
    wave_mover: tuple[CloudMover, _Carriage, StandInLgpio],
    config: Config,
) -> None:
    mover, carriage, _ = wave_mover
    assert isinstance(mover.stream, LgpioWaveExecutor)
    mover.add_interlock(lambda: False)
    mover.home()
    assert mover.homed and mover.position_steps == (0, 0)
    for axis in config.gantry.axes:
        # each search was cancelled when the endstop read pressed: the carriage went past
        # the trigger by less than the queue's bound (120 ms at the homing speed)
        bound = (0.1 + 0.02) * axis.home_speed_mm_s * axis.steps_per_mm
        assert -bound < carriage.lowest[axis.name] <= 0
        assert carriage.position[axis.name] <= 0  # on the switch, found slowly the second time
    assert carriage.unpowered_steps == 0


def test_the_e_stop_held_during_a_wave_move_stops_it(
    wave_mover: tuple[CloudMover, _Carriage, StandInLgpio],
    config: Config,
    board: Board,
) -> None:
    from bermuda_hw.errors import EmergencyStopError

    mover, carriage, lgpio = wave_mover
    held = [False]
    mover.add_interlock(lambda: held[0])
    mover.home()
    errors: list[BaseException] = []

    def move() -> None:
        try:
            mover.goto_dot(8, 8)  # the whole diagonal: seconds
        except BaseException as exc:
            errors.append(exc)

    runner = threading.Thread(target=move)
    runner.start()
    time.sleep(0.4)
    held[0] = True
    pressed = time.monotonic()
    runner.join(5.0)
    assert errors and isinstance(errors[0], EmergencyStopError)
    assert not mover.enable.is_enabled and not mover.homed
    step_lines = {a.step_pin for a in config.gantry.axes}
    last = max(t for t, g, level in lgpio.played if g in step_lines and level)
    assert last < pressed + 0.05  # the queue was cancelled, not played to its end
    position = dict(carriage.position)
    time.sleep(0.15)
    lgpio.tx_busy(0, config.gantry.x.step_pin, lgpio.TX_WAVE)  # let the tx thread play on
    assert carriage.position == position


def test_the_e_stop_before_the_tx_thread_takes_up_the_plan_cancels_it(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    axes, enable, lgpio = rig
    estop = threading.Event()
    executor = _executor(rig, estop)
    try:
        plan = _plan(config, (0, 0), (2000, 0))
        enable.enable()
        lgpio._tx_wake_s = time.monotonic() + 0.5  # the tx thread's next wake, far off
        room = lgpio.tx_room

        def pressed_meanwhile(handle: int, gpio: int, kind: int) -> int:
            estop.set()  # the e-stop, while the executor waits for the plan's start
            return room(handle, gpio, kind)

        monkeypatch.setattr(lgpio, "tx_room", pressed_meanwhile)
        result = executor.execute(plan)
        assert result.reason == "estop" and result.steps_done == 0
        assert not enable.is_enabled
        time.sleep(0.6)  # past the wake the wave would have started at
        assert lgpio.tx_busy(0, axes[0].config.step_pin, lgpio.TX_WAVE) == 0
        assert not any(g == axes[0].config.step_pin for _, g, _ in lgpio.played)
    finally:
        executor.close()


def test_a_plan_queued_after_its_marker_ended_is_marked_again(
    rig: tuple[list[StepperAxis], MotorEnable, StandInLgpio],
    config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    axes, enable, lgpio = rig
    executor = _executor(rig)
    try:
        plan = _plan(config, (0, 0), (400, 0))
        enable.enable()
        lgpio.reset_counts()
        queue = lgpio.tx_wave
        calls = [0]

        def held_up_after_the_first_marker(handle: int, gpio: int, pulses: list[Any]) -> int:
            calls[0] += 1
            if calls[0] == 1:
                # the tx thread's 20 ms round brings its next wake in 0.1 ms
                lgpio._tx_wake_s = time.monotonic() - 0.02 + 1e-4
            room = queue(handle, gpio, pulses)
            if calls[0] == 1:
                time.sleep(2 * MARKER_US * 1e-6)  # Python held up: the marker ends alone
            return room

        monkeypatch.setattr(lgpio, "tx_wave", held_up_after_the_first_marker)
        result = executor.execute(plan)
        assert result.reason == "done" and result.steps_done == plan.step_count
        marker = [(0, 0, MARKER_US)]
        assert lgpio.waves[0][1] == marker and lgpio.waves[2][1] == marker  # marked again
        line = axes[0].config.step_pin
        rises = sum(1 for _, g, level in lgpio.played if g == line and level)
        assert rises == plan.step_count  # the first, unmarked plan never began
    finally:
        executor.close()
