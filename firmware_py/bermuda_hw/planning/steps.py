"""Step times from the position over time: a straight move of the carriage as a step stream."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.profile import Profile, plan_profile

X_AXIS = 0
Y_AXIS = 1


@dataclass(frozen=True)
class Limits:
    """The carriage's motion limits along its path."""

    max_speed_mm_s: float
    accel_mm_s2: float
    jerk_mm_s3: float = 0.0  # 0: no jerk limit (a trapezoid)


@dataclass(frozen=True)
class StepPlan:
    """Every step of one move, in time order.

    `times_s[i]` is when step i's rising edge is due (seconds from the start of
    the move), `axes[i]` which motor (0 = x, 1 = y) and `directions[i]` which
    way (+1 away from the endstop). Each axis's step n of N falls at the exact
    time the profile has covered n/N of that axis's distance, so the move ends
    on its target step at the profile's end.
    """

    start_steps: tuple[int, int]
    end_steps: tuple[int, int]
    profile: Profile
    times_s: npt.NDArray[np.float64]
    axes: npt.NDArray[np.int8]
    directions: npt.NDArray[np.int8]

    @property
    def duration_s(self) -> float:
        return self.profile.duration_s

    @property
    def step_count(self) -> int:
        return int(self.times_s.size)

    def peak_step_rate_hz(self, axis: int) -> float:
        """The fastest step rate the plan asks of an axis (at the profile's peak speed)."""
        times = self.axis_times(axis)
        if times.size < 2 or self.profile.distance == 0:
            return 0.0
        count = abs(self.end_steps[axis] - self.start_steps[axis])
        return self.profile.peak_speed * count / self.profile.distance

    def axis_times(self, axis: int) -> npt.NDArray[np.float64]:
        times: npt.NDArray[np.float64] = self.times_s[self.axes == axis]
        return times

    def positions(self, axis: int) -> npt.NDArray[np.int64]:
        """The axis's position after each of its steps."""
        mask = self.axes == axis
        start = self.start_steps[axis]
        return start + np.cumsum(self.directions[mask].astype(np.int64))


def plan_line(
    kinematics: GantryKinematics,
    start_steps: tuple[int, int],
    end_steps: tuple[int, int],
    limits: Limits,
) -> StepPlan:
    """The time-optimal straight move between two step positions, from rest to rest."""
    deltas = (end_steps[0] - start_steps[0], end_steps[1] - start_steps[1])
    mm = [d / axis.steps_per_mm for d, axis in zip(deltas, kinematics.axes, strict=True)]
    length_mm = math.hypot(mm[0], mm[1])
    profile = plan_profile(length_mm, limits.max_speed_mm_s, limits.accel_mm_s2, limits.jerk_mm_s3)
    times: list[npt.NDArray[np.float64]] = []
    axes: list[npt.NDArray[np.int8]] = []
    dirs: list[npt.NDArray[np.int8]] = []
    for axis, delta in enumerate(deltas):
        count = abs(delta)
        if count == 0:
            continue
        n = np.arange(1, count + 1, dtype=np.float64)
        distances = length_mm * n / count
        distances[-1] = length_mm  # exactly the end of the profile
        t = profile.times_at(distances)
        times.append(t)
        axes.append(np.full(count, axis, dtype=np.int8))
        dirs.append(np.full(count, 1 if delta > 0 else -1, dtype=np.int8))
    if not times:
        empty_f = np.zeros(0, dtype=np.float64)
        empty_i = np.zeros(0, dtype=np.int8)
        return StepPlan(start_steps, end_steps, profile, empty_f, empty_i, empty_i)
    all_times = np.concatenate(times)
    order = np.argsort(all_times, kind="stable")
    return StepPlan(
        start_steps,
        end_steps,
        profile,
        all_times[order],
        np.concatenate(axes)[order],
        np.concatenate(dirs)[order],
    )


def plan_axis_move(
    kinematics: GantryKinematics,
    axis: int,
    distance_steps: int,
    speed_mm_s: float,
    accel_mm_s2: float,
    start_steps: tuple[int, int] = (0, 0),
    jerk_mm_s3: float = 0.0,
) -> StepPlan:
    """A move of one axis alone (homing and backing off), at most `speed_mm_s`."""
    end = list(start_steps)
    end[axis] += distance_steps
    return plan_line(
        kinematics, start_steps, (end[0], end[1]), Limits(speed_mm_s, accel_mm_s2, jerk_mm_s3)
    )
