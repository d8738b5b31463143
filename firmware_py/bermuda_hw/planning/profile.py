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


@dataclass(frozen=True)
class SCurveProfile:
    """The time-optimal rest-to-rest move with a jerk limit as well (up to seven phases).

    Acceleration ramps at `jerk` up to at most `accel` and back to zero while
    the speed rises to `peak_speed`; then a cruise; then the mirror image.
    Short moves reach neither the maximum acceleration nor the maximum speed.

    >>> p = SCurveProfile.plan(100.0, 50.0, 100.0, 1000.0)
    >>> round(p.duration_s, 6), round(p.position(p.duration_s), 9)
    (2.6, 100.0)
    """

    distance: float
    peak_speed: float
    peak_accel: float
    jerk: float
    jerk_time_s: float  # each jerk phase
    const_accel_time_s: float  # the constant-acceleration phase, per ramp
    cruise_time_s: float

    @staticmethod
    def _ramp(speed: float, accel: float, jerk: float) -> tuple[float, float, float]:
        """Jerk time, constant-acceleration time and distance to reach `speed` from rest."""
        if speed * jerk >= accel * accel:
            tj = accel / jerk
            tc = speed / accel - tj
        else:
            tj = math.sqrt(speed / jerk)
            tc = 0.0
        return tj, tc, speed * (2 * tj + tc) / 2.0

    @classmethod
    def plan(cls, distance: float, max_speed: float, accel: float, jerk: float) -> SCurveProfile:
        if distance < 0 or not math.isfinite(distance):
            raise MotionError(f"distance must be finite and >= 0, not {distance}")
        if max_speed <= 0 or accel <= 0 or jerk <= 0:
            raise MotionError("maximum speed, acceleration and jerk must be greater than 0")
        if distance == 0:
            return cls(0.0, 0.0, 0.0, jerk, 0.0, 0.0, 0.0)
        tj, tc, ramp = cls._ramp(max_speed, accel, jerk)
        if 2 * ramp <= distance:
            speed = max_speed
            cruise = (distance - 2 * ramp) / max_speed
        else:
            cruise = 0.0
            k = accel / jerk
            speed = accel / 2.0 * (-k + math.sqrt(k * k + 4.0 * distance / accel))
            if speed * jerk < accel * accel:  # the maximum acceleration is not reached
                speed = (distance * math.sqrt(jerk) / 2.0) ** (2.0 / 3.0)
            tj, tc, _ = cls._ramp(speed, accel, jerk)
        return cls(distance, speed, jerk * tj, jerk, tj, tc, cruise)

    @property
    def ramp_time_s(self) -> float:
        return 2 * self.jerk_time_s + self.const_accel_time_s

    @property
    def ramp_distance(self) -> float:
        return self.peak_speed * self.ramp_time_s / 2.0

    @property
    def duration_s(self) -> float:
        return 2 * self.ramp_time_s + self.cruise_time_s

    @property
    def accel(self) -> float:
        return self.peak_accel

    def _ramp_position(self, t: FloatArray) -> FloatArray:
        """Distance covered at time t within the first ramp (0 <= t <= ramp time)."""
        j, tj, tc, ap = self.jerk, self.jerk_time_s, self.const_accel_time_s, self.peak_accel
        v1 = j * tj * tj / 2.0
        s1 = j * tj**3 / 6.0
        v2 = v1 + ap * tc
        s2 = s1 + v1 * tc + ap * tc * tc / 2.0
        out = np.empty_like(t)
        first = t <= tj
        out[first] = j * t[first] ** 3 / 6.0
        second = (t > tj) & (t <= tj + tc)
        u = t[second] - tj
        out[second] = s1 + v1 * u + ap * u * u / 2.0
        third = t > tj + tc
        u = t[third] - tj - tc
        out[third] = s2 + v2 * u + ap * u * u / 2.0 - j * u**3 / 6.0
        return out

    def _ramp_velocity(self, t: FloatArray) -> FloatArray:
        j, tj, tc, ap = self.jerk, self.jerk_time_s, self.const_accel_time_s, self.peak_accel
        v1 = j * tj * tj / 2.0
        out = np.empty_like(t)
        first = t <= tj
        out[first] = j * t[first] ** 2 / 2.0
        second = (t > tj) & (t <= tj + tc)
        out[second] = v1 + ap * (t[second] - tj)
        third = t > tj + tc
        u = t[third] - tj - tc
        out[third] = v1 + ap * tc + ap * u - j * u * u / 2.0
        return out

    def positions(self, t_s: FloatArray) -> FloatArray:
        t = np.clip(np.asarray(t_s, dtype=np.float64), 0.0, self.duration_s)
        if self.distance == 0:
            return np.zeros_like(t)
        tr, total = self.ramp_time_s, self.duration_s
        out = np.empty_like(t)
        up = t <= tr
        out[up] = self._ramp_position(t[up])
        down = t >= total - tr
        down &= ~up
        out[down] = self.distance - self._ramp_position(total - t[down])
        middle = ~(up | down)
        out[middle] = self.ramp_distance + self.peak_speed * (t[middle] - tr)
        return out

    def position(self, t_s: float) -> float:
        return float(self.positions(np.array([t_s], dtype=np.float64))[0])

    def velocity(self, t_s: float) -> float:
        t = min(max(t_s, 0.0), self.duration_s)
        tr, total = self.ramp_time_s, self.duration_s
        if t <= tr:
            return float(self._ramp_velocity(np.array([t]))[0])
        if t >= total - tr:
            return float(self._ramp_velocity(np.array([total - t]))[0])
        return self.peak_speed

    def _ramp_times(self, s: FloatArray) -> FloatArray:
        """The inverse of the first ramp's position: exact in the first two phases."""
        j, tj, tc, ap = self.jerk, self.jerk_time_s, self.const_accel_time_s, self.peak_accel
        v1 = j * tj * tj / 2.0
        s1 = j * tj**3 / 6.0
        s2 = s1 + v1 * tc + ap * tc * tc / 2.0
        out = np.empty_like(s)
        first = s <= s1
        out[first] = np.cbrt(6.0 * s[first] / j)
        second = (s > s1) & (s <= s2)
        if tc > 0:
            out[second] = tj + (-v1 + np.sqrt(v1 * v1 + 2.0 * ap * (s[second] - s1))) / ap
        else:
            out[second] = tj
        third = s > s2
        if np.any(third):
            # last phase, measured back from the ramp's end: d = v u - j u^3 / 6,
            # increasing in u on [0, tj]; Newton from below converges monotonically
            d = np.maximum(self.ramp_distance - s[third], 0.0)
            v = self.peak_speed
            u = d / v
            for _ in range(30):
                f = v * u - j * u**3 / 6.0 - d
                step = f / (v - j * u * u / 2.0)
                u = np.clip(u - step, 0.0, tj)
                if np.all(np.abs(step) < 1e-15):
                    break
            out[third] = self.ramp_time_s - u
        return out

    def times_at(self, distances: FloatArray) -> FloatArray:
        s = np.clip(distances, 0.0, self.distance)
        if self.distance == 0:
            return np.zeros_like(s)
        dr = self.ramp_distance
        out = np.empty_like(s)
        first = s <= dr
        out[first] = self._ramp_times(s[first])
        last = s >= self.distance - dr
        last &= ~first
        out[last] = self.duration_s - self._ramp_times(self.distance - s[last])
        middle = ~(first | last)
        out[middle] = self.ramp_time_s + (s[middle] - dr) / self.peak_speed
        return out

    def time_at(self, distance: float) -> float:
        return float(self.times_at(np.array([distance], dtype=np.float64))[0])


Profile = TrapezoidProfile | SCurveProfile


def plan_profile(distance: float, max_speed: float, accel: float, jerk: float = 0.0) -> Profile:
    """The time-optimal rest-to-rest profile: jerk-limited if `jerk` > 0, else a trapezoid."""
    if jerk > 0:
        return SCurveProfile.plan(distance, max_speed, accel, jerk)
    return TrapezoidProfile.plan(distance, max_speed, accel)
