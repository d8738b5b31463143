"""The wave step executor: a step plan as lgpio wave pulses, timed by lgpio's own C thread.

lgpio's `tx_wave` queues a list of pulses (levels to set on a group of lines,
then a delay in microseconds) on a group leader; lgpio's tx thread, in C,
writes each pulse at its time and plays the queued waves (at most ten per
group) back to back. Python is out of the step loop: it only keeps the queue
fed from the plan, a chunk at a time, and between chunks reads the e-stop
and the stop condition.

How far ahead: at most `lead_s` of plan time (plus the chunk being queued)
is in lgpio's queue. A stop condition (an endstop while homing, the e-stop
held) is read every `poll_s`; when it turns true the queue is cancelled at
once (`group_free`), so the motors go on for at most `poll_s` plus the time
Python takes to be scheduled, and never more than `lead_s + chunk_s` of plan
time if Python is kept from running altogether (the queue then runs dry).
A queue that runs dry before the plan is queued ends the move as "late":
the rest of the plan would start from a new wave, off its planned times.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bermuda_hw.clock import Clock
from bermuda_hw.devices.stepper import LgpioLine, MotorEnable, StepperAxis, lgpio_line
from bermuda_hw.errors import HardwareError, MotionError
from bermuda_hw.motion.stepstream import (
    MOVE_SWITCH_INTERVAL_S,
    StepExecutor,
    StepResult,
    StepStream,
)
from bermuda_hw.planning.steps import StepPlan

log = logging.getLogger("bermuda_hw.motion")

LEAD_S = 0.1  # plan time queued ahead of lgpio's tx thread, at most (besides one chunk)
CHUNK_S = 0.02  # plan time per tx_wave call
POLL_S = 0.002  # the e-stop, the stop condition and the queue are read this often
START_POLL_S = 0.0002  # while waiting for the tx thread to take up the wave
MARKER_US = 5000  # the wave before the plan's: its end is plan time 0
START_ATTEMPTS = 3  # marks of a plan's start before the move is given up as late
START_TIMEOUT_S = 0.2  # lgpio's tx thread wakes at least every 20 ms
# what an lgpio module needs for this executor (lgpio 0.2 has them all)
WAVE_FUNCTIONS = (
    "tx_wave",
    "tx_busy",
    "tx_room",
    "group_claim_output",
    "group_free",
    "gpio_free",
    "gpio_claim_output",
    "pulse",
    "TX_WAVE",
)


@dataclass(frozen=True)
class WavePulses:
    """A plan's STEP edges as lgpio pulses: pulse k sets `bits[k]` where `masks[k]` has a 1
    (bit a: axis a's STEP line) at `times_us[k]` from plan time 0."""

    times_us: npt.NDArray[np.int64]
    bits: npt.NDArray[np.int64]
    masks: npt.NDArray[np.int64]

    @property
    def delays_us(self) -> npt.NDArray[np.int64]:
        """Each pulse's delay before the next (lgpio's `pulse_delay`); 0 after the last."""
        delays: npt.NDArray[np.int64] = np.append(np.diff(self.times_us), 0).astype(np.int64)
        return delays

    def chunks(self, chunk_us: int) -> list[tuple[int, int]]:
        """Pulse index ranges [start, end) of about `chunk_us` of plan time each."""
        if self.times_us.size == 0:
            return []
        bounds = np.arange(0, int(self.times_us[-1]) + chunk_us, chunk_us, dtype=np.int64)
        cuts = np.unique(np.searchsorted(self.times_us, bounds[1:]))
        starts = [0, *(int(c) for c in cuts if 0 < c < self.times_us.size)]
        ends = [*starts[1:], int(self.times_us.size)]
        return list(zip(starts, ends, strict=True))


def wave_pulses(plan: StepPlan, pulse_us: int) -> WavePulses:
    """The pulses that raise each STEP line at its planned time (rounded to the microsecond)
    and lower it `pulse_us` later; edges due in the same microsecond share a pulse.

    Starts with a pulse at plan time 0 that changes nothing. Raises MotionError
    if an axis steps again before its last pulse could end.
    """
    rises = np.rint(plan.times_s * 1e6).astype(np.int64)
    bit = np.left_shift(np.int64(1), plan.axes.astype(np.int64))
    for axis in np.unique(plan.axes):
        gaps = np.diff(rises[plan.axes == axis])
        if gaps.size and int(gaps.min()) <= pulse_us:
            raise MotionError(
                f"axis {int(axis)}: steps {int(gaps.min())} us apart, not longer than the "
                f"{pulse_us} us STEP pulse"
            )
    times = np.concatenate([[0], rises, rises + pulse_us]).astype(np.int64)
    bits = np.concatenate([[0], bit, np.zeros_like(bit)]).astype(np.int64)
    masks = np.concatenate([[0], bit, bit]).astype(np.int64)
    order = np.argsort(times, kind="stable")
    times, bits, masks = times[order], bits[order], masks[order]
    unique_times, first = np.unique(times, return_index=True)
    return WavePulses(
        unique_times.astype(np.int64),
        np.bitwise_or.reduceat(bits, first).astype(np.int64),
        np.bitwise_or.reduceat(masks, first).astype(np.int64),
    )


def wave_lines(axes: Sequence[StepperAxis]) -> list[LgpioLine] | None:
    """The axes' STEP lines, if all are lines of one lgpio chip whose module has lgpio's
    wave functions; else None."""
    lines = [lgpio_line(axis.step_pin) for axis in axes]
    if not lines or any(line is None for line in lines):
        return None
    found = [line for line in lines if line is not None]
    first = found[0]
    if any(line.lgpio is not first.lgpio or line.handle != first.handle for line in found):
        return None
    if not all(hasattr(first.lgpio, name) for name in WAVE_FUNCTIONS):
        return None
    return found


class LgpioWaveExecutor:
    """Plays step plans with lgpio's wave queue: edges timed in C, fed ahead from Python.

    The axes' STEP lines are claimed as one lgpio group (bit a: axis a) for as
    long as the executor is open; gpiozero's STEP pins get their lines back
    (outputs, low) when it closes. DIR is set through gpiozero before each
    plan; a plan must keep one direction per axis (straight moves do).

    Edge times in `StepResult` are the times lgpio was asked for, from the
    moment its tx thread took up the plan (found by watching the queue, to
    within about `START_POLL_S`); `selftest --timing` measures the real ones
    on the Pi. After a cancelled plan (a stop condition or the e-stop) the
    steps counted as made are those due by the moment of cancelling.
    """

    realtime = True  # the edges are timed outside Python

    def __init__(
        self,
        axes: Sequence[StepperAxis],
        enable: MotorEnable,
        clock: Clock,
        *,
        min_pulse_s: float,
        estop: threading.Event,
        lines: Sequence[LgpioLine],
        lead_s: float = LEAD_S,
        chunk_s: float = CHUNK_S,
        poll_s: float = POLL_S,
    ) -> None:
        self.axes = list(axes)
        self.enable = enable
        self.clock = clock
        self.estop = estop
        self.lead_s = lead_s
        self.chunk_s = chunk_s
        self.poll_s = poll_s
        self.pulse_us = max(1, math.ceil(min_pulse_s * 1e6 - 1e-9))
        self.lg = lines[0].lgpio
        self.handle = lines[0].handle
        self.lines = [line.line for line in lines]
        self.realtime_note = (
            f"edges timed by lgpio's tx thread (tx_wave), queued up to "
            f"{(lead_s + chunk_s) * 1e3:.0f} ms ahead"
        )
        self._closed = False
        # how far the last plan's start (plan time 0 on the clock) may be off, at most
        self.start_error_s = 0.0
        for line in self.lines:  # from gpiozero's one-line requests into one group
            self.lg.gpio_free(self.handle, line)
        try:
            self.lg.group_claim_output(self.handle, self.lines, [0] * len(self.lines))
        except self.lg.error as exc:
            self._give_back()
            raise HardwareError(
                f"lgpio: cannot claim the STEP lines {self.lines} as a group for tx_wave: {exc}"
            ) from exc

    # --- the lines ----------------------------------------------------------------------

    def _cancel(self) -> None:
        """Stop the wave now, queued waves and all, and leave every STEP line low."""
        lg = self.lg
        lg.group_free(self.handle, self.lines[0])
        lg.group_claim_output(self.handle, self.lines, [0] * len(self.lines))

    def _give_back(self) -> None:
        for line in self.lines:
            with contextlib.suppress(self.lg.error):
                self.lg.gpio_claim_output(self.handle, line, 0)

    def close(self) -> None:
        """Stop any wave and hand the STEP lines back to gpiozero; closing twice is fine."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(self.lg.error):
            self.lg.group_free(self.handle, self.lines[0])
        self._give_back()

    # --- playing a plan -----------------------------------------------------------------

    def execute(self, plan: StepPlan, stop_when: Callable[[], bool] | None = None) -> StepResult:
        """Play a plan and wait for it to end (done, condition, estop or late)."""
        if self._closed:
            raise HardwareError("the wave step executor is closed")
        pulses = wave_pulses(plan, self.pulse_us)
        directions: list[int] = []
        for index in range(len(self.axes)):
            dirs = plan.directions[plan.axes == index]
            if dirs.size and bool((dirs != dirs[0]).any()):
                raise MotionError(
                    f"axis {self.axes[index].name}: a plan for the wave executor "
                    "keeps one direction per axis"
                )
            directions.append(int(dirs[0]) if dirs.size else 0)
        result = StepResult("done", 0, [0] * len(self.axes), self.clock.monotonic())
        if plan.step_count == 0:
            return result
        for axis, direction in zip(self.axes, directions, strict=True):
            if direction and axis.direction != direction:
                axis.set_direction(direction)
        # a garbage collection pass can hold the interpreter for tens of milliseconds,
        # longer than the queue lasts: none runs while the queue is fed
        collecting = gc.isenabled()
        gc.disable()
        # other threads hand the interpreter back sooner: the stop condition is read
        # within about POLL_S + MOVE_SWITCH_INTERVAL_S of turning true
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, MOVE_SWITCH_INTERVAL_S))
        try:
            return self._play(plan, pulses, stop_when, result)
        except BaseException:
            with contextlib.suppress(Exception):
                self._cancel()
            self.enable.disable()
            raise
        finally:
            sys.setswitchinterval(interval)
            if collecting:
                gc.enable()

    def _pulse_list(
        self, pulses: WavePulses, delays: npt.NDArray[np.int64], span: tuple[int, int]
    ) -> list[Any]:
        make = self.lg.pulse
        start, end = span
        return [
            make(int(b), int(m), int(d))
            for b, m, d in zip(
                pulses.bits[start:end].tolist(),
                pulses.masks[start:end].tolist(),
                delays[start:end].tolist(),
                strict=True,
            )
        ]

    def _queue(
        self, pulses: WavePulses, delays: npt.NDArray[np.int64], span: tuple[int, int]
    ) -> int:
        wave = self._pulse_list(pulses, delays, span)
        return int(self.lg.tx_wave(self.handle, self.lines[0], wave))

    def _play(
        self,
        plan: StepPlan,
        pulses: WavePulses,
        stop_when: Callable[[], bool] | None,
        result: StepResult,
    ) -> StepResult:
        lg, handle, leader, clock, estop = (
            self.lg,
            self.handle,
            self.lines[0],
            self.clock,
            self.estop,
        )
        delays = pulses.delays_us
        chunks = pulses.chunks(max(1, round(self.chunk_s * 1e6)))
        lead_us = self.lead_s * 1e6
        total = len(chunks)

        def covered_us(queued: int) -> float:
            """Plan time up to which the queued chunks play."""
            end = chunks[queued - 1][1]
            return float(pulses.times_us[end]) if end < pulses.times_us.size else math.inf

        if estop.is_set():
            self.enable.disable()
            result.reason = "estop"
            return result
        # A wave of one pulse that changes nothing, MARKER_US long, marks plan time 0:
        # when the tx thread moves on from it to the plan, the queue's free room grows.
        # Every tx_wave and tx_room answer tells how many waves the thread has finished:
        # the calls made, less the waves still queued (the room of a new record is
        # `fresh`, so TX_BUF is fresh + 1).
        first = self._pulse_list(pulses, delays, chunks[0])  # built before the marker
        marker = [lg.pulse(0, 0, MARKER_US)]
        calls = 0
        zero_t = clock.monotonic()  # the latest moment the marker was seen unfinished
        started: list[float] = []

        def seen(room_now: int) -> None:
            nonlocal zero_t
            now = clock.monotonic()
            if started:
                return
            if calls - (fresh + 1 - room_now) >= 1:
                started.append((zero_t + now) / 2.0)
                self.start_error_s = (now - zero_t) / 2.0
            else:
                zero_t = now

        for _ in range(START_ATTEMPTS):
            fresh = int(lg.tx_wave(handle, leader, marker))  # a new record's room
            zero_t = clock.monotonic()
            room = int(lg.tx_wave(handle, leader, first))
            calls = 2
            if room < fresh:
                break
            # the marker ended before the plan came (Python held up for MARKER_US): the
            # plan is a wave of its own with no mark of its start, not yet begun (the tx
            # thread's next wake is about 20 ms off): cancel it and mark again
            self._cancel()
        else:
            self.enable.disable()
            self._late(result, plan, 0, 0.0)
            return result
        queued = 1
        seen(room)
        while queued < total and room > 0 and covered_us(queued) < lead_us:
            room = self._queue(pulses, delays, chunks[queued])
            calls += 1
            queued += 1
            if room >= fresh:  # the plan's wave ran dry already
                self._cancel()
                made = self._made(plan, covered_us(queued - 1), queued=True)
                self._late(result, plan, made, 0.0)
                return self._fill(result, plan, made, started[0] if started else zero_t)
            seen(room)
        queued_at = clock.monotonic()
        while not started:
            if not lg.tx_busy(handle, leader, lg.TX_WAVE):
                break  # the queue ran dry before it was seen to start
            seen(int(lg.tx_room(handle, leader, lg.TX_WAVE)))
            if started:
                break
            if estop.is_set():  # before the plan's start: not a step made
                self._cancel()
                self.enable.disable()
                result.reason = "estop"
                return result
            if clock.monotonic() - queued_at > START_TIMEOUT_S:
                self._cancel()
                self.enable.disable()
                raise HardwareError(
                    f"lgpio's tx thread did not take up the wave within "
                    f"{START_TIMEOUT_S * 1e3:.0f} ms"
                )
            clock.sleep(START_POLL_S)
        start = started[0] if started else zero_t
        result.start_s = start
        made = plan.step_count
        while True:
            if not clock.wait_until(clock.monotonic() + self.poll_s, estop):
                made = self._stop(plan, start)
                self.enable.disable()
                result.reason = "estop"
                break
            now_us = (clock.monotonic() - start) * 1e6
            if not lg.tx_busy(handle, leader, lg.TX_WAVE):
                if queued < total:  # ran dry: the rest would start off its times
                    made = self._made(plan, covered_us(queued), queued=True)
                    self._late(result, plan, made, now_us)
                break
            while queued < total and covered_us(queued) - now_us < lead_us:
                room = self._queue(pulses, delays, chunks[queued])
                queued += 1
                if room >= fresh:
                    # a new wave record: the last one ended before this chunk came
                    self._cancel()
                    made = self._made(plan, covered_us(queued - 1), queued=True)
                    self._late(result, plan, made, now_us)
                    return self._fill(result, plan, made, start)
                if room <= 0:
                    break
            if stop_when is not None and stop_when():
                made = self._stop(plan, start)
                result.reason = "condition"
                break
        if estop.is_set():
            self.enable.disable()
            if result.reason == "done" and made < plan.step_count:
                result.reason = "estop"
        return self._fill(result, plan, made, start)

    def _stop(self, plan: StepPlan, start: float) -> int:
        """Cancel the queue; the steps due by now are counted as made."""
        self._cancel()
        return self._made(plan, (self.clock.monotonic() - start) * 1e6)

    @staticmethod
    def _made(plan: StepPlan, until_us: float, *, queued: bool = False) -> int:
        """Steps due by `until_us` (plan time); `queued`: before it, the first pulse of
        the chunk that was not queued."""
        side: Any = "left" if queued else "right"
        return int(np.searchsorted(np.rint(plan.times_s * 1e6), until_us, side=side))

    @staticmethod
    def _late(result: StepResult, plan: StepPlan, made: int, now_us: float) -> None:
        result.reason = "late"
        result.late_step = made
        due_us = float(plan.times_s[min(made, plan.step_count - 1)]) * 1e6
        result.late_s = max(0.0, (now_us - due_us) * 1e-6)

    def _fill(self, result: StepResult, plan: StepPlan, made: int, start: float) -> StepResult:
        axes = plan.axes[:made].astype(np.int64)
        dirs = plan.directions[:made].astype(np.int64)
        result.steps_done = made
        result.edge_times_s = (start + plan.times_s[:made]).tolist()
        result.edge_axes = axes.tolist()
        result.edge_dirs = dirs.tolist()
        result.moved = [int(dirs[axes == index].sum()) for index in range(len(self.axes))]
        return result


def lgpio_wave_executor(
    axes: Sequence[StepperAxis],
    enable: MotorEnable,
    clock: Clock,
    min_pulse_s: float,
    estop: threading.Event,
    priority: int,
) -> StepExecutor:
    """The wave executor over the axes' STEP lines (an `ExecutorFactory`); HardwareError if
    they are not lines of gpiozero's lgpio factory with lgpio's wave functions."""
    lines = wave_lines(axes)
    if lines is None:
        raise HardwareError(
            "the STEP pins are not lines of gpiozero's lgpio factory with "
            "lgpio's wave functions (tx_wave)"
        )
    return LgpioWaveExecutor(axes, enable, clock, min_pulse_s=min_pulse_s, estop=estop, lines=lines)


def wave_or_stream(
    axes: Sequence[StepperAxis],
    enable: MotorEnable,
    clock: Clock,
    min_pulse_s: float,
    estop: threading.Event,
    priority: int,
) -> StepExecutor:
    """The default `ExecutorFactory`: lgpio's wave queue where the STEP pins are lgpio lines
    with wave functions (the real backend), else the Python step thread (`StepStream`)."""
    if wave_lines(axes) is not None:
        return lgpio_wave_executor(axes, enable, clock, min_pulse_s, estop, priority)
    log.info("step executor: the Python step thread (the STEP pins have no lgpio wave queue)")
    return StepStream(
        axes, enable, clock, min_pulse_s=min_pulse_s, estop=estop, realtime_priority=priority
    )
