"""A long press after failed fixes accepts the board as seen: when it may, the edits it makes,
and what the table is told (synthetic observations, no table)."""

from __future__ import annotations

from synthetic import observe

from bermuda_hw.controller.hand_edits import (
    ACCEPT_AFTER_ATTEMPTS,
    accepted,
    edits_for,
    fix_message,
    refusal,
)
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game

BOARD = load_board()


def test_the_way_out_is_offered_once_the_fix_was_asked_for_often_enough() -> None:
    assert fix_message("fix the board", ACCEPT_AFTER_ATTEMPTS - 1) == "fix the board"
    assert fix_message("fix the board", ACCEPT_AFTER_ATTEMPTS).endswith(
        "; or hold the spin button to accept the board as it is"
    )
    # with the edits it would make: a ship the camera does not see leaves the game
    edits = [("blue-3", None), ("red-1", "S12")]
    assert fix_message("fix the board", ACCEPT_AFTER_ATTEMPTS, edits).endswith(
        "accept the board as it is (blue-3 out of the game; red-1 to S12)"
    )
    assert fix_message("fix the board", ACCEPT_AFTER_ATTEMPTS - 1, edits) == "fix the board"
    # a move out of sight made first; nothing to edit says nothing more
    assert fix_message("fix", ACCEPT_AFTER_ATTEMPTS, [], "red-1 S03-S05").endswith(
        "as it is (red-1 S03-S05 made first)"
    )
    assert fix_message("fix", ACCEPT_AFTER_ATTEMPTS, []).endswith("accept the board as it is")


def test_a_long_press_accepts_only_after_the_asks_and_never_during_a_putback() -> None:
    assert refusal(False, True, ACCEPT_AFTER_ATTEMPTS) is None
    too_soon = refusal(False, True, ACCEPT_AFTER_ATTEMPTS - 1)
    assert too_soon is not None and f"{ACCEPT_AFTER_ATTEMPTS} times" in too_soon
    assert refusal(False, False, ACCEPT_AFTER_ATTEMPTS) == too_soon  # no board read yet
    during = refusal(True, True, ACCEPT_AFTER_ATTEMPTS)
    assert during is not None and "put back" in during


def test_a_ship_seen_elsewhere_is_moved_there_and_one_not_seen_leaves_the_game() -> None:
    game = Game.new(2, seed=1, board=BOARD)
    places = {p: list(c) for p, c in contents(game).items()}
    own = [s for s in game.ships() if s.location is not None and s.color == game.active]
    moved, gone = own[:2]
    assert moved.location is not None and gone.location is not None
    places[moved.location].remove(moved.color)
    places[gone.location].remove(gone.color)
    places.setdefault("S12", []).append(moved.color)
    edits = edits_for(game, observe(BOARD, places), ())
    assert sorted(place or "" for _, place in edits) == ["", "S12"]
    assert {sid for sid, _ in edits} == {moved.id, gone.id}
    line = accepted(edits)
    assert line.startswith("the board is accepted as seen: ") and "out of the game" in line
    assert accepted([]) == "the board is accepted as seen: nothing to change"
