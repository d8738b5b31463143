"""Motion profiles at their edges: times and distances outside the move, refused limits,
still and triangle moves, and the S-curve with its maximum acceleration held, checked
against an independent integration of its jerk."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.errors import MotionError
from bermuda_hw.planning.profile import SCurveProfile, TrapezoidProfile, plan_profile

speeds = st.floats(min_value=1.0, max_value=100.0)
accels = st.floats(min_value=10.0, max_value=1000.0)
jerks = st.floats(min_value=100.0, max_value=100_000.0)
outside = st.floats(min_value=1e-3, max_value=1e3)


@settings(max_examples=60, deadline=None)
@given(
    distance=st.floats(min_value=0.001, max_value=600.0),
    v=speeds,
    a=accels,
    j=jerks,
    before=outside,
    after=outside,
)
def test_times_and_distances_outside_the_move_are_held_at_its_ends(
    distance: float, v: float, a: float, j: float, before: float, after: float
) -> None:
    trapezoid = TrapezoidProfile.plan(distance, v, a)
    s_curve = SCurveProfile.plan(distance, v, a, j)
    for p in (trapezoid, s_curve):
        assert p.position(-before) == 0.0
        assert p.position(p.duration_s + after) == pytest.approx(distance, rel=1e-12)
        assert p.velocity(-before) == 0.0
        assert p.velocity(p.duration_s + after) == pytest.approx(0.0, abs=1e-9 * v)
        assert p.time_at(-before) == 0.0
        assert p.time_at(distance + after) == pytest.approx(p.duration_s, rel=1e-12)
        times = p.times_at(np.array([-before, 0.0, distance, distance + after]))
        assert times.tolist() == pytest.approx(
            [0.0, 0.0, p.duration_s, p.duration_s], rel=1e-12, abs=1e-12
        )
    ends = s_curve.positions(np.array([-before, s_curve.duration_s + after]))
    assert ends.tolist() == pytest.approx([0.0, distance], rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    distance=st.floats(min_value=0.001, max_value=600.0),
    v=speeds,
    a=accels,
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_trapezoid_speed_in_the_first_ramp_is_the_acceleration_times_the_time(
    distance: float, v: float, a: float, fraction: float
) -> None:
    p = TrapezoidProfile.plan(distance, v, a)
    t = fraction * p.accel_time_s
    assert p.velocity(t) == pytest.approx(a * t, rel=1e-12, abs=1e-12)
    assert p.velocity(p.duration_s - t) == pytest.approx(a * t, rel=1e-9, abs=1e-9 * v)


def test_a_long_trapezoid_at_its_start_cruise_and_end() -> None:
    p = TrapezoidProfile.plan(200.0, 60.0, 150.0)  # 0.4 s ramps of 12 mm, 176 mm of cruise
    end = p.duration_s
    assert end == pytest.approx(0.8 + 176.0 / 60.0)
    assert [p.velocity(t) for t in (0.0, 0.2, 0.4, 2.0, end - 0.4, end - 0.2, end)] == (
        pytest.approx([0.0, 30.0, 60.0, 60.0, 60.0, 30.0, 0.0], abs=1e-9)
    )
    assert [p.position(t) for t in (-1.0, 0.2, 2.0, end - 0.2, end + 1.0)] == pytest.approx(
        [0.0, 3.0, 12.0 + 60.0 * 1.6, 200.0 - 3.0, 200.0]
    )


@pytest.mark.parametrize(
    "speed, accel", [(0.0, 150.0), (-60.0, 150.0), (60.0, 0.0), (60.0, -150.0), (0.0, 0.0)]
)
def test_trapezoid_refuses_a_speed_or_acceleration_not_above_zero(
    speed: float, accel: float
) -> None:
    with pytest.raises(MotionError) as refused:
        TrapezoidProfile.plan(10.0, speed, accel)
    assert str(refused.value) == "maximum speed and acceleration must be greater than 0"


@pytest.mark.parametrize(
    "speed, accel, jerk",
    [
        (0.0, 150.0, 2000.0),
        (-60.0, 150.0, 2000.0),
        (60.0, 0.0, 2000.0),
        (60.0, -150.0, 2000.0),
        (60.0, 150.0, 0.0),
        (60.0, 150.0, -2000.0),
        (0.0, 0.0, 2000.0),
        (0.0, 150.0, 0.0),
    ],
)
def test_s_curve_refuses_a_speed_acceleration_or_jerk_not_above_zero(
    speed: float, accel: float, jerk: float
) -> None:
    with pytest.raises(MotionError) as refused:
        SCurveProfile.plan(10.0, speed, accel, jerk)
    assert str(refused.value) == "maximum speed, acceleration and jerk must be greater than 0"


def test_small_positive_limits_are_accepted() -> None:
    """Limits below 1 (slow axes, limits in other units) are valid: only <= 0 is refused."""
    slow = TrapezoidProfile.plan(10.0, 0.5, 0.5)
    assert slow.peak_speed == 0.5 and slow.duration_s == pytest.approx(10.0 / 0.5 + 0.5 / 0.5)
    gentle = SCurveProfile.plan(10.0, 0.5, 0.5, 0.5)
    assert gentle.peak_speed == 0.5 and gentle.peak_accel == pytest.approx(0.5)
    assert gentle.position(gentle.duration_s) == pytest.approx(10.0)
    soft = SCurveProfile.plan(10.0, 60.0, 150.0, 0.5)
    assert soft.jerk == 0.5 and soft.position(soft.duration_s) == pytest.approx(10.0)


def test_a_still_trapezoid_is_all_zero_but_its_acceleration() -> None:
    still = TrapezoidProfile.plan(0.0, 60.0, 150.0)
    assert still == TrapezoidProfile(0.0, 0.0, 150.0, 0.0, 0.0)
    assert still.duration_s == 0.0 and still.position(1.0) == 0.0 and still.velocity(1.0) == 0.0
    assert still.time_at(5.0) == 0.0
    assert still.times_at(np.array([0.0, 5.0])).tolist() == [0.0, 0.0]


@settings(max_examples=100, deadline=None)
@given(distance=st.floats(min_value=0.001, max_value=600.0), v=speeds, a=accels)
def test_a_triangle_peaks_at_the_speed_it_reaches(distance: float, v: float, a: float) -> None:
    p = TrapezoidProfile.plan(distance, v, a)
    reached = max(p.velocity(t) for t in np.linspace(0.0, p.duration_s, 201))
    reached = max(reached, p.velocity(p.accel_time_s))
    assert p.peak_speed == pytest.approx(min(v, math.sqrt(distance * a)), rel=1e-9)
    assert p.peak_speed == pytest.approx(reached, rel=1e-9)
    assert p.peak_speed <= v * (1 + 1e-12)


def test_a_triangle_is_at_its_peak_for_every_distance_between_its_ramps() -> None:
    """Where rounding leaves a sliver between the two ramps' distances, its time is the peak's."""
    found = 0
    for distance in np.linspace(0.1, 50.0, 500):
        p = TrapezoidProfile.plan(float(distance), 1000.0, 150.0)
        assert p.cruise_time_s == 0.0
        da = p.accel_distance
        lo, hi = np.nextafter(da, np.inf), np.nextafter(p.distance - da, -np.inf)
        if lo <= hi:
            found += 1
            times = p.times_at(np.array([lo, hi]))
            assert times.tolist() == pytest.approx([p.accel_time_s] * 2, rel=1e-9)
    assert found > 0


def test_plan_profile_is_a_trapezoid_without_a_jerk_and_an_s_curve_with_any() -> None:
    assert plan_profile(200.0, 60.0, 150.0) == TrapezoidProfile.plan(200.0, 60.0, 150.0)
    assert plan_profile(200.0, 60.0, 150.0, 0.5) == SCurveProfile.plan(200.0, 60.0, 150.0, 0.5)
    assert plan_profile(200.0, 60.0, 150.0, 2000.0) == SCurveProfile.plan(
        200.0, 60.0, 150.0, 2000.0
    )


Floats = npt.NDArray[np.float64]


def integrate_jerk(p: SCurveProfile, dt: float) -> tuple[Floats, Floats, Floats]:
    """Times, speeds and positions from the profile's jerk phases, integrated numerically."""
    tj, tc, cruise = p.jerk_time_s, p.const_accel_time_s, p.cruise_time_s
    phases = [
        (tj, p.jerk),
        (tc, 0.0),
        (tj, -p.jerk),
        (cruise, 0.0),
        (tj, -p.jerk),
        (tc, 0.0),
        (tj, p.jerk),
    ]
    edges = np.cumsum([0.0] + [length for length, _ in phases])
    t = np.arange(0.0, edges[-1] + dt / 2, dt)
    mid = t[:-1] + dt / 2
    jerk = np.zeros_like(mid)
    for (length, value), start in zip(phases, edges[:-1], strict=True):
        jerk[(mid >= start) & (mid < start + length)] = value
    accel = np.concatenate([[0.0], np.cumsum(jerk) * dt])
    speed = np.concatenate([[0.0], np.cumsum((accel[1:] + accel[:-1]) / 2) * dt])
    position = np.concatenate([[0.0], np.cumsum((speed[1:] + speed[:-1]) / 2) * dt])
    return t, speed, position


@pytest.mark.parametrize(
    "distance, v, a, j",
    [
        (200.0, 60.0, 150.0, 2000.0),  # the gantry's limits: held acceleration and a cruise
        (20.0, 60.0, 150.0, 2000.0),  # too short for full speed: held acceleration, no cruise
        (350.0, 80.0, 200.0, 1500.0),
    ],
)
def test_s_curve_holding_its_maximum_acceleration_matches_integrated_jerk(
    distance: float, v: float, a: float, j: float
) -> None:
    p = SCurveProfile.plan(distance, v, a, j)
    assert p.const_accel_time_s > 0.01 and p.peak_accel == pytest.approx(a)
    dt = 1e-5
    t, speed, position = integrate_jerk(p, dt)
    assert position[-1] == pytest.approx(distance, rel=1e-4)
    assert speed.max() == pytest.approx(p.peak_speed, rel=1e-4)
    every = slice(None, None, 97)
    assert p.positions(t[every]) == pytest.approx(position[every], abs=1e-4 * distance)
    velocities = np.array([p.velocity(float(x)) for x in t[every]])
    assert velocities == pytest.approx(speed[every], abs=1e-3 * v)
    # the time each distance is reached, against the integrated motion
    inside = (position > 1e-3 * distance) & (position < distance * (1 - 1e-3))
    picks = np.flatnonzero(inside)[::211]
    times = p.times_at(position[picks])
    assert np.abs(times - t[picks]).max() <= 1e-3
    assert p.positions(times) == pytest.approx(position[picks], abs=1e-9 * distance)
