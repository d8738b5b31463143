"""The page's actions: refused unless the table asks for them, carried out through the
controller's few entry points (a stand-in here: no table, no camera)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bermuda_hw.controller.commands import ActionRefused, Command
from bermuda_hw.controller.page import PageActions
from bermuda_hw.controller.status import Mode, Question, Status
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game

BOARD = load_board()


class Table:
    """What the page's actions see of the controller, recording what they did."""

    def __init__(self, mode: Mode = Mode.READY) -> None:
        self.board = BOARD
        self.status = Status(mode=mode, message="waiting")
        game = Game.new(2, seed=1, board=BOARD)
        self.session: Any = SimpleNamespace(
            game=game, game_id=7, players=2, seed=1, options=game.options
        )
        self.controls: Any = SimpleNamespace(estop_engaged=False)
        self.done: list[Any] = []

    def say(self, text: str) -> None:
        self.done.append(("say", text))

    def press(self) -> None:
        self.done.append("press")

    def pass_turn(self) -> str:
        self.done.append("pass")
        return "passed"

    def undo(self) -> str:
        self.done.append("undo")
        return "undone"

    def new_game(self) -> None:
        self.done.append(("new game", self.session.players, self.session.seed))
        self.session.game_id += 1

    def answer(self, option: int) -> None:
        self.done.append(("answer", option))

    def give_die(self, value: int) -> None:
        self.done.append(("die", value))


def _run(table: Table, action: str, **args: Any) -> str:
    return PageActions(table).run(Command(action, args))


def test_spin_is_a_press_only_when_the_table_asks_for_it() -> None:
    table = Table(Mode.READY)
    with pytest.raises(ActionRefused, match="now: ready \\(waiting\\)"):
        _run(table, "spin")
    table.status.mode = Mode.SPIN
    table.status.paused = True
    with pytest.raises(ActionRefused, match="paused"):
        _run(table, "spin")
    table.status.paused = False
    assert _run(table, "spin") == "spin pressed" and table.done == ["press"]


@pytest.mark.parametrize(("mode", "flag"), [(Mode.READY, "unfinished"), (Mode.FIX, "back_unseen")])
def test_spin_is_also_the_press_the_table_asks_for_outside_the_spin(mode: Mode, flag: str) -> None:
    """After "not yet" (the move is done) and while bumped ships are asked back where the
    camera cannot see (they are back): the page's spin is the button's press; in the same
    mode without that ask it is refused, and a paused motion does not refuse it."""
    table = Table(mode)
    table.status.paused = True
    with pytest.raises(ActionRefused, match="spin only when"):
        _run(table, "spin")
    assert table.done == []
    setattr(table.status, flag, True)
    assert _run(table, "spin") == "spin pressed" and table.done == ["press"]


def test_rehome_only_after_a_fault_with_the_estop_released() -> None:
    table = Table(Mode.READY)
    with pytest.raises(ActionRefused, match="only after a fault"):
        _run(table, "rehome")
    table.status.mode = Mode.FAULT
    table.controls.estop_engaged = True
    with pytest.raises(ActionRefused, match="e-stop"):
        _run(table, "rehome")
    table.controls.estop_engaged = False
    assert _run(table, "rehome") == "re-homing" and table.done == ["press"]


@pytest.mark.parametrize("mode", [Mode.MOVING, Mode.AFTER_SPIN, Mode.STARTING])
def test_nothing_is_undone_while_the_cloud_moves(mode: Mode) -> None:
    table = Table(mode)
    with pytest.raises(ActionRefused, match="while the cloud moves"):
        _run(table, "undo")
    assert table.done == []


def test_a_pass_and_an_undo_are_carried_out_by_the_table() -> None:
    table = Table(Mode.READY)
    assert _run(table, "pass") == "passed"
    assert _run(table, "undo") == "undone"
    assert table.done == ["pass", "undo"]
    table.status.mode = Mode.FIX
    with pytest.raises(ActionRefused, match="pass only when a player is to move"):
        _run(table, "pass")


def test_a_new_game_keeps_the_players_unless_asked() -> None:
    table = Table(Mode.OVER)
    assert _run(table, "new-game", seed=5) == "game 7 archived; new game 8 with 2 players"
    assert table.done == [("new game", 2, 5)]
    table.status.mode = Mode.FAULT
    with pytest.raises(ActionRefused, match="re-home after the fault"):
        _run(table, "new-game")


def test_an_answer_only_to_a_question_asked() -> None:
    table = Table(Mode.ASK)
    with pytest.raises(ActionRefused, match="no question"):
        _run(table, "answer", option=1)
    table.status.question = Question(
        "which?", ("a", "b", "none of these", "not yet"), (frozenset(),) * 4, ((),) * 4
    )
    assert _run(table, "answer", option=2) == "answered: b"
    assert table.done == [("answer", 2)]


def test_a_die_only_when_the_table_asks_for_one() -> None:
    table = Table(Mode.READY)
    with pytest.raises(ActionRefused, match="asks for no die"):
        _run(table, "die", value=4)
    table.status.die_for = "blue"
    assert _run(table, "die", value=4) == "die 4 for blue"
    assert table.done == [("die", 4)]


def test_pause_resume_and_hints_change_the_status() -> None:
    table = Table(Mode.SPIN)
    assert _run(table, "pause") == "motion paused" and table.status.paused
    assert _run(table, "resume") == "motion resumed" and not table.status.paused
    color = table.session.game.players[0]
    assert _run(table, "hints", color=color, on=True) == f"hints on for {color}"
    assert table.status.hints == (color,)
    _run(table, "hints", color=color, on=False)
    assert table.status.hints == ()
