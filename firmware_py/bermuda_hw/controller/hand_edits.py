"""A long press after failed fixes: the board taken as the camera sees it, as hand edits.

A misread or a stray token can never stall a game: once a fix has been asked
for `ACCEPT_AFTER_ATTEMPTS` times with no change to the game, the ask says so,
and a long press of the spin button accepts the board as seen. Each ship the
game has where the camera sees none moves to where a ship of its colour is
seen, or leaves the game (`consequences.hand_edits`); a move out of sight the
fix was shown beside is a move (die, cards), made first, and only what it
leaves unexplained is edited. Nothing is accepted while the table is asked to
put bumped ships back.
"""

from __future__ import annotations

from collections.abc import Sequence

from bermuda_hw.controller.consequences import hand_edits, made
from bermuda_hw.controller.identify import difference
from bermuda_hw.rules.candidates import Candidate
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation

ACCEPT_AFTER_ATTEMPTS = 3  # after this many asks for a fix, a long press accepts the board

Edits = list[tuple[str, str | None]]


def fix_message(
    message: str, attempts: int, edits: Edits | None = None, first: str | None = None
) -> str:
    """An ask for a fix (the `attempts`-th since the game last changed), with the way out
    once it is due, and what it would do to the game (`edits`, when known, after the move
    `first` it makes: a ship the camera does not see leaves the game, and the table says
    so before anyone holds the button)."""
    if not due(attempts):
        return message
    said = ([f"{first} made first"] if first else []) + ([_described(edits)] if edits else [])
    way_out = "; or hold the spin button to accept the board as it is"
    return message + way_out + (f" ({'; '.join(said)})" if said else "")


def due(attempts: int) -> bool:
    """Whether a long press accepts the board after `attempts` asks for a fix."""
    return attempts >= ACCEPT_AFTER_ATTEMPTS


def refusal(putback_asked: bool, seen: bool, attempts: int) -> str | None:
    """Why a long press accepts no board now (None: it accepts it); `seen`: a board was
    read, `attempts`: the fixes asked for since the game last changed."""
    if putback_asked:
        return (
            "a long press accepts no board while the table is asked to put back "
            "bumped ships: put them back, or wait"
        )
    if not seen or not due(attempts):
        return (
            "a long press accepts the board as seen only after a fix has been "
            f"asked for {ACCEPT_AFTER_ATTEMPTS} times"
        )
    return None


def edits_for(game: Game, observation: BoardObservation, going_back: tuple[str, ...]) -> Edits:
    """The edits that make the game's placement what the camera sees (the ships
    `going_back` to their ports are asked for next, not edited)."""
    return hand_edits(game, difference(game, observation), going_back)


def edits_after(game: Game, observation: BoardObservation, waiting: Candidate | None) -> Edits:
    """The edits a long press would make now: after the move out of sight the fix waits
    on (`waiting`, made first; its bumped ships are asked for next, not edited)."""
    if waiting is None:
        return edits_for(game, observation, ())
    assert waiting.move is not None and waiting.die is not None  # a move out of sight
    return edits_for(made(game, waiting), observation, waiting.bumped)


def accepted(edits: Sequence[tuple[str, str | None]]) -> str:
    """What the table is told of the edits made."""
    return "the board is accepted as seen: " + (_described(edits) or "nothing to change")


def _described(edits: Sequence[tuple[str, str | None]]) -> str:
    return "; ".join(
        f"{sid} {'to ' + place if place else 'out of the game'}" for sid, place in edits
    )
