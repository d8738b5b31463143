"""The step-pulse thread: plays planned step times on the STEP pins, stoppable from any thread."""

from __future__ import annotations

import gc
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bermuda_hw.clock import Clock
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.errors import HardwareError
from bermuda_hw.planning.steps import StepPlan

StopReason = Literal["done", "condition", "estop"]

# the first step is due this long after the job reaches the thread
LEAD_S = 0.002


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

    @property
    def end_s(self) -> float:
        return self.edge_times_s[-1] if self.edge_times_s else self.start_s


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
    drivers and reports `estop`.
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
        self.enable = enable
        self.clock = clock
        self.min_pulse_s = min_pulse_s
        self.estop = estop
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="bermuda-steps", daemon=True)
        self._thread.start()
        self._closed = False

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def execute(self, plan: StepPlan, stop_when: Callable[[], bool] | None = None) -> StepResult:
        """Play a plan and wait for it to end; raises HardwareError if the thread failed."""
        if self._closed:
            raise HardwareError("the step stream is closed")
        job = _Job(plan, stop_when)
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
        assert job.result is not None
        if job.result.error is not None:
            raise HardwareError(f"step thread failed: {job.result.error}") from job.result.error
        return job.result

    def _make_realtime(self) -> None:
        """Ask Linux to run this thread before ordinary ones (needs CAP_SYS_NICE)."""
        if self.realtime_priority <= 0 or not hasattr(os, "sched_setscheduler"):
            return
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(self.realtime_priority))
        except OSError:
            return  # not permitted: ordinary scheduling
        self.realtime = True

    def _run(self) -> None:
        self._make_realtime()
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

    def _play(self, job: _Job) -> StepResult:
        plan = job.plan
        times = plan.times_s.tolist()
        axes_idx = plan.axes.tolist()
        dirs = plan.directions.tolist()
        clock = self.clock
        estop = self.estop
        stop_when = job.stop_when
        pulse_s = self.min_pulse_s
        pins = [axis.step_pin for axis in self.axes]
        axes = self.axes
        moved = [0] * len(axes)
        result = StepResult("done", 0, moved, clock.monotonic() + LEAD_S)
        edges = result.edge_times_s
        start = result.start_s
        count = len(times)
        for i in range(count):
            axis = axes_idx[i]
            direction = dirs[i]
            if axes[axis].direction != direction:
                axes[axis].set_direction(direction)
            if not clock.wait_until(start + times[i], estop):
                result.reason = "estop"
                self.enable.disable()
                break
            pin = pins[axis]
            pin.state = True
            rise = clock.monotonic()
            clock.wait_until(rise + pulse_s)
            pin.state = False
            edges.append(rise)
            result.edge_axes.append(axis)
            result.edge_dirs.append(direction)
            moved[axis] += direction
            result.steps_done += 1
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
