"""The question put to the table for tied moves, from the rules' candidates (no table)."""

from __future__ import annotations

from collections import defaultdict

from bermuda_hw.controller.questions import question_for
from bermuda_hw.controller.referee import Group
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Candidate, Consequence, Kind, candidates
from bermuda_hw.rules.game import Game

BOARD = load_board()


def groups_of(game: Game) -> list[Group]:
    """The active player's moves with any die, one group per consequence."""
    by: dict[Consequence, list[Candidate]] = defaultdict(list)
    for cand in candidates(game, None):
        if cand.kind is Kind.MOVE:
            by[cand.consequence].append(cand)
    return [Group(k, members[0], 0.0, tuple(members)) for k, members in by.items()]


def test_moves_of_different_dice_are_asked_by_die_in_order() -> None:
    game = Game.new(4, seed=2, board=BOARD)
    groups = groups_of(game)
    a = next(g for g in groups if len(g.dice) == 1)
    b = next(g for g in groups if not (g.dice & a.dice) and len(g.dice) == 1)
    high, low = (a, b) if min(a.dice) > min(b.dice) else (b, a)
    question, order = question_for(game.active, (high, low))
    assert order == (low, high)
    assert question.text.startswith(f"{game.active}: did you roll")
    assert question.dice == (low.dice, high.dice, frozenset(), frozenset())
    assert question.options[-2:] == (NONE_OF_THESE, NOT_YET)
    assert question.moves[-2:] == ((), ())
    assert question.color == game.active


def test_one_move_in_doubt_is_asked_yes_or_no_and_a_shared_die_by_move() -> None:
    game = Game.new(4, seed=2, board=BOARD)
    groups = groups_of(game)
    one, _ = question_for(game.active, (groups[0],))
    assert one.options[0].startswith("yes: ") and len(one.options) == 3
    assert one.dice == (frozenset(), frozenset(), frozenset())
    a = groups[0]
    b = next(g for g in groups[1:] if g.dice & a.dice)
    both, order = question_for(game.active, (a, b))
    assert order == (a, b)
    assert "which move" in both.text
    assert both.options[:2] == (str(a.best.move), str(b.best.move))
