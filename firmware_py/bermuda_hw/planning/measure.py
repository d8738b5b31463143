"""Speed and acceleration measured from step edge times (what a move really did)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

# Speeds are averaged over blocks of steps at least this long: a motor's rotor
# and load cannot follow faster changes, and it keeps timing jitter of a few
# tens of microseconds from looking like huge accelerations.
BLOCK_S = 0.010


@dataclass(frozen=True)
class AxisTrace:
    """The times of one axis's steps and its position (in steps) after each."""

    times_s: Sequence[float] | FloatArray
    positions: Sequence[int] | npt.NDArray[np.int64]
    steps_per_mm: float


def block_series(
    trace: AxisTrace, rest_gap_s: float, block_s: float = BLOCK_S
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Block-middle times, mean speeds (mm/s) and accelerations at those times (mm/s^2).

    Each block runs from one step to the first step at least `block_s` later.
    For any constant acceleration the mean speed over a block equals the speed
    at its middle, so differences of consecutive blocks' speeds give the
    acceleration exactly. A block after a rest gives no acceleration (the
    motion's start is not known from its steps).
    """
    # as Python floats: the loop below reads them one at a time
    t: list[float] = np.asarray(trace.times_s, dtype=np.float64).tolist()
    p: list[float] = np.asarray(trace.positions, dtype=np.float64).tolist()
    mids: list[float] = []
    speeds: list[float] = []
    accels: list[float] = []
    if len(t) < 2:
        empty = np.zeros(0)
        return empty, empty, empty
    start = 0
    prev: tuple[float, float] | None = None
    for i in range(1, len(t)):
        gap = t[i] - t[i - 1]
        if gap > rest_gap_s:
            start, prev = i, None
            continue
        span = t[i] - t[start]
        if span < block_s:
            continue
        v = (p[i] - p[start]) / trace.steps_per_mm / span
        mid = (t[i] + t[start]) / 2.0
        a = 0.0 if prev is None else abs(v - prev[1]) / (mid - prev[0])
        mids.append(mid)
        speeds.append(v)
        accels.append(a)
        prev = (mid, v)
        start = i
    return np.array(mids), np.array(speeds), np.array(accels)


def peak_speed_accel(
    traces: Sequence[AxisTrace], rest_gap_s: float = 0.05, block_s: float = BLOCK_S
) -> tuple[float, float]:
    """Peak speed (mm/s) and acceleration (mm/s^2) of the carriage over several axes.

    Each axis's block speeds and accelerations are taken at its own block
    middles; the other axes' are interpolated there, and the vector's length is
    the carriage's.
    """
    series = [block_series(tr, rest_gap_s, block_s) for tr in traces]
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
