"""Time-optimal rest-to-rest motion profiles under speed and acceleration limits."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bermuda_hw.errors import MotionError

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TrapezoidProfile:
    """Accelerate at `accel`, cruise at `peak_speed`, decelerate at `accel`, from rest to rest.

    For a given distance this is the fastest motion that keeps |v| <= max speed
    and |a| <= accel: a triangle when the distance is too short to reach the
    maximum speed. Units are the caller's (mm, or steps), consistently.

    >>> p = TrapezoidProfile.plan(100.0, 50.0, 100.0)
    >>> round(p.duration_s, 6), round(p.time_at(100.0), 6)
    (2.5, 2.5)
    """

    distance: float
    peak_speed: float
    accel: float
    accel_time_s: float
    cruise_time_s: float

    @classmethod
    def plan(cls, distance: float, max_speed: float, accel: float) -> TrapezoidProfile:
        if distance < 0 or not math.isfinite(distance):
            raise MotionError(f"distance must be finite and >= 0, not {distance}")
        if max_speed <= 0 or accel <= 0:
            raise MotionError("maximum speed and acceleration must be greater than 0")
        if distance == 0:
            return cls(0.0, 0.0, accel, 0.0, 0.0)
        accel_time = max_speed / accel
        accel_distance = 0.5 * accel * accel_time**2
        if 2 * accel_distance >= distance:  # triangle: never reaches max speed
            accel_time = math.sqrt(distance / accel)
            return cls(distance, accel * accel_time, accel, accel_time, 0.0)
        cruise = (distance - 2 * accel_distance) / max_speed
        return cls(distance, max_speed, accel, accel_time, cruise)

    @property
    def duration_s(self) -> float:
        return 2 * self.accel_time_s + self.cruise_time_s

    @property
    def accel_distance(self) -> float:
        return 0.5 * self.accel * self.accel_time_s**2

    def position(self, t_s: float) -> float:
        """Distance covered at time t (clamped to the move)."""
        t = min(max(t_s, 0.0), self.duration_s)
        ta, tc = self.accel_time_s, self.cruise_time_s
        if t <= ta:
            return 0.5 * self.accel * t * t
        if t <= ta + tc:
            return self.accel_distance + self.peak_speed * (t - ta)
        r = self.duration_s - t
        return self.distance - 0.5 * self.accel * r * r

    def velocity(self, t_s: float) -> float:
        t = min(max(t_s, 0.0), self.duration_s)
        ta, tc = self.accel_time_s, self.cruise_time_s
        if t <= ta:
            return self.accel * t
        if t <= ta + tc:
            return self.peak_speed
        return self.accel * (self.duration_s - t)

    def time_at(self, distance: float) -> float:
        """The exact time at which the move has covered `distance` (the inverse of position)."""
        return float(self.times_at(np.array([distance], dtype=np.float64))[0])

    def times_at(self, distances: FloatArray) -> FloatArray:
        """`time_at` for many distances at once."""
        s = np.clip(distances, 0.0, self.distance)
        if self.distance == 0:
            return np.zeros_like(s)
        da = self.accel_distance
        ta, tc = self.accel_time_s, self.cruise_time_s
        out = np.empty_like(s)
        first = s <= da
        out[first] = np.sqrt(2.0 * s[first] / self.accel)
        last = s >= self.distance - da
        last &= ~first
        rest = self.distance - s[last]
        out[last] = self.duration_s - np.sqrt(2.0 * np.maximum(rest, 0.0) / self.accel)
        middle = ~(first | last)
        if tc > 0:
            out[middle] = ta + (s[middle] - da) / self.peak_speed
        else:
            out[middle] = ta
        return out
