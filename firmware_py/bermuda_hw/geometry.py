"""Letters and degrees: the one place that wraps angles, turns clockwise and finds letters.

Conventions, shared by the rules, the planner, the devices, vision and the
simulated table:

- **Board frame:** millimetres, origin at the board's north-west corner,
  x grows east, y grows south (north is -y).
- **Headings and bearings:** degrees clockwise from north, kept in 0..360
  (`wrap_deg`); a difference between two of them is kept in -180..180
  (`signed_deg`).
- **Cloud letters:** A = 0 ... H = 7. At the start the cloud shows A at the
  notch, which always points north. `letter_angles_deg[k]` (board data) is
  where letter k is printed round the rim, degrees clockwise from A seen from
  above; letter k is at the notch once the cloud has turned
  `letter_heading_deg(letter_angles_deg, k)` = -letter_angles_deg[k]
  (mod 360) clockwise from its start pose. On the classic board the letters
  run anticlockwise round the rim, so letter k means k x 45 degrees.
- **Turns:** the cloud turns clockwise (positive degrees); a turn of a rotor
  or servo is converted with `steps_to_deg` / `deg_to_steps`.

Pure functions on floats: no I/O, nothing from the rest of the project.

>>> bearing_deg(*heading_vector(135.0))
135.0
>>> letter_heading_deg(CLASSIC_LETTER_ANGLES_DEG, letter_index("C"))
90.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

Point = tuple[float, float]

LETTERS = "ABCDEFGH"
FULL_TURN_DEG = 360  # an int, so that exact fractions of a turn stay exact
HALF_TURN_DEG = 180
DEGREES_PER_LETTER = FULL_TURN_DEG / len(LETTERS)


# --- angles -------------------------------------------------------------------------------


def wrap_deg(angle_deg: float) -> float:
    """An angle as 0 <= a < 360 degrees (a heading or a bearing).

    >>> wrap_deg(-45.0), wrap_deg(360.0), wrap_deg(725.0), wrap_deg(-1e-20)
    (315.0, 0.0, 5.0, 0.0)
    """
    wrapped = angle_deg % FULL_TURN_DEG
    # a tiny negative angle rounds up to a whole turn: that heading is north
    return wrapped if wrapped < FULL_TURN_DEG else 0.0


def signed_deg(angle_deg: float) -> float:
    """An angle as -180 <= a < 180 degrees (a difference between two headings).

    >>> signed_deg(270.0), signed_deg(-190.0), signed_deg(180.0)
    (-90.0, 170.0, -180.0)
    """
    return wrap_deg(angle_deg + HALF_TURN_DEG) - HALF_TURN_DEG


def gap_deg(a_deg: float, b_deg: float) -> float:
    """The smallest angle between two headings, 0..180 degrees, whichever way round.

    >>> gap_deg(350.0, 10.0), gap_deg(10.0, 350.0), gap_deg(0.0, 180.0)
    (20.0, 20.0, 180.0)
    """
    return abs(signed_deg(a_deg - b_deg))


def clockwise_deg(from_deg: float, to_deg: float) -> float:
    """How far to turn clockwise from one heading to another, 0 <= turn < 360.

    >>> clockwise_deg(315.0, 45.0), clockwise_deg(45.0, 315.0), clockwise_deg(90.0, 90.0)
    (90.0, 270.0, 0.0)
    """
    return wrap_deg(to_deg - from_deg)


def within_clockwise(angle_deg: float, start_deg: float, sweep_deg: float) -> bool:
    """True when a heading lies on the clockwise arc from `start_deg` over `sweep_deg`.

    >>> within_clockwise(10.0, 350.0, 30.0), within_clockwise(340.0, 350.0, 30.0)
    (True, False)
    """
    return clockwise_deg(start_deg, angle_deg) <= sweep_deg


def sector(angle_deg: float, count: int) -> int:
    """Which of `count` equal sectors, numbered clockwise from north, holds an angle.

    >>> sector(0.0, 8), sector(44.9, 8), sector(45.0, 8), sector(-1.0, 8)
    (0, 0, 1, 7)
    """
    return int(wrap_deg(angle_deg) / FULL_TURN_DEG * count) % count


def steps_to_deg(steps: float, steps_per_turn: float) -> float:
    """Degrees turned by a number of (half) steps of a rotor that turns once in
    `steps_per_turn` (not wrapped: a whole turn and a half is 540 degrees).

    >>> steps_to_deg(1024, 4096)
    90.0
    """
    return FULL_TURN_DEG * steps / steps_per_turn


def deg_to_steps(angle_deg: float, steps_per_turn: float) -> float:
    """The (fractional) number of steps that turns a rotor by an angle.

    >>> deg_to_steps(90.0, 4096)
    1024.0
    """
    return angle_deg / FULL_TURN_DEG * steps_per_turn


def deg_to_turns(angle_deg: float) -> float:
    """An angle as a fraction of a whole turn.

    >>> deg_to_turns(90.0)
    0.25
    """
    return angle_deg / FULL_TURN_DEG


# --- the board frame ----------------------------------------------------------------------


def heading_vector(heading_deg: float) -> Point:
    """The unit vector of a heading in the board frame (clockwise from north; north is -y).

    >>> [round(c, 9) + 0.0 for c in heading_vector(0.0) + heading_vector(90.0)]
    [0.0, -1.0, 1.0, 0.0]
    """
    rad = math.radians(heading_deg)
    return (math.sin(rad), -math.cos(rad))


def bearing_deg(dx: float, dy: float) -> float:
    """The heading (0..360, clockwise from north) of a board-frame vector (y grows south).

    >>> bearing_deg(0.0, -1.0), bearing_deg(1.0, 0.0), bearing_deg(0.0, 1.0), bearing_deg(-1.0, 0.0)
    (0.0, 90.0, 180.0, 270.0)
    """
    return wrap_deg(math.degrees(math.atan2(dx, -dy)))


def polar_point(centre: Point, radius_mm: float, heading_deg: float) -> Point:
    """The point `radius_mm` from `centre` along a heading.

    >>> [round(c, 9) + 0.0 for c in polar_point((10.0, 10.0), 5.0, 180.0)]
    [10.0, 15.0]
    """
    ux, uy = heading_vector(heading_deg)
    return (centre[0] + radius_mm * ux, centre[1] + radius_mm * uy)


def mean_heading_deg(headings_deg: Iterable[float]) -> float:
    """The circular mean of headings (as unit vectors), 0..360.

    >>> round(mean_heading_deg([350.0, 10.0]), 9) % 360.0
    0.0
    """
    vx = vy = 0.0
    for heading in headings_deg:
        ux, uy = heading_vector(heading)
        vx += ux
        vy += uy
    return bearing_deg(vx, vy)


# --- axes: lines with no bow, a heading up to a half turn -------------------------------------


def axis_deg(heading_deg: float) -> float:
    """The line a heading lies along, 0 <= a < 180 (a token's length: bow and stern alike).

    >>> axis_deg(270.0), axis_deg(-10.0), axis_deg(180.0)
    (90.0, 170.0, 0.0)
    """
    return wrap_deg(heading_deg) % HALF_TURN_DEG


def axis_gap_deg(a_deg: float, b_deg: float) -> float:
    """The smallest angle between two lines, 0..90 degrees.

    >>> axis_gap_deg(175.0, 5.0), axis_gap_deg(0.0, 90.0), axis_gap_deg(10.0, 190.0)
    (10.0, 90.0, 0.0)
    """
    gap = gap_deg(a_deg, b_deg)
    return min(gap, HALF_TURN_DEG - gap)


def mean_axis_deg(axes_deg: Iterable[float]) -> float:
    """The mean of lines, 0..180 (each doubled as a heading, averaged, halved back).

    >>> round(mean_axis_deg([178.0, 4.0]), 9)
    1.0
    """
    return axis_deg(mean_heading_deg(2.0 * a for a in axes_deg) / 2.0)


def axis_of_spread(sxx: float, syy: float, sxy: float) -> float:
    """The line along which points spread most, from their second moments in the board
    frame (x east, y south), 0..180.

    >>> axis_of_spread(4.0, 1.0, 0.0), axis_of_spread(1.0, 4.0, 0.0), axis_of_spread(1.0, 1.0, 0.9)
    (90.0, 0.0, 135.0)
    """
    long = (sxx + syy + math.hypot(sxx - syy, 2.0 * sxy)) / 2.0
    # the eigenvector of the larger eigenvalue: either form, whichever is not degenerate
    vx, vy = (sxy, long - sxx) if abs(long - sxx) > abs(long - syy) else (long - syy, sxy)
    return axis_deg(bearing_deg(vx, vy))


# --- cloud letters ------------------------------------------------------------------------


def letter_index(letter: str) -> int:
    """A = 0 ... H = 7 (either case); ValueError for anything else.

    >>> letter_index("c")
    2
    """
    if len(letter) != 1 or letter.upper() not in LETTERS:
        raise ValueError(f"{letter!r} is not a cloud letter (A-H)")
    return LETTERS.index(letter.upper())


def letter_heading_deg(letter_angles_deg: Sequence[float], letter: int) -> float:
    """How far the cloud has turned clockwise from its start pose to show `letter`.

    >>> letter_heading_deg(CLASSIC_LETTER_ANGLES_DEG, 2), letter_heading_deg([0.0, 45.0, 90.0], 1)
    (90.0, 315.0)
    """
    return wrap_deg(-letter_angles_deg[letter])


def letter_headings_deg(letter_angles_deg: Sequence[float]) -> tuple[float, ...]:
    """Every letter's heading, A first (see `letter_heading_deg`)."""
    return tuple(letter_heading_deg(letter_angles_deg, k) for k in range(len(letter_angles_deg)))


def nearest_heading(headings_deg: Sequence[float], heading_deg: float) -> int:
    """The index of the heading nearest to `heading_deg` (the first one on a tie).

    >>> nearest_heading(CLASSIC_LETTER_HEADINGS_DEG, 350.0)
    0
    """
    return min(range(len(headings_deg)), key=lambda k: gap_deg(heading_deg, headings_deg[k]))


def letter_offset_deg(letter_angles_deg: Sequence[float], heading_deg: float, letter: int) -> float:
    """Signed degrees (-180..180) from a letter's heading to a heading."""
    return signed_deg(heading_deg - letter_heading_deg(letter_angles_deg, letter))


def letter_at(letter_angles_deg: Sequence[float], heading_deg: float) -> int:
    """The letter nearest the notch with the cloud turned to a heading.

    >>> letter_at(CLASSIC_LETTER_ANGLES_DEG, 91.0), letter_at(CLASSIC_LETTER_ANGLES_DEG, -20.0)
    (2, 0)
    """
    return nearest_heading(letter_headings_deg(letter_angles_deg), heading_deg)


def letter_gap_deg(letter_angles_deg: Sequence[float], letter: int) -> float:
    """Half the angle to the nearest other letter: how far off a reading may be.

    >>> letter_gap_deg(CLASSIC_LETTER_ANGLES_DEG, 0)
    22.5
    """
    head = letter_heading_deg(letter_angles_deg, letter)
    return (
        min(
            gap_deg(letter_heading_deg(letter_angles_deg, k), head)
            for k in range(len(letter_angles_deg))
            if k != letter
        )
        / 2.0
    )


def letter_turn_deg(letter_angles_deg: Sequence[float], from_letter: int, to_letter: int) -> float:
    """How far the cloud turns clockwise to go from showing one letter to another (0..360).

    >>> letter_turn_deg(CLASSIC_LETTER_ANGLES_DEG, 7, 1)
    90.0
    """
    return clockwise_deg(
        letter_heading_deg(letter_angles_deg, from_letter),
        letter_heading_deg(letter_angles_deg, to_letter),
    )


# The classic cloud: its letters run anticlockwise round the rim (seen from above),
# so turning it 45 degrees clockwise brings B to the notch, 90 degrees C, and so on.
CLASSIC_LETTER_ANGLES_DEG = tuple(wrap_deg(-DEGREES_PER_LETTER * k) for k in range(len(LETTERS)))
CLASSIC_LETTER_HEADINGS_DEG = letter_headings_deg(CLASSIC_LETTER_ANGLES_DEG)
