"""Move notation errors say what is wrong, and a full port is never a short move's end."""

from __future__ import annotations

import pytest

from bermuda_hw.errors import ParseError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move, walk_table


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("red-2", "'red-2' is not a move: expected like 'red-2 S03-S04-S05' or 'red pass'"),
        ("red-2 S01-S02 S03", "is not a move"),
        ("red-2 pass", "'red-2 pass': a pass names a player colour, like 'red pass'"),
        (
            "red-2 S01",
            "'red-2 S01': a walk lists at least the start and one more space, joined by '-'",
        ),
        ("red-2 S01--S03", "a walk lists at least the start and one more space"),
    ],
)
def test_bad_move_text_is_refused_with_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(ParseError) as refused:
        Move.parse(text)
    assert words in str(refused.value)


def test_a_full_port_is_not_a_short_move(classic_board: Board) -> None:
    """Ruling 4 with ruling 7: blue's one ship at S11 next to a full oil port, the cloud over
    its other way on and one of the port's exits; no die docks it there, short or full."""
    game = Game.new(2, seed=1, board=classic_board, first_player="blue")
    for ship in game.ships():
        game.set_ship(ship.id, None)
    game.set_ship("yellow-1", "OIL")
    game.set_ship("yellow-2", "OIL")  # two ships: the port is full in a 2-player game
    game.set_ship("blue-1", "S11")
    game.set_cloud(CloudPose(6, 1, 0))
    assert classic_board.neighbours("S11") == {"S10", "OIL"}
    assert "S10" in game.blocked and not {"S11", "OIL"} & game.blocked
    assert classic_board.neighbours("OIL") & game.blocked
    game.set_turn("blue")
    for die in range(1, 7):
        assert game.legal_moves(die) == [Move.pass_turn("blue")], die
    # with the port free again the ship docks, whatever the die (ruling 3)
    game.set_ship("yellow-2", None)
    game.set_turn("blue")
    for die in range(1, 7):
        assert game.legal_moves(die) == [Move("blue-1", ("S11", "OIL"))], die


def test_a_short_move_stops_only_before_the_cloud_or_a_full_port(classic_board: Board) -> None:
    """Ruling 7: with the Home Port full and the cloud three spaces on, a 3 moves blue's ship
    two spaces, to the cloud's edge, and no shorter: an open space is no reason to stop."""
    game = Game.new(2, seed=1, board=classic_board, first_player="blue")
    for ship in game.ships():
        game.set_ship(ship.id, None)
    game.set_ship("yellow-1", "HOME")
    game.set_ship("yellow-2", "HOME")
    game.set_ship("blue-1", "S01")
    game.set_cloud(CloudPose(2, 0, 0))
    assert "S04" in game.blocked and not {"S01", "S02", "S03"} & game.blocked
    game.set_turn("blue")
    assert game.legal_moves(3) == [Move("blue-1", ("S01", "S02", "S03"))]


def test_walk_tables_and_their_answers_are_made_once(classic_board: Board) -> None:
    """The table is shared per board, and each pose's blocked spaces and each walk query
    are computed once: a game of many turns costs dictionary look-ups."""
    table = walk_table(classic_board)
    assert walk_table(classic_board) is table
    pose = CloudPose(4, 4, 0)
    blocked = table.blocked(pose)
    assert table.blocked(pose) is blocked
    full, short = table.moves("S11", 3, blocked, 0)
    assert full
    again = table.moves("S11", 3, blocked, 0)
    assert again[0] is full and again[1] is short
