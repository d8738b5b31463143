"""How far a token moved: the belief's evidence that a ship on a space is the one that
stood there before the turn, or another of its colour set down where it was.

A dock and a bump of the player's own ship back into the port docked at leave the same
colours on every place once the bumped ship is back. What tells them apart is the token
on the landing space: after the dock it is the token that stood there, read where it
stood and turned as it stood; after the bump it is the mover, set down by a hand where
the bumped ship was lifted off. So where a path space held one ship of a colour on the
board before the turn (`reference`) and holds one of that colour now, every hypothesis
says which of the two it is, and the reading's shift scores it:

- **untouched**: the shift is the camera's own, a stable run to the next. Its spread is
  measured on the same two boards, from every other ship that stands on a space alone on
  both (a robust median: a knocked token among them widens it a little, which only
  weakens the evidence). Some untouched tokens are nudged by a hand (`NUDGED`): they
  shift as a token set down would, so a shift far beyond the camera's says "replaced"
  at most 1 / NUDGED times more than "untouched", and a bad reading never turns a dock
  into a bump decisively.
- **replaced**: a hand set the mover down aiming at the very spot and heading of the
  token it replaced (the worst case for telling them apart): it lands within `HAND_MM`
  of that spot and `HAND_AXIS_DEG` of that heading, plus the camera's own spread. Or
  (`SWAPPED`) the player set the mover down beside the ship and, putting that ship back,
  lifted the mover instead: the two are alike, and the ship landed on stands untouched
  while the bump is made all the same. So an untouched token says "the dock" at most
  1 / SWAPPED times more than "the bump": the term can weaken a dock, or a bump, but no
  token's reading alone makes either decisive (`docs/belief.md`).

Only a token standing alone on a path space, seen whole, on both boards is judged: one
reading of its colour there, and where vision counts the tokens, one token counted (two
alike tokens side by side read as one, at their middle). A token read in part under the
cloud's rim shifts with the cover. The camera's own shift is measured on the path spaces
and the ports' berths alike.

A bump's every board replaces the token read there: its ship sent back, on its way, or
still on the space under the mover (a token wholly under another is not counted, so the
reading is the mover's). Beside the mover, two tokens are counted, and nothing is judged.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from bermuda_hw.controller.referee import place_observability
from bermuda_hw.geometry import axis_gap_deg
from bermuda_hw.rules.board import Board
from bermuda_hw.vision.types import BoardEvidence, BoardObservation, ShipReading

#: A hand setting a token down squarely on a spot lands this far off it, per axis (a 9 mm
#: token on a 20 mm space; assumed, not measured on real hands: the simulated players'
#: squarely set tokens spread wider, `sim.players.AIM_SD_MM`), and turned this far off the
#: heading it aims at. Aiming at the replaced token's own spot and heading is the case that
#: tells least, so the model takes it.
HAND_MM = 0.5
HAND_AXIS_DEG = 4.0
#: The camera's own shift of an untouched token, a stable run to the next, is measured on
#: each pair of boards, from at least MIN_SAMPLES other ships (a median of fewer says too
#: little; early in a game most ships stand in the ports' berths, and a new two-player game
#: has four there); never below these floors, about the spreads measured on rendered boards, each
#: stable run read as its frames' average (`vision.stability`): a median shift of 0.04 mm,
#: a spread of 0.033 mm; 0.34 degrees of its axis, a spread of 0.5. A few ships that happen
#: to read still must not make the camera seem steadier than it is.
STILL_FLOOR_MM = 0.03
STILL_AXIS_FLOOR_DEG = 0.4
MIN_SAMPLES = 4
#: the share of untouched tokens a hand nudges on their space during a turn (a knocked
#: neighbour, a token straightened: the simulated people knock one in twenty moves)
NUDGED = 0.05
#: A bump leaves the ship landed on untouched this often: putting back at once an own ship
#: landed on, from beside the mover, a player lifts the mover instead (the tokens are alike;
#: assumed, not measured: the simulated people put back from beside the mover half the
#: time they put back at once, and then lift the mover three times in ten)
SWAPPED = 0.15
#: The camera's shift has a tail wider than one spread: this share of untouched tokens
#: shifts within TAIL times the spread (a token read at the edge of its disk, light
#: changing between two runs); without it a still token a little past the spread would
#: read as replaced
TAIL_SHARE = 0.1
TAIL = 3.0
#: a place's token is read only where this much of it is in view on both boards
SEEN = 0.9
#: a Rayleigh distribution's median in units of its scale; a half-normal's
RAYLEIGH_MEDIAN = math.sqrt(2.0 * math.log(2.0))
HALF_NORMAL_MEDIAN = 0.6745


@dataclass(frozen=True)
class Spread:
    """The camera's own shift of an untouched token between two boards."""

    mm: float
    axis_deg: float


def _alone(
    board: Board, obs: BoardObservation, space: str, evidence: BoardEvidence | None = None
) -> ShipReading | None:
    """The one ship read on a path space, if one token of its colour stands there alone
    (where `evidence` counts the tokens, one counted)."""
    ships = obs.ships_at(space)
    if len(ships) != 1 or ships[0].hidden or space not in board.spaces or space in board.ports:
        return None
    if evidence is not None and evidence.areas is not None and evidence.token_area_mm2:
        count, _ = evidence.counts(evidence.index(space)).get(ships[0].color, (0, 0.0))
        if count != 1:
            return None
    return ships[0]


def _berthed(obs: BoardObservation) -> dict[tuple[str, int], list[ShipReading]]:
    out: dict[tuple[str, int], list[ShipReading]] = {}
    for ship in obs.ships:
        if ship.space is not None and ship.berth is not None and not ship.hidden:
            out.setdefault((ship.space, ship.berth), []).append(ship)
    return out


def spread(
    board: Board,
    before: BoardObservation,
    now: BoardObservation,
    seen: dict[str, float],
    leave_out: frozenset[str],
) -> Spread | None:
    """The camera's shift of an untouched token, from the ships standing alone on the same
    space or berth, same colour, on both boards (but on `leave_out`); None with too few of
    them. A port's berths count as well as the path's spaces: early in a game most ships
    are in port."""
    pairs: list[tuple[ShipReading, ShipReading]] = []
    for space in board.spaces:
        if space in leave_out or seen.get(space, 0.0) < SEEN:
            continue
        was, is_ = _alone(board, before, space), _alone(board, now, space)
        if was is not None and is_ is not None:
            pairs.append((was, is_))
    then = _berthed(before)
    for key, ships in _berthed(now).items():
        if len(ships) == 1 and len(then.get(key, ())) == 1 and seen.get(key[0], 0.0) >= SEEN:
            pairs.append((then[key][0], ships[0]))
    shifts: list[float] = []
    turns: list[float] = []
    for was, is_ in pairs:
        if was.color != is_.color:
            continue
        shifts.append(math.dist((was.x_mm, was.y_mm), (is_.x_mm, is_.y_mm)))
        if was.axis_deg is not None and is_.axis_deg is not None:
            turns.append(axis_gap_deg(was.axis_deg, is_.axis_deg))
    if len(shifts) < MIN_SAMPLES:
        return None
    mm = max(STILL_FLOOR_MM, statistics.median(shifts) / RAYLEIGH_MEDIAN)
    axis = (
        max(STILL_AXIS_FLOOR_DEG, statistics.median(turns) / HALF_NORMAL_MEDIAN)
        if len(turns) >= MIN_SAMPLES
        else math.inf
    )
    return Spread(mm, axis)


def _log_normal2(d: float, sd: float) -> float:
    """Log-density of a 2-D shift of length d, each axis normal with spread sd."""
    return -0.5 * (d / sd) ** 2 - math.log(2.0 * math.pi * sd * sd)


def _log_normal1(d: float, sd: float) -> float:
    return -0.5 * (d / sd) ** 2 - math.log(sd * math.sqrt(2.0 * math.pi))


def _still2(d: float, sd: float) -> float:
    """The camera's own 2-D shift of a still token: its spread, with a tail (TAIL_SHARE)."""
    return float(
        np.logaddexp(
            math.log1p(-TAIL_SHARE) + _log_normal2(d, sd),
            math.log(TAIL_SHARE) + _log_normal2(d, TAIL * sd),
        )
    )


def _still1(d: float, sd: float) -> float:
    """The camera's own turn of a still token's axis: its spread, with a tail."""
    return float(
        np.logaddexp(
            math.log1p(-TAIL_SHARE) + _log_normal1(d, sd),
            math.log(TAIL_SHARE) + _log_normal1(d, TAIL * sd),
        )
    )


def replaced_loglik(
    board: Board,
    evidence: BoardEvidence,
    before: BoardObservation,
    before_evidence: BoardEvidence,
    now: BoardObservation,
    spaces: frozenset[str],
) -> dict[str, float]:
    """By space (of `spaces`): log P(reading | another token set down there) - log P(reading
    | the token that stood there, untouched). Spaces that cannot be judged are left out
    (no evidence either way)."""
    seen = {
        p: min(place_observability(evidence, p), place_observability(before_evidence, p))
        for p in board.spaces
    }
    camera = spread(board, before, now, seen, spaces)
    if camera is None:
        return {}
    out: dict[str, float] = {}
    for space in sorted(spaces):
        was = _alone(board, before, space, before_evidence)
        is_ = _alone(board, now, space, evidence)
        if was is None or is_ is None or was.color != is_.color or seen.get(space, 0.0) < SEEN:
            continue
        d = math.dist((was.x_mm, was.y_mm), (is_.x_mm, is_.y_mm))
        hand = _log_normal2(d, math.hypot(HAND_MM, camera.mm))
        still = _still2(d, camera.mm)
        if was.axis_deg is not None and is_.axis_deg is not None and math.isfinite(camera.axis_deg):
            turn = axis_gap_deg(was.axis_deg, is_.axis_deg)
            hand += _log_normal1(turn, math.hypot(HAND_AXIS_DEG, camera.axis_deg))
            still += _still1(turn, camera.axis_deg)
        # after the bump, a token set down there; or the ship landed on, untouched all the
        # same (SWAPPED). Without it, the token that stood there; or that token nudged by a
        # hand (NUDGED), shifted as a token set down would be
        replaced = float(np.logaddexp(math.log1p(-SWAPPED) + hand, math.log(SWAPPED) + still))
        untouched = float(np.logaddexp(math.log1p(-NUDGED) + still, math.log(NUDGED) + hand))
        out[space] = replaced - untouched
    return out
