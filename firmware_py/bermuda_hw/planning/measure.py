"""Speed and acceleration measured from step edge times (what a move really did)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class AxisTrace:
    """The times of one axis's steps and its position (in steps) after each."""

    times_s: Sequence[float] | FloatArray
    positions: Sequence[int] | npt.NDArray[np.int64]
    steps_per_mm: float


def _series(trace: AxisTrace, rest_gap_s: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Mid-interval times, mean speeds (mm/s), and accelerations at those times (mm/s^2).

    The mean speed over a step interval equals the speed at its middle for any
    constant acceleration, so differences of these speeds are exact there. The
    first interval after a rest has no known start: it gives no acceleration.
    """
    t = np.asarray(trace.times_s, dtype=np.float64)
    p = np.asarray(trace.positions, dtype=np.float64)
    if t.size < 2:
        empty = np.zeros(0)
        return empty, empty, empty
    dt = np.diff(t)
    valid = dt > 0
    speed = np.zeros_like(dt)
    speed[valid] = np.diff(p)[valid] / trace.steps_per_mm / dt[valid]
    mids = (t[1:] + t[:-1]) / 2.0
    accel = np.zeros_like(dt)
    rest = dt > rest_gap_s
    speed[rest] = 0.0
    if dt.size > 1:
        span = np.diff(mids)
        dv = np.abs(np.diff(speed))
        a = np.zeros_like(span)
        ok = (span > 0) & ~rest[1:] & ~rest[:-1]
        a[ok] = dv[ok] / span[ok]
        accel[1:] = a
    return mids, speed, accel


def peak_speed_accel(traces: Sequence[AxisTrace], rest_gap_s: float = 0.05) -> tuple[float, float]:
    """Peak speed (mm/s) and acceleration (mm/s^2) of the carriage over several axes.

    Each axis's speed and acceleration are taken at its own interval middles;
    the other axes' values are interpolated there, and the vector's length is
    the carriage's.
    """
    series = [_series(tr, rest_gap_s) for tr in traces]
    speed_peak = 0.0
    accel_peak = 0.0
    for i, (mids, _, _) in enumerate(series):
        if mids.size == 0:
            continue
        speed2 = np.zeros_like(mids)
        accel2 = np.zeros_like(mids)
        for j, (m, v, a) in enumerate(series):
            if m.size == 0:
                continue
            if i == j:
                speed2 += v * v
                accel2 += a * a
            else:
                inside = (mids >= m[0]) & (mids <= m[-1])
                speed2 += np.where(inside, np.interp(mids, m, v), 0.0) ** 2
                accel2 += np.where(inside, np.interp(mids, m, a), 0.0) ** 2
        speed_peak = max(speed_peak, float(np.sqrt(speed2.max())))
        accel_peak = max(accel_peak, float(np.sqrt(accel2.max())))
    return speed_peak, accel_peak
