"""The step executor seam, and the step-pulse thread that plays planned step times on GPIO.

`StepExecutor` is what the mover hands a plan to. `StepStream` is the host
executor: a thread raising each STEP pin through gpiozero at its planned time.
`motion.wave.LgpioWaveExecutor` (lgpio's `tx_wave`, the default on a Pi with
python3-lgpio) implements the same Protocol, as a microcontroller fed the plan over
a serial line could; planning does not change.
"""

from __future__ import annotations

import gc
import logging
import os
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from bermuda_hw.clock import Clock
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.errors import HardwareError
from bermuda_hw.planning.steps import StepPlan

StopReason = Literal["done", "condition", "estop", "late"]

log = logging.getLogger("bermuda_hw.motion")

# the first step is due this long after the job reaches the thread
LEAD_S = 0.002
# A step this late, as a fraction of the axis's full-step period at that point of
# the plan, aborts the move: firing the backlog as a burst would lose steps.
LATE_FRACTION = 0.5
# While a move runs, other Python threads get the interpreter for at most this
# long before the step thread may have it back (the default is 5 ms).
MOVE_SWITCH_INTERVAL_S = 0.0005


@dataclass
class StepResult:
    """What a step job did: steps made per axis, why it ended, and the real edge times."""

    reason: StopReason
    steps_done: int
    moved: list[int]  # signed steps per axis
    start_s: float  # clock time that plan time 0 corresponds to
    edge_times_s: list[float] = field(default_factory=list)  # rising edges, clock time
    edge_axes: list[int] = field(default_factory=list)
    edge_dirs: list[int] = field(default_factory=list)
    error: BaseException | None = None
    late_s: float = 0.0  # how late the step that aborted the move was ("late")
    late_step: int = -1  # its index in the plan

    @property
    def end_s(self) -> float:
        return self.edge_times_s[-1] if self.edge_times_s else self.start_s


class StepExecutor(Protocol):
    """Plays a step plan on the drivers; what the mover needs of any step executor.

    `execute` blocks until the plan is done, `stop_when()` turned true after a
    step (homing), the shared emergency-stop event was set ("estop"), or a step
    could not be made in time ("late"); it reports the steps made per axis.
    """

    @property
    def realtime(self) -> bool:
        """True if the executor runs under real-time scheduling (or in hardware)."""
        ...

    def execute(
        self, plan: StepPlan, stop_when: Callable[[], bool] | None = None
    ) -> StepResult: ...

    def close(self) -> None: ...


class Pausable(Protocol):
    """Something that competes with the step thread and can stand still during a move."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...


@dataclass
class _Job:
    plan: StepPlan
    stop_when: Callable[[], bool] | None
    done: threading.Event = field(default_factory=threading.Event)
    result: StepResult | None = None


class StepStream:
    """A dedicated thread that raises each STEP pin at its planned time.

    The caller's thread only queues a plan and waits. Between steps the thread
    checks the emergency-stop event, and (for homing) a stop condition such as
    an endstop; a set event ends the stream before its next step, disables the
    drivers and reports `estop`. A step more than half a full step's period late
    (the thread was kept from running) ends the stream as `late` instead of
    firing the missed steps as a burst. Steps of both axes due within one pulse
    share it: both lines go high, then both low, one write per line and edge
    (gpiozero's pins allow no fewer). While a plan runs, the interpreter's
    switch interval is lowered so that other threads hand the step thread the
    interpreter back sooner.
    """

    def __init__(
        self,
        axes: Sequence[StepperAxis],
        enable: MotorEnable,
        clock: Clock,
        *,
        min_pulse_s: float,
        estop: threading.Event,
        realtime_priority: int = 0,
    ) -> None:
        self.axes = list(axes)
        self.realtime_priority = realtime_priority
        self.realtime = False  # True once the thread runs under SCHED_FIFO
        self.realtime_note = "ordinary scheduling"
        self._started = threading.Event()
        self.enable = enable
        self.clock = clock
        self.min_pulse_s = min_pulse_s
        self.estop = estop
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="bermuda-steps", daemon=True)
        self._thread.start()
        self._started.wait(5.0)
        self._closed = False

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def execute(self, plan: StepPlan, stop_when: Callable[[], bool] | None = None) -> StepResult:
        """Play a plan and wait for it to end; raises HardwareError if the thread failed."""
        if self._closed:
            raise HardwareError("the step stream is closed")
        job = _Job(plan, stop_when)
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, MOVE_SWITCH_INTERVAL_S))
        self._jobs.put(job)
        try:
            while not job.done.wait(0.5):  # rare wake-ups: the step thread needs the GIL
                if not self._thread.is_alive():
                    raise HardwareError("the step thread died")
        except BaseException:
            # interrupted (Ctrl-C) while waiting: stop the stream, and return only
            # once it has stopped, so no step of this plan can follow
            self.estop.set()
            self.enable.disable()
            job.done.wait(5.0)
            raise
        finally:
            sys.setswitchinterval(interval)
        assert job.result is not None
        if job.result.error is not None:
            raise HardwareError(f"step thread failed: {job.result.error}") from job.result.error
        return job.result

    def _make_realtime(self) -> None:
        """Ask Linux to run this thread before ordinary ones (CAP_SYS_NICE); log the outcome."""
        priority = self.realtime_priority
        if priority <= 0:
            return
        if not hasattr(os, "sched_setscheduler"):
            self.realtime_note = "SCHED_FIFO not available on this system: ordinary scheduling"
            log.warning("step thread: %s", self.realtime_note)
            return
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
        except OSError as exc:
            self.realtime_note = (
                f"SCHED_FIFO priority {priority} not granted ({exc.strerror or exc}; the service "
                "needs CAP_SYS_NICE or LimitRTPRIO): ordinary scheduling"
            )
            log.warning("step thread: %s", self.realtime_note)
            return
        self.realtime = True
        self.realtime_note = f"SCHED_FIFO priority {priority} granted"
        log.info("step thread: %s", self.realtime_note)

    def _run(self) -> None:
        try:
            self._make_realtime()
        finally:
            self._started.set()
        while True:
            job = self._jobs.get()
            if job is None:
                return
            # A garbage collection pass can hold the interpreter for tens of
            # milliseconds: none runs while steps are due.
            collecting = gc.isenabled()
            gc.disable()
            try:
                job.result = self._play(job)
            except BaseException as exc:  # report every failure to the waiting caller
                self.enable.disable()
                job.result = StepResult("estop", 0, [0] * len(self.axes), 0.0, error=exc)
            finally:
                if collecting:
                    gc.enable()
                job.done.set()

    def _late_limits(self, plan: StepPlan) -> list[float]:
        """Per step: how late it may be, half its axis's full-step period at that point."""
        times = plan.times_s.tolist()
        axes_idx = plan.axes.tolist()
        microsteps = [axis.config.microsteps for axis in self.axes]
        last = [0.0] * len(self.axes)
        limits = []
        for t, axis in zip(times, axes_idx, strict=True):
            limits.append(LATE_FRACTION * microsteps[axis] * max(t - last[axis], 1e-6))
            last[axis] = t
        return limits

    def _play(self, job: _Job) -> StepResult:
        plan = job.plan
        times = plan.times_s.tolist()
        axes_idx = plan.axes.tolist()
        dirs = plan.directions.tolist()
        late_limits = self._late_limits(plan)
        clock = self.clock
        estop = self.estop
        stop_when = job.stop_when
        pulse_s = self.min_pulse_s
        writers = [axis.write_step for axis in self.axes]
        axes = self.axes
        moved = [0] * len(axes)
        result = StepResult("done", 0, moved, clock.monotonic() + LEAD_S)
        edges = result.edge_times_s
        start = result.start_s
        count = len(times)
        i = 0
        while i < count:
            due = start + times[i]
            # the steps due within this pulse, one per axis, share it
            group = [i]
            j = i + 1
            while (
                j < count
                and times[j] - times[i] < pulse_s
                and axes_idx[j] not in [axes_idx[k] for k in group]
            ):
                group.append(j)
                j += 1
            for k in group:
                axis = axes_idx[k]
                if axes[axis].direction != dirs[k]:
                    axes[axis].set_direction(dirs[k])
            if not clock.wait_until(due, estop):
                result.reason = "estop"
                self.enable.disable()
                break
            rise = clock.monotonic()
            if rise - due > late_limits[i]:
                result.reason = "late"
                result.late_s = rise - due
                result.late_step = i
                break
            for k in group:
                writers[axes_idx[k]](True)
            clock.wait_until(rise + pulse_s)
            for k in group:
                writers[axes_idx[k]](False)
            for k in group:
                axis = axes_idx[k]
                edges.append(rise)
                result.edge_axes.append(axis)
                result.edge_dirs.append(dirs[k])
                moved[axis] += dirs[k]
                result.steps_done += 1
            i = j
            if stop_when is not None and stop_when():
                result.reason = "condition"
                break
        if estop.is_set():
            self.enable.disable()
            if result.reason == "done" and result.steps_done < count:
                result.reason = "estop"
        return result

    def close(self) -> None:
        """Stop the thread after any job in progress; closing twice is fine."""
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5.0)
