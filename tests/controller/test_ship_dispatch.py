"""A stable board of the ship phase, carried out: a move taken, a board that matches settled, a
fix asked, a setup never taken as a move, bumped ships back before any move (a stand-in for
the controller; synthetic observations, no frame)."""

from __future__ import annotations

from pathlib import Path

from parts_table import BOARD, Table
from synthetic import observe, two_plain_moves

from bermuda_hw.controller.ship_dispatch import on_ship_board
from bermuda_hw.controller.status import Mode
from bermuda_hw.controller.turn import Bumped
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation


def _rolled(tmp_path: Path) -> tuple[Table, Move]:
    """A 3-player table in mode READY whose active player has rolled, and a plain move."""
    game, move, _ = two_plain_moves(BOARD, 1)
    table = Table(tmp_path, players=3, seed=game.seed)
    table.game.roll_die()
    assert table.game.die == game.die
    table.status.mode = Mode.READY
    assert move in table.game.legal_moves()
    return table, move


def _seen(game: Game, move: Move | None = None) -> BoardObservation:
    shown = game.copy()
    if move is not None:
        shown.push(move)
    return observe(BOARD, {p: list(c) for p, c in contents(shown).items()})


def test_a_board_with_a_legal_move_takes_it(tmp_path: Path) -> None:
    table, move = _rolled(tmp_path)
    mover = table.game.active
    seen = _seen(table.game, move)
    table.last_observation = seen
    journal = len(table.game.journal)
    on_ship_board(table, seen)
    assert len(table.game.journal) == journal + 1
    assert move.ship is not None and table.game.ship(move.ship).location == move.end
    assert table.journalled()[-1] == dict(table.game.journal[-1])
    assert table.status.mode is Mode.READY and table.game.active != mover
    assert table.checks.reference is not None and table.checks.reference[2] is seen


def test_the_board_as_the_game_has_it_settles(tmp_path: Path) -> None:
    table, _ = _rolled(tmp_path)
    journal = len(table.game.journal)
    table.status.fix_attempts = 1
    on_ship_board(table, _seen(table.game))
    assert len(table.game.journal) == journal
    assert table.status.mode is Mode.READY and table.status.fix_attempts == 0


def test_a_board_no_move_explains_is_a_fix(tmp_path: Path) -> None:
    table, _ = _rolled(tmp_path)
    places = {p: list(c) for p, c in contents(table.game).items()}
    port = next(p for p in places if p in BOARD.ports)
    places[port] = places[port][2:]  # two ships gone from a port at once
    journal = len(table.game.journal)
    on_ship_board(table, observe(BOARD, places))
    assert len(table.game.journal) == journal
    assert table.status.mode is Mode.FIX and table.status.fix is not None
    assert table.status.fix_attempts == 1


def test_in_setup_a_moved_ship_is_a_fix_never_a_move(tmp_path: Path) -> None:
    table, move = _rolled(tmp_path)
    table.status.mode = Mode.SETUP
    journal = len(table.game.journal)
    on_ship_board(table, _seen(table.game, move))
    assert len(table.game.journal) == journal
    assert table.status.mode is Mode.SETUP
    assert table.status.message.startswith("set the board as the game has it: ")


def test_bumped_ships_go_back_before_a_change_counts_as_a_move(tmp_path: Path) -> None:
    table, move = _rolled(tmp_path)
    table.checks.turn.bumped = Bumped("S1", ("red-1",))
    journal = len(table.game.journal)
    on_ship_board(table, _seen(table.game, move))
    assert len(table.game.journal) == journal
    assert table.status.mode is Mode.FIX and table.status.message.startswith("fix the board: ")


def test_a_move_out_of_sight_a_hand_explains_better_is_asked_naming_it_and_a_yes_takes_it(
    tmp_path: Path,
) -> None:
    """The die on the table, a ship gone from its start to a landing under the cloud, the
    belief holding it likelier in a hand: nothing is taken; the table is asked whether the
    move was made, told that the camera cannot see the landing. A yes takes the move on the
    table's word: not provisional, and no question about its landing before the spin."""
    for seed in range(1, 80):
        game, move, _ = two_plain_moves(BOARD, seed)
        table = Table(tmp_path / str(seed), players=3, seed=game.seed)
        table.status.mode = Mode.READY
        assert table.game.die is None and move.end is not None
        shown = table.game.copy()
        shown.set_die(move.steps)
        shown.push(move)
        seen = observe(BOARD, {p: list(c) for p, c in contents(shown).items()}, hidden={move.end})
        table.last_observation = seen
        journal = len(table.game.journal)
        on_ship_board(table, seen)
        if table.status.mode is Mode.ASK:
            break
    else:
        raise AssertionError("no move out of sight a ship in a hand explains better")
    question = table.status.question
    assert question is not None and len(table.game.journal) == journal
    assert f"did you make {move}" in question.text
    assert f"The camera cannot see {move.end}" in question.text
    table.asking.give(1)
    table.answers.answer_step()
    assert table.game.journal[-1]["move"] == str(move)
    assert "provisional" not in table.game.journal[-1] and not table.session.provisional
    assert table.session.unseen_landing(seen) is None
