"""When the table is asked, and what its answers mean: put-back requests that stand, run out
and settle; questions not asked twice; answers by option (stand-in moves, no board read)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bermuda_hw.controller import announce
from bermuda_hw.controller.asking import (
    PUTBACK_GIVE_UP_S,
    PUTBACK_WAIT_S,
    Asking,
    Chosen,
    NoneOfThese,
    NoSuchAnswer,
    NotYet,
    Settled,
)
from bermuda_hw.controller.referee import Outcome, Verdict
from bermuda_hw.controller.turn import Request, Turn
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Bump
from bermuda_hw.rules.game import Game

BOARD = load_board()


def _turn() -> Turn:
    game = Game.new(2, seed=1, board=BOARD)
    return Turn(game, len(game.journal))


def _group(name: str, back: dict[str, tuple[str, ...]] | None = None) -> Any:
    """A stand-in group of moves: its consequence, and one member whose bumped ship is back
    (its board: `back`)."""
    member = SimpleNamespace(contents=back or {}, bump=Bump.BACK)
    return SimpleNamespace(consequence=name, members=(member,))


def test_a_request_stands_until_the_board_stays_quiet() -> None:
    asking, turn = Asking(), _turn()
    tied = (_group("a"), _group("b"))
    assert asking.request_putback(turn, Request.BUMPS, ("a", "b"), tied, "board", 0.0) is True
    assert turn.putback is not None and turn.putback.tied == tied
    # the same request again on a board settled anew: it stands, quiet from then
    assert asking.request_putback(turn, Request.BUMPS, ("a", "b"), tied, "board", 2.0) is False
    assert asking.putback_lapsed(turn, None, 3.0) is None  # a hand over the board
    assert asking.putback_lapsed(turn, "board", 3.0 + PUTBACK_WAIT_S - 0.1) is None
    lapsed = asking.putback_lapsed(turn, "board", 3.0 + PUTBACK_WAIT_S)
    assert lapsed is not None and lapsed.key == ("a", "b")
    # it ran out: not made again in this state of the game
    assert asking.request_putback(turn, Request.BUMPS, ("a", "b"), tied, "board", 20.0) is None


def test_a_request_on_a_board_never_quiet_gives_up() -> None:
    asking, turn = Asking(), _turn()
    asking.request_putback(turn, Request.OUT_OF_SIGHT, "a", (), "one", 0.0)
    for t in range(1, int(PUTBACK_GIVE_UP_S)):
        assert asking.putback_lapsed(turn, f"board {t}", float(t)) is None
    assert asking.putback_lapsed(turn, "another", PUTBACK_GIVE_UP_S) is not None


def test_a_stable_board_settles_a_request() -> None:
    asking, turn = Asking(), _turn()
    a, b = _group("a", {"P1": ("blue",)}), _group("b")
    asking.request_putback(turn, Request.BUMPS, ("a", "b"), (a, b), "board", 0.0)
    same_tie = Verdict(Outcome.TIE, tied=(b, a))
    assert asking.settle_putback(turn, same_tie, {}, "board", 1.0) is Settled.STANDS
    other = Verdict(Outcome.UNCLEAR)
    assert asking.settle_putback(turn, other, {}, "board", 2.0) is Settled.OTHER
    # the board as the game has it, which a move with its bumped ship back leaves too
    none = Verdict(Outcome.NONE)
    assert asking.settle_putback(turn, none, {"P1": ("blue",)}, "board", 3.0) is Settled.ASK
    assert ("a", "b") in turn.ran_out


def test_the_same_question_is_not_asked_twice_nor_after_not_yet_on_the_same_board() -> None:
    asking, turn = Asking(), _turn()
    tied = (_group("a"), _group("b"))
    turn.tied = tied
    assert not asking.should_ask(turn, tied, True, "board", 0.0)
    assert asking.should_ask(turn, tied, False, "board", 0.0)
    turn.not_yet = ("board", 10.0)
    assert not asking.should_ask(turn, tied, False, "board", 10.0 + announce.REPEAT_S - 1)
    assert asking.should_ask(turn, tied, False, "another board", 11.0)
    assert asking.should_ask(turn, tied, False, "board", 10.0 + announce.REPEAT_S)
    assert not asking.not_yet_lapsed(turn, 10.0 + announce.REPEAT_S - 1)
    assert asking.not_yet_lapsed(turn, 10.0 + announce.REPEAT_S)


@pytest.mark.parametrize(
    ("option", "expected"),
    [(0, NoSuchAnswer), (1, Chosen), (2, Chosen), (3, NoneOfThese), (4, NotYet), (5, NoSuchAnswer)],
)
def test_an_answer_by_option(option: int, expected: type) -> None:
    asking, turn = Asking(), _turn()
    a, b = _group("a"), _group("b")
    turn.tied = (a, b)
    answer = asking.answer(turn, option, "board", 7.0)
    assert isinstance(answer, expected)
    if isinstance(answer, Chosen):
        assert answer.group is (a, b)[option - 1]
    if isinstance(answer, NoSuchAnswer):
        assert str(answer) == f"there is no answer {option}: press 1 to 4 times"
        assert turn.tied == (a, b)  # still asked
    else:
        assert turn.tied == ()
    assert turn.not_yet == (("board", 7.0) if expected is NotYet else None)


def test_an_answer_on_the_page_comes_before_presses_and_the_question_is_said_again() -> None:
    asking = Asking()
    asking.give(2)
    assert asking.take(lambda: 3) == 2
    assert asking.take(lambda: 3) == 3
    assert asking.take(lambda: None) is None
    asking.asked_s = 5.0
    assert not asking.repeat_due(5.0 + announce.REPEAT_S - 1)
    assert asking.repeat_due(5.0 + announce.REPEAT_S)
    assert not asking.repeat_due(5.0 + announce.REPEAT_S + 1)  # said again from then
