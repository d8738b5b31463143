"""Provisional moves the board contradicts, carried out: the game taken back (SETUP, the cloud
placed again when its pose changed back), or the move of that turn the board shows taken
instead (a stand-in for the controller; synthetic observations, no frame)."""

from __future__ import annotations

from pathlib import Path

from parts_table import BOARD, Table
from synthetic import observe, two_plain_moves

from bermuda_hw.controller.provisional_checks import check_provisional, correct_provisional_move
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.candidates import candidates, contents
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation


def _seen(game: Game, hidden: tuple[str, ...] = ()) -> BoardObservation:
    return observe(BOARD, {p: list(c) for p, c in contents(game).items()}, hidden=hidden)


def _provisional(tmp_path: Path) -> tuple[Table, Game, Move, Move]:
    """A table whose last move (`taken`) went out of sight, provisional; the game before it
    and the other move of that die (`shown`)."""
    game, taken, shown = two_plain_moves(BOARD, 1)
    table = Table(tmp_path, players=3, seed=game.seed)
    assert table.session.roll() == game.die
    before = table.game.copy()
    assert table.game.die is not None
    candidate = next(
        c for c in candidates(table.game, frozenset({table.game.die})) if c.move == taken
    )
    assert taken.end is not None
    table.session.apply(candidate, provisional=(taken.end,))
    table.saved(True)
    table.status.mode = Mode.READY
    return table, before, taken, shown


def test_a_provisional_move_out_of_sight_waits(tmp_path: Path) -> None:
    table, before, taken, _ = _provisional(tmp_path)
    assert taken.end is not None
    assert check_provisional(table, _seen(before, hidden=(taken.end,))) is False
    assert table.status.provisional == (str(table.session.provisional[0].move),)
    assert table.modes == []


def test_a_provisional_move_the_board_contradicts_takes_the_game_back(tmp_path: Path) -> None:
    table, before, _, _ = _provisional(tmp_path)
    assert check_provisional(table, _seen(before)) is True
    assert len(table.game.journal) == len(before.journal)
    assert table.status.seq == len(table.game.journal) and table.status.provisional == ()
    assert table.status.mode is Mode.SETUP and table.status.message.startswith("the game went back")
    assert "forget" in table.rig.calls
    assert not any(call[0] == "place cloud" for call in table.rig.calls if isinstance(call, tuple))


def test_the_move_the_board_shows_instead_is_taken_in_its_place(tmp_path: Path) -> None:
    table, before, _, shown = _provisional(tmp_path)
    truth = before.copy()
    truth.push(shown)
    assert correct_provisional_move(table, _seen(truth)) is True
    assert contents(table.game) == contents(truth)
    assert table.status.mode is Mode.READY and table.session.provisional == []
    assert "forget" in table.rig.calls


def test_no_correction_while_the_table_is_asked(tmp_path: Path) -> None:
    table, before, _, shown = _provisional(tmp_path)
    truth = before.copy()
    truth.push(shown)
    table.status.mode = Mode.ASK
    assert correct_provisional_move(table, _seen(truth)) is False
    assert contents(table.game) != contents(truth)
