"""Letters and degrees (`bermuda_hw.geometry`): the conventions every layer shares, as properties.

The rules' sweep, the rotor's kinematics and the servo's must agree on which
heading shows which letter, for any order of the letters round the cloud's
rim (the classic anticlockwise ring, a clockwise ring, irregular ones).
"""

from __future__ import annotations

import doctest
import math

from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw import geometry
from bermuda_hw.geometry import (
    CLASSIC_LETTER_ANGLES_DEG,
    CLASSIC_LETTER_HEADINGS_DEG,
    LETTERS,
    bearing_deg,
    clockwise_deg,
    deg_to_steps,
    gap_deg,
    heading_vector,
    letter_at,
    letter_gap_deg,
    letter_heading_deg,
    letter_headings_deg,
    letter_index,
    letter_offset_deg,
    letter_turn_deg,
    mean_heading_deg,
    polar_point,
    sector,
    signed_deg,
    steps_to_deg,
    within_clockwise,
    wrap_deg,
)
from bermuda_hw.planning.kinematics import ServoRotationKinematics, StepperRotationKinematics
from bermuda_hw.rules.board import MIN_LETTER_GAP_DEG, CloudGeometry
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, Spin, plan_spin

ANGLES = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
HEADINGS = st.floats(min_value=-720.0, max_value=720.0, allow_nan=False)
LETTER = st.integers(min_value=0, max_value=len(LETTERS) - 1)
CLOCKWISE_RING = tuple(45.0 * k for k in range(len(LETTERS)))  # letters printed clockwise


@st.composite
def letter_rings(draw: st.DrawFn) -> tuple[float, ...]:
    """Where the letters sit round the rim: A at 0, the others in any order, a little uneven."""
    order = draw(st.permutations(range(1, len(LETTERS))))
    jitter = draw(
        st.lists(st.floats(-10.0, 10.0), min_size=len(LETTERS) - 1, max_size=len(LETTERS) - 1)
    )
    return (0.0, *(wrap_deg(45.0 * slot + d) for slot, d in zip(order, jitter, strict=True)))


RINGS = st.one_of(st.just(CLASSIC_LETTER_ANGLES_DEG), st.just(CLOCKWISE_RING), letter_rings())


def _same_angle(a_deg: float, b_deg: float, tol_deg: float = 1e-6) -> bool:
    return gap_deg(a_deg, b_deg) <= tol_deg


def test_the_module_s_examples_run() -> None:
    result = doctest.testmod(geometry)
    assert result.attempted > 10
    assert result.failed == 0


# --- angles -------------------------------------------------------------------------------


@given(ANGLES)
def test_wrap_is_a_heading_of_the_same_direction(angle: float) -> None:
    wrapped = wrap_deg(angle)
    assert 0.0 <= wrapped < 360.0
    turns = (angle - wrapped) / 360.0
    assert math.isclose(turns, round(turns), abs_tol=1e-6)
    assert wrap_deg(wrapped) == wrapped


@given(ANGLES)
def test_signed_is_a_difference_of_the_same_direction(angle: float) -> None:
    signed = signed_deg(angle)
    assert -180.0 <= signed < 180.0
    assert _same_angle(signed, angle, 1e-6 * max(1.0, abs(angle) / 360.0))
    assert signed_deg(signed) == signed


@given(HEADINGS, HEADINGS)
def test_gap_is_symmetric_and_at_most_half_a_turn(a: float, b: float) -> None:
    assert 0.0 <= gap_deg(a, b) <= 180.0
    assert math.isclose(gap_deg(a, b), gap_deg(b, a), abs_tol=1e-9)
    assert gap_deg(a, a) == 0.0
    assert math.isclose(gap_deg(a, b), min(clockwise_deg(a, b), clockwise_deg(b, a)), abs_tol=1e-9)


@given(HEADINGS, HEADINGS, HEADINGS)
def test_clockwise_turns_compose(a: float, b: float, c: float) -> None:
    ab, bc, ac = clockwise_deg(a, b), clockwise_deg(b, c), clockwise_deg(a, c)
    assert 0.0 <= ab < 360.0
    assert _same_angle(a + ab, b, 1e-9)
    # two clockwise turns make the direct one, or one more whole turn (a turn a hair short
    # of a whole one may read as none: 0.0 and 359.9999999999999 are one heading)
    assert _same_angle(ab + bc, ac, 1e-9)
    there_and_back = ab + clockwise_deg(b, a)
    assert min(abs(there_and_back), abs(there_and_back - 360.0)) <= 1e-9


@given(HEADINGS, HEADINGS, st.floats(0.0, 359.0))
def test_within_clockwise_is_the_arc_of_the_turn(angle: float, start: float, sweep: float) -> None:
    assert within_clockwise(angle, start, sweep) == (clockwise_deg(start, angle) <= sweep)
    assert within_clockwise(start, start, sweep)


@given(HEADINGS, st.integers(1, 64))
def test_sectors_run_clockwise_from_north(angle: float, count: int) -> None:
    k = sector(angle, count)
    assert 0 <= k < count
    start = 360.0 * k / count
    assert clockwise_deg(start, angle) <= 360.0 / count + 1e-9


@given(st.floats(-1e5, 1e5), st.floats(100.0, 10_000.0))
def test_steps_and_degrees_invert(steps: float, per_turn: float) -> None:
    assert math.isclose(
        deg_to_steps(steps_to_deg(steps, per_turn), per_turn), steps, rel_tol=1e-9, abs_tol=1e-6
    )


# --- the board frame ----------------------------------------------------------------------


@given(HEADINGS)
def test_bearing_of_a_heading_s_vector_is_the_heading(heading: float) -> None:
    ux, uy = heading_vector(heading)
    assert math.isclose(math.hypot(ux, uy), 1.0)
    assert _same_angle(bearing_deg(ux, uy), heading, 1e-9)


def test_the_board_frame_is_north_up_x_east_y_south() -> None:
    north, east = heading_vector(0.0), heading_vector(90.0)
    assert (round(north[0], 12), round(north[1], 12)) == (0.0, -1.0)
    assert (round(east[0], 12), round(east[1], 12)) == (1.0, 0.0)
    assert bearing_deg(0.0, 1.0) == 180.0  # y grows south
    assert bearing_deg(-1.0, 0.0) == 270.0


@given(st.tuples(st.floats(-500, 500), st.floats(-500, 500)), st.floats(0.1, 200.0), HEADINGS)
def test_a_polar_point_lies_at_its_radius_and_bearing(
    centre: tuple[float, float], radius: float, heading: float
) -> None:
    x, y = polar_point(centre, radius, heading)
    assert math.isclose(math.dist((x, y), centre), radius, rel_tol=1e-9)
    assert _same_angle(bearing_deg(x - centre[0], y - centre[1]), heading, 1e-6)


@given(HEADINGS, st.floats(0.0, 80.0))
def test_the_mean_of_a_spread_pair_is_its_middle(heading: float, spread: float) -> None:
    assert _same_angle(mean_heading_deg([heading]), heading, 1e-9)
    assert _same_angle(mean_heading_deg([heading - spread, heading + spread]), heading, 1e-6)


# --- letters ------------------------------------------------------------------------------


@given(LETTER)
def test_letter_names_round_trip(letter: int) -> None:
    assert letter_index(LETTERS[letter]) == letter
    assert letter_index(LETTERS[letter].lower()) == letter


@given(st.text(max_size=3).filter(lambda t: t.upper() not in LETTERS or len(t) != 1))
def test_anything_else_is_not_a_letter(text: str) -> None:
    try:
        letter_index(text)
    except ValueError as exc:
        assert "cloud letter" in str(exc)
    else:
        raise AssertionError(f"{text!r} was taken as a letter")


def test_the_classic_ring_turns_k_times_45_and_a_clockwise_ring_the_other_way() -> None:
    assert tuple(45.0 * k for k in range(8)) == CLASSIC_LETTER_HEADINGS_DEG
    assert letter_headings_deg(CLASSIC_LETTER_ANGLES_DEG) == CLASSIC_LETTER_HEADINGS_DEG
    assert letter_headings_deg(CLOCKWISE_RING) == (0.0, *(360.0 - 45.0 * k for k in range(1, 8)))
    assert letter_at(CLASSIC_LETTER_ANGLES_DEG, 45.0) == LETTERS.index("B")
    assert letter_at(CLOCKWISE_RING, 45.0) == LETTERS.index("H")
    assert letter_turn_deg(CLOCKWISE_RING, 0, 1) == 315.0


@given(RINGS, LETTER, st.floats(-0.99, 0.99), st.integers(-3, 3))
def test_a_letter_shows_at_its_heading_and_near_it(
    ring: tuple[float, ...], letter: int, within: float, turns: int
) -> None:
    heading = letter_heading_deg(ring, letter)
    assert 0.0 <= heading < 360.0
    assert _same_angle(heading + ring[letter], 0.0)  # turned back by its place on the rim
    assert letter_at(ring, heading + 360.0 * turns) == letter
    off = within * letter_gap_deg(ring, letter)
    assert letter_at(ring, heading + off) == letter
    assert math.isclose(letter_offset_deg(ring, heading + off, letter), off, abs_tol=1e-6)
    assert letter_gap_deg(ring, letter) >= MIN_LETTER_GAP_DEG / 2


@given(RINGS, LETTER, LETTER, LETTER)
def test_letter_turns_compose(ring: tuple[float, ...], a: int, b: int, c: int) -> None:
    ab, bc, ac = (
        letter_turn_deg(ring, a, b),
        letter_turn_deg(ring, b, c),
        letter_turn_deg(ring, a, c),
    )
    assert _same_angle(letter_heading_deg(ring, a) + ab, letter_heading_deg(ring, b))
    assert letter_at(ring, letter_heading_deg(ring, a) + ab) == b
    assert min(abs(ab + bc - ac), abs(ab + bc - ac - 360.0)) <= 1e-9
    assert (ab == 0.0) == (a == b)


# --- every layer agrees -------------------------------------------------------------------


@given(
    RINGS,
    st.lists(LETTER, min_size=1, max_size=12),
    st.floats(2000.0, 5000.0),
    st.integers(-3000, 3000),
)
def test_the_sweep_and_the_rotor_agree_on_every_letter(
    ring: tuple[float, ...], letters: list[int], rev: float, zero: int
) -> None:
    """The rules' sweep headings and the rotor's clockwise targets, letter after letter."""
    cloud = CloudGeometry(70.0, 18.0, (), ring)
    grid = load_board().grid
    kin = StepperRotationKinematics(rev, zero, cloud.letter_headings_deg)
    step_deg = 360.0 / rev
    pose = CloudPose(*grid.centre, 0)
    position = zero  # letter A at the start
    for letter in letters:
        path = plan_spin(grid, pose, Spin(letter, 1, "N"), cloud)
        assert _same_angle(path.start_heading_deg, cloud.heading_deg(pose.letter))
        assert _same_angle(path.end_heading_deg, cloud.heading_deg(letter))
        assert _same_angle(path.start_heading_deg + path.turn_deg, path.end_heading_deg)
        target = kin.clockwise_target(position, letter)
        assert target >= position
        assert kin.letter_at(target) == letter
        assert cloud.letter_at(kin.heading_deg(target)) == letter
        assert gap_deg(kin.heading_deg(target), path.end_heading_deg) <= step_deg / 2 + 1e-9
        # the rotor turns as far as the rules' turn, within the rounding of one half step
        assert abs(steps_to_deg(target - position, rev) - path.turn_deg) <= step_deg + 1e-9
        position, pose = target, CloudPose(pose.col, pose.row, letter)


@given(RINGS, LETTER)
def test_the_servo_turns_the_cloud_to_the_letter_s_heading(
    ring: tuple[float, ...], letter: int
) -> None:
    cloud = CloudGeometry(70.0, 18.0, (), ring)
    kin = ServoRotationKinematics(2.0, 180.0, cloud.letter_headings_deg)
    assert _same_angle(kin.servo_angle_deg(letter) * 2.0, cloud.heading_deg(letter))
