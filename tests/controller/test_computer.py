"""The computer seats' turns and the virtual die, carried out (a stand-in for the controller:
a real session on its own journal, no camera, no frame)."""

from __future__ import annotations

from pathlib import Path

from parts_table import BOARD, Table

from bermuda_hw.controller.buttons import ANSWER_QUIET_S
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, GameOptions


def _seated(tmp_path: Path, die: str, seed: int = 4) -> Table:
    """A 2-player table whose first player to move is a computer seat, in mode READY."""
    first = Game.new(2, seed=seed, board=BOARD).active
    table = Table(tmp_path, seed=seed, options=GameOptions(die=die, computer={first: "best"}))
    table.status.mode = Mode.READY
    return table


def test_a_seat_with_the_virtual_die_rolls_chooses_and_shows_its_move(tmp_path: Path) -> None:
    table = _seated(tmp_path, "virtual")
    seat = table.game.active
    assert table.seats.step() is False  # no press taken
    chosen = table.status.suggestion
    assert chosen is not None and chosen.color == seat and chosen.die == table.game.die
    assert table.lines[-1] == f"{seat} rolls {chosen.die}"
    assert table.modes[-1][0] is Mode.READY and chosen.said in table.modes[-1][1]
    assert ("count", chosen.die) in table.signals.shown
    assert table.journalled()[-1]["roll"] == chosen.die  # the roll is in the journal
    # the next frame keeps the choice: no second roll, no second line
    said = len(table.lines)
    table.seats.step()
    assert table.status.suggestion == chosen and len(table.lines) == said


def test_a_seat_with_the_table_die_asks_for_it_and_takes_it_from_the_page(
    tmp_path: Path,
) -> None:
    table = _seated(tmp_path, "table")
    seat = table.game.active
    assert table.seats.step() is True  # the presses are the die's pips from now
    assert table.status.die_for == seat and table.game.die is None
    assert table.seats.step() is True and table.status.suggestion is None  # still waiting
    table.seats.die_given = 4  # `Controller.give_die`, from the page
    assert table.seats.step() is True
    assert table.game.die == 4 and table.status.die_for is None and table.status.die == 4
    assert table.journalled()[-1]["roll"] == 4
    chosen = table.status.suggestion
    assert chosen is not None and chosen.die == 4 and chosen.color == seat


def test_the_table_die_told_by_presses_once_the_button_rests(tmp_path: Path) -> None:
    table = _seated(tmp_path, "table")
    table.seats.step()
    for _ in range(7):
        table.button._on_pressed()
    table.clock.sleep(ANSWER_QUIET_S)
    assert table.seats.step() is True
    assert table.lines[-1] == "7 presses: a die shows 1 to 6; press spin once for each pip"
    assert table.game.die is None and table.status.die_for == table.game.active
    for _ in range(3):
        table.button._on_pressed()
    assert table.seats.step() is True and table.game.die is None  # not rested yet
    table.clock.sleep(ANSWER_QUIET_S)
    table.seats.step()
    assert table.game.die == 3 and table.status.suggestion is not None


def test_a_die_given_is_kept_until_the_board_is_settled_and_dropped_after_the_turn(
    tmp_path: Path,
) -> None:
    table = _seated(tmp_path, "table")
    table.seats.step()
    table.status.mode = Mode.FIX
    table.seats.die_given = 2
    assert table.seats.step() is False and table.seats.die_given == 2  # kept
    table.status.mode = Mode.READY
    table.seats.step()
    assert table.game.die == 2


def test_a_persons_turn_awaits_no_die_for_a_seat(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.status.mode = Mode.READY
    table.status.die_for, table.seats.die_given = "red", 5
    assert table.seats.step() is False
    assert table.status.die_for is None and table.seats.die_given is None
    assert table.game.die is None and table.modes == []


def test_the_virtual_die_rolled_twice_is_refused_with_the_die_shown(tmp_path: Path) -> None:
    table = Table(tmp_path, options=GameOptions(die="virtual"))
    table.status.mode = Mode.READY
    table.seats.roll()
    die = table.game.die
    assert die is not None and table.modes[-1][0] is Mode.READY
    table.seats.roll()
    assert table.lines[-1] == f"{table.game.active} has rolled {die} already: move a ship"
    assert table.signals.shown[-1] == ("count", die)
    assert [row["roll"] for row in table.journalled() if "roll" in row] == [die]
