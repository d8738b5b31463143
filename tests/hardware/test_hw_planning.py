"""The pure planner: profiles, step times, kinematics and soft limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.config import load_config
from bermuda_hw.errors import MotionError, SoftLimitError
from bermuda_hw.planning.kinematics import (
    AxisKinematics,
    GantryKinematics,
    ServoRotationKinematics,
    StepperRotationKinematics,
)
from bermuda_hw.planning.limits import SoftLimits
from bermuda_hw.planning.measure import AxisTrace, peak_speed_accel
from bermuda_hw.planning.profile import SCurveProfile, TrapezoidProfile, plan_profile
from bermuda_hw.planning.steps import Limits, plan_line
from bermuda_hw.rules.board import Board

KIN = GantryKinematics.from_config(load_config().gantry)
TOL = 1e-9

speeds = st.floats(min_value=1.0, max_value=100.0)
accels = st.floats(min_value=10.0, max_value=1000.0)


def minimum_time(distance: float, v: float, a: float) -> float:
    """The textbook minimum time of a rest-to-rest move under |v| <= v, |a| <= a."""
    if distance * a >= v * v:
        return distance / v + v / a
    return 2.0 * math.sqrt(distance / a)


@settings(max_examples=200, deadline=None)
@given(distance=st.floats(min_value=0.001, max_value=600.0), v=speeds, a=accels)
def test_profile_never_exceeds_its_limits_and_is_time_optimal(
    distance: float, v: float, a: float
) -> None:
    p = TrapezoidProfile.plan(distance, v, a)
    assert p.duration_s == pytest.approx(minimum_time(distance, v, a), rel=1e-9)
    ts = np.linspace(0.0, p.duration_s, 401)
    pos = np.array([p.position(t) for t in ts])
    vel = np.array([p.velocity(t) for t in ts])
    assert vel.max() <= v * (1 + TOL)
    assert np.all(np.diff(pos) >= -TOL)
    # acceleration from the position: second differences
    dt = ts[1] - ts[0]
    acc = np.diff(pos, 2) / dt**2
    assert np.abs(acc).max() <= a * (1 + 1e-6)
    assert p.position(p.duration_s) == pytest.approx(distance)
    assert p.time_at(distance) == pytest.approx(p.duration_s)


@settings(max_examples=200, deadline=None)
@given(
    distance=st.floats(min_value=0.001, max_value=600.0),
    fraction=st.floats(min_value=0.0, max_value=1.0),
    v=speeds,
    a=accels,
)
def test_time_at_inverts_position(distance: float, fraction: float, v: float, a: float) -> None:
    p = TrapezoidProfile.plan(distance, v, a)
    s = distance * fraction
    assert p.position(p.time_at(s)) == pytest.approx(s, abs=1e-9 * max(1.0, distance))


positions = st.tuples(st.integers(0, 35_000), st.integers(0, 35_000))


@settings(max_examples=120, deadline=None)
@given(start=positions, end=positions, v=speeds, a=accels)
def test_step_plans_end_on_target_with_strictly_increasing_times_within_limits(
    start: tuple[int, int], end: tuple[int, int], v: float, a: float
) -> None:
    plan = plan_line(KIN, start, end, Limits(v, a))
    for axis in (0, 1):
        times = plan.axis_times(axis)
        count = abs(end[axis] - start[axis])
        assert times.size == count
        if count == 0:
            continue
        assert np.all(np.diff(times) > 0)  # strictly increasing
        assert times[0] > 0
        assert times[-1] == pytest.approx(plan.duration_s, abs=1e-12)
        assert int(plan.positions(axis)[-1]) == end[axis]  # exactly on the target step
        # no interval faster than the axis's share of the maximum speed allows
        length = math.hypot(
            (end[0] - start[0]) / KIN.x.steps_per_mm, (end[1] - start[1]) / KIN.y.steps_per_mm
        )
        axis_mm = count / KIN.axes[axis].steps_per_mm
        min_interval = 1.0 / (v * axis_mm / length * KIN.axes[axis].steps_per_mm)
        if times.size > 1:
            assert np.diff(times).min() >= min_interval * (1 - 1e-6)
    assert np.all(np.diff(plan.times_s) >= 0)
    if plan.step_count > 2:
        traces = [
            AxisTrace(plan.axis_times(i), plan.positions(i), KIN.axes[i].steps_per_mm)
            for i in (0, 1)
        ]
        speed, accel = peak_speed_accel(traces, rest_gap_s=10.0)
        assert speed <= v * (1 + 1e-6)
        # per-axis step quantisation: accelerations measured from steps stay at the limit
        # except where the other axis is interpolated between its own steps
        if 0 in (end[0] - start[0], end[1] - start[1]):
            assert accel <= a * (1 + 1e-6)


def test_a_long_move_reaches_full_speed_and_ends_exactly() -> None:
    plan = plan_line(KIN, (0, 0), (28_160, 0), Limits(60.0, 150.0))
    assert plan.profile.peak_speed == 60.0
    assert plan.duration_s == pytest.approx(352 / 60 + 60 / 150)
    assert plan.step_count == 28_160


def test_empty_move() -> None:
    plan = plan_line(KIN, (100, 100), (100, 100), Limits(60.0, 150.0))
    assert plan.step_count == 0 and plan.duration_s == 0.0
    still = SCurveProfile.plan(0.0, 60.0, 150.0, 2000.0)
    assert still == SCurveProfile(0.0, 0.0, 0.0, 2000.0, 0.0, 0.0, 0.0)
    assert still.duration_s == 0.0 and still.position(1.0) == 0.0 and still.time_at(5.0) == 0.0


def test_bad_limits_are_refused() -> None:
    refusals = [
        (
            lambda: TrapezoidProfile.plan(10.0, 0.0, 100.0),
            "maximum speed and acceleration must be greater than 0",
        ),
        (
            lambda: TrapezoidProfile.plan(-1.0, 10.0, 100.0),
            "distance must be finite and >= 0, not -1.0",
        ),
        (
            lambda: SCurveProfile.plan(10.0, 10.0, 100.0, 0.0),
            "maximum speed, acceleration and jerk must be greater than 0",
        ),
        (
            lambda: SCurveProfile.plan(float("nan"), 10.0, 100.0, 10.0),
            "distance must be finite and >= 0, not nan",
        ),
    ]
    for plan, words in refusals:
        with pytest.raises(MotionError) as refused:
            plan()
        assert str(refused.value) == words


@given(board_mm=st.floats(min_value=20.0, max_value=460.0))
def test_axis_kinematics_round_trip(board_mm: float) -> None:
    axis = AxisKinematics("x", 80.0, 20.0, 440.0)
    steps = axis.board_to_steps(board_mm)
    assert abs(axis.steps_to_board(steps) - board_mm) <= 0.5 / 80.0 + 1e-9


def test_dots_map_to_steps_with_the_calibration_offset(board: Board) -> None:
    grid = board.grid
    assert KIN.dot_to_steps(grid, 0, 0) == ((78 - 20) * 80, (78 - 20) * 80)
    x_mm, y_mm = KIN.steps_to_board(KIN.dot_to_steps(grid, 8, 8))
    assert (x_mm, y_mm) == pytest.approx(grid.dot_mm(8, 8))
    with pytest.raises(MotionError):
        KIN.dot_to_steps(grid, 9, 0)


@settings(max_examples=200)
@given(
    position=st.integers(-100_000, 100_000),
    letter=st.integers(0, 7),
    rev=st.sampled_from([4096.0, 4075.7728, 2048.0, 8192.0 * 1.5]),
    zero=st.integers(-500, 500),
)
def test_rotation_always_turns_clockwise_to_the_letter(
    position: int, letter: int, rev: float, zero: int
) -> None:
    kin = StepperRotationKinematics(rev, zero)
    target = kin.clockwise_target(position, letter)
    assert position <= target < position + rev + 1
    assert kin.letter_at(target) == letter
    assert kin.clockwise_target(target, letter) == target  # already there: no turn


def test_servo_angles_and_range() -> None:
    kin = ServoRotationKinematics(2.0, 180.0)
    assert [kin.servo_angle_deg(k) for k in (0, 1, 7)] == [0.0, 22.5, 157.5]
    with pytest.raises(MotionError):
        ServoRotationKinematics(1.0, 180.0).servo_angle_deg(7)


def test_soft_limits_refuse_moves_past_the_outside_dots_or_the_travel(board: Board) -> None:
    limits = SoftLimits.for_grid(KIN, board.grid)
    inside = KIN.dot_to_steps(board.grid, 4, 4)
    edge = KIN.dot_to_steps(board.grid, 0, 4)
    limits.check_plan(plan_line(KIN, inside, edge, Limits(60, 150)))  # to an outside dot: fine
    past = (edge[0] - 80, edge[1])  # one millimetre past the western outside dot
    with pytest.raises(SoftLimitError, match="past the outside dots"):
        limits.check_plan(plan_line(KIN, inside, past, Limits(60, 150)))
    with pytest.raises(SoftLimitError, match="beyond its travel"):
        limits.check_steps((-1, inside[1]))
    with pytest.raises(SoftLimitError, match="beyond its travel"):
        limits.check_steps((KIN.x.travel_steps + 1, inside[1]), grid=False)
    # from home (off the grid) into the grid is allowed; from home to off-grid is not
    limits.check_plan(plan_line(KIN, (0, 0), inside, Limits(60, 150)))
    with pytest.raises(SoftLimitError):
        limits.check_plan(plan_line(KIN, (0, 0), (100, 100), Limits(60, 150)))


jerks = st.floats(min_value=100.0, max_value=100_000.0)


@settings(max_examples=150, deadline=None)
@given(distance=st.floats(min_value=0.001, max_value=600.0), v=speeds, a=accels, j=jerks)
def test_jerk_limited_profile_keeps_every_limit(
    distance: float, v: float, a: float, j: float
) -> None:
    p = SCurveProfile.plan(distance, v, a, j)
    trapezoid = TrapezoidProfile.plan(distance, v, a)
    assert p.duration_s >= trapezoid.duration_s * (1 - 1e-9)  # a jerk limit costs time
    t = np.linspace(0.0, p.duration_s, 3001)
    s = p.positions(t)
    dt = t[1] - t[0]
    vel = np.diff(s) / dt
    acc = np.diff(s, 2) / dt**2
    jerk = np.diff(s, 3) / dt**3
    assert vel.max() <= v * (1 + 1e-6)
    assert np.abs(acc).max() <= a * (1 + 1e-4)
    # a third difference is a weighted mean of the jerk; allow for rounding of s only
    rounding = 64 * np.finfo(np.float64).eps * max(1.0, distance) / dt**3
    assert np.abs(jerk).max() <= j * (1 + 1e-6) + rounding
    assert np.all(np.diff(s) >= -1e-9)
    assert p.position(p.duration_s) == pytest.approx(distance)
    back = p.times_at(s)
    assert np.abs(back - t).max() <= 1e-6 * max(1.0, p.duration_s)


@settings(max_examples=60, deadline=None)
@given(start=positions, end=positions, v=speeds, a=accels, j=jerks)
def test_jerk_limited_step_plans_end_on_target_with_increasing_times(
    start: tuple[int, int], end: tuple[int, int], v: float, a: float, j: float
) -> None:
    plan = plan_line(KIN, start, end, Limits(v, a, j))
    for axis in (0, 1):
        times = plan.axis_times(axis)
        assert times.size == abs(end[axis] - start[axis])
        if times.size:
            assert np.all(np.diff(times) > 0)
            assert times[-1] == pytest.approx(plan.duration_s, abs=1e-12)
            assert int(plan.positions(axis)[-1]) == end[axis]


def test_a_very_large_jerk_limit_gives_the_trapezoid() -> None:
    s_curve = SCurveProfile.plan(200.0, 60.0, 150.0, 1e9)
    trapezoid = TrapezoidProfile.plan(200.0, 60.0, 150.0)
    assert s_curve.duration_s == pytest.approx(trapezoid.duration_s, rel=1e-6)
    assert plan_profile(200.0, 60.0, 150.0, 0.0) == trapezoid


@settings(max_examples=150, deadline=None)
@given(
    distance=st.floats(min_value=0.001, max_value=600.0),
    v=speeds,
    a=accels,
    j=jerks,
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_jerk_limited_velocity_is_the_slope_of_the_position(
    distance: float, v: float, a: float, j: float, fraction: float
) -> None:
    p = SCurveProfile.plan(distance, v, a, j)
    t = fraction * p.duration_s
    # central difference of the position; its error is at most jerk * h^2 / 6
    h = 1e-4 * p.duration_s
    lo, hi = max(0.0, t - h), min(p.duration_s, t + h)
    slope = (p.position(hi) - p.position(lo)) / (hi - lo)
    error = j * h * h / 6 + a * h + 1e-7 * max(1.0, distance) / (hi - lo)
    assert p.velocity(t) == pytest.approx(slope, abs=error)
    assert 0.0 <= p.velocity(t) <= p.peak_speed * (1 + 1e-9)
    assert p.velocity(-1.0) == 0.0 and p.velocity(p.duration_s + 1.0) == pytest.approx(0.0)
    if p.cruise_time_s > 0:
        assert p.velocity(p.duration_s / 2) == p.peak_speed
    s = fraction * distance
    assert p.position(p.time_at(s)) == pytest.approx(s, abs=1e-6 * max(1.0, distance))
