"""The cloud's rim: whether the camera shows a move's ship on a landing it does not see well.

A landing just past the cloud's footprint is hidden by the cloud's model (its body's
overhang, its top seen at an angle) though a token's edge there may show
(`BoardEvidence.rim`, `rim_shows`); a landing the camera sees in part (the rim band) may
show the token itself (`band_shows`). The ship phase takes a move out of sight without
asking where they show its ship, and the session confirms such a move at a press of spin.
Pure: the game, the board's evidence and the move.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

from bermuda_hw.controller.belief import ALPHA, fill_noise
from bermuda_hw.controller.putback import CONFIRM_OBSERVABILITY
from bermuda_hw.controller.referee import place_observability, seen_whole
from bermuda_hw.errors import BermudaError
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.ships import ShipSettings
from bermuda_hw.vision.types import BoardEvidence, BoardObservation

#: How far above the empty places' spread (`belief.fill_noise`) the mover's colour must
#: fill a landing's disk at the cloud's rim to show the mover's token there: an empty
#: place's fill (half-normal) passes RIM_Z spreads with probability ALPHA.
RIM_Z = NormalDist().inv_cdf(1.0 - ALPHA / 2.0)
#: The spread above is measured on places in the clear; at the rim the cloud's body, its
#: shadow and its paint lie in the disks too. So the landing must also show its colour
#: RIM_OVER_EMPTY times as much as any other path space measured at the rim shows it where
#: the game has no ship of that colour (the same frames, the same cloud). Where the
#: landing is the only one measured there is nothing to compare with: on both renderers
#: an empty path space at the rim showed at most 0.72 of the RIM_Z threshold in two
#: samples of 8 setups x 32 cloud poses each, beside `make bench`'s 4 x 8 (docs/referee.md),
#: which is what the threshold alone relies on.
RIM_OVER_EMPTY = 2.0
#: A token standing on another path space or a berth (within STAND_TOLERANCE_MM of its
#: centre, and up to SHIP_HALF_LENGTH_MM long on either side of it: the tokens are ships
#: 19-25 mm long) reaches the landing's sampling disk when the places are closer than
#: this; the rim then cannot tell whose token it shows, where the game has a ship of the
#: mover's colour there.
SHIP_HALF_LENGTH_MM = 12.5
RIM_CLEAR_MM = STAND_TOLERANCE_MM + SHIP_HALF_LENGTH_MM + ShipSettings().sample_radius_mm


#: A ship reading on a landing the camera sees in part (the cloud's rim band: 0 <
#: observability < CONFIRM_OBSERVABILITY) shows the mover's token there only this sure
#: (`ShipReading.confidence`: the colour's share of the disk's ship-coloured pixels
#: times how much of the disk it covers, 1 from 45 %, after pixels like the learned
#: board, relit as the light is now, are vetoed; a stable board's is its least sure
#: frame's). On both renderers, under the calibration's light and five unlike it, a
#: token within 4 mm of a landing in the band read this sure on a learned disk, through a
#: stabiliser's three frames, 177 times in 190, and no empty place in the band read a ship
#: at all (`make bench`, "ships in the cloud's rim band"; docs/referee.md).
BAND_CONFIDENCE = 0.8
#: The share of the landing's disk whose look the reader has learned
#: (`BoardEvidence.learned`) for the band to be read at all: only there is a pixel of the
#: printing compared with the learned board, and where it is not, the printing may read as
#: a token (a brick-painted S33, mostly unlearned, read red 0.81 in one frame).
BAND_LEARNED = 0.95


def rim_shows(game: Game, evidence: BoardEvidence, move: Move) -> bool:
    """Whether the cloud's rim shows the mover's token on the landing of `move` (a path
    space the cloud's model hides beyond its footprint, `BoardEvidence.rim`; not one it
    sees in part, `band_shows`): the mover's colour fills its disk more than RIM_Z spreads
    of an empty place's and RIM_OVER_EMPTY times what the other path spaces measured at
    the rim without that colour show; and no other token of that colour could show there
    (`_another_may_stand_there`, `_may_reach`: the rim measures a colour in the landing's
    disk, not where a token stands)."""
    board = game.board
    if evidence.rim is None or move.end in board.ports or move.end not in board.spaces:
        return False
    color = game.ship(move.ship).color
    if color not in evidence.colors:
        return False
    c = evidence.colors.index(color)

    def shown(place: str) -> bool:
        return _rim_colour(evidence, place, c)

    if _another_may_stand_there(game, evidence, move, shown) or _may_reach(game, evidence, move):
        return False
    fill = float(evidence.rim[evidence.index(move.end), c])
    if math.isnan(fill):
        return False  # not measured in every frame of the board
    holding = {s.location for s in game.ships() if s.color == color}
    measured = [
        float(evidence.rim[i, c])
        for i, (space, berth) in enumerate(evidence.places)
        if berth is None and space != move.end and space not in holding
    ]
    empty = max((f for f in measured if not math.isnan(f)), default=0.0)
    return fill > RIM_Z * fill_noise(evidence) and fill > RIM_OVER_EMPTY * empty


def shows(game: Game, observation: BoardObservation, evidence: BoardEvidence, move: Move) -> bool:
    """Whether the cloud's rim shows the mover's token on the landing of `move`, beyond the
    cloud's footprint (`rim_shows`) or in the band the camera sees in part (`band_shows`).
    `game`: with the move made."""
    return rim_shows(game, evidence, move) or band_shows(game, observation, evidence, move)


def band_shows(
    game: Game, observation: BoardObservation, evidence: BoardEvidence, move: Move
) -> bool:
    """Whether the landing of `move`, a path space the camera sees in part (the cloud's rim
    band), shows the mover's token: `observation` (a stable board) reads a ship of the
    mover's colour there at least BAND_CONFIDENCE sure, within STAND_TOLERANCE_MM of the
    space's centre (a token set down off the place, whose hull reaches the landing's
    disk, may read sure there), on a disk whose look the reader has learned
    (BAND_LEARNED): the reading's pixels were compared with the learned board relit as
    the light is now, so the printing in view is no token, as the colours measured alone
    (`BoardEvidence.rim`) cannot tell. And, as at the rim, no other token of that colour
    could show there (`_another_may_stand_there`, `_may_reach`)."""
    board = game.board
    if move.end in board.ports or move.end not in board.spaces:
        return False
    if not 0.0 < place_observability(evidence, move.end) < CONFIRM_OBSERVABILITY:
        return False
    learned = None if evidence.learned is None else evidence.learned[evidence.index(move.end)]
    if learned is None or not learned >= BAND_LEARNED:  # NaN: not measured in every frame
        return False
    color = game.ship(move.ship).color
    landing = board.spaces[move.end].position
    if not any(
        s.color == color
        and not s.hidden
        and s.confidence >= BAND_CONFIDENCE
        and math.dist((s.x_mm, s.y_mm), landing) <= STAND_TOLERANCE_MM
        for s in observation.ships_at(move.end)
    ):
        return False
    c = evidence.colors.index(color) if color in evidence.colors else None

    def shown(place: str) -> bool:
        read = any(s.color == color and not s.hidden for s in observation.ships_at(place))
        return read or (c is not None and _rim_colour(evidence, place, c))

    return not (
        _another_may_stand_there(game, evidence, move, shown) or _may_reach(game, evidence, move)
    )


def _rim_colour(evidence: BoardEvidence, place: str, c: int) -> bool:
    """Whether the rim shows colour `c` on a path space it measures (RIM_Z spreads above
    an empty place's fill)."""
    if evidence.rim is None:
        return False
    return float(evidence.rim[evidence.index(place), c]) > RIM_Z * fill_noise(evidence)


def _another_may_stand_there(
    game: Game, evidence: BoardEvidence, move: Move, shown: Callable[[str], bool]
) -> bool:
    """Whether a ship of the mover's colour other than the mover may stand on the landing
    of `move` (a path space): one the game has there, one on a path space the camera does
    not see whole unless its colour is `shown` there, or one in a port it does not see
    whole where a bump off the landing sent it (`_bumped_off`: its token may still stand
    there)."""
    board = game.board
    color = game.ship(move.ship).color
    for ship in game.ships():
        if ship.color != color or ship.id == move.ship or ship.location is None:
            continue
        if ship.location == move.end:
            return True
        if not seen_whole(evidence, ship.location, CONFIRM_OBSERVABILITY) and (
            _bumped_off(game, ship.id, move.end)
            if ship.location in board.ports
            else not shown(ship.location)
        ):
            return True
    return False


def _may_reach(game: Game, evidence: BoardEvidence, move: Move) -> bool:
    """Whether a token of the mover's colour off the landing of `move` may reach the
    landing's disk: a ship of that colour the game has within RIM_CLEAR_MM of it (on a
    path space, or in any berth of a port), or a path space that near out of sight and
    unmeasured (the mover set down there, a space short)."""
    board = game.board
    color = game.ship(move.ship).color
    landing = board.spaces[move.end].position
    for ship in game.ships():
        if ship.color != color or ship.id == move.ship or ship.location is None:
            continue
        port = board.ports.get(ship.location)
        points = port.berths if port is not None else (board.spaces[ship.location].position,)
        if any(math.dist(landing, p) < RIM_CLEAR_MM for p in points):
            return True
    for sid, space in board.spaces.items():
        if sid == move.end or sid in board.ports:
            continue
        if math.dist(landing, space.position) >= RIM_CLEAR_MM:
            continue
        i = evidence.index(sid)
        unmeasured = evidence.rim is None or all(math.isnan(float(v)) for v in evidence.rim[i])
        if float(evidence.observable[i]) < CONFIRM_OBSERVABILITY and unmeasured:
            return True
    return False


def _bumped_off(game: Game, ship: str, space: str) -> bool:
    """Whether the last change of a ship's place in the game was a bump off `space` (sent
    back to its port by another ship's move): its token may still stand there, as a
    person may not have carried it back yet. A ship that came to its port otherwise (it
    started there, docked, or was set there by hand) was carried there. True where the
    journal cannot be walked back."""
    back = game.copy()
    where = game.ship(ship).location
    for entry in reversed(game.journal):
        try:
            back.pop()
        except BermudaError:
            return True
        before = back.ship(ship).location
        if before != where:
            return before == space and "move" in entry and Move.parse(entry["move"]).ship != ship
    return False
