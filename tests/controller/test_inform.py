"""Which request tells tied moves apart best (`controller.inform`): invariants of the
information each brings, and the choice it makes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.controller.inform import (
    ANSWER_RIGHT,
    FOLLOW,
    entropy,
    putback_first,
    putback_information,
    question_information,
)

weights = st.lists(st.floats(0.01, 1.0), min_size=2, max_size=4)


@given(weights)
def test_a_question_tells_no_more_than_there_is_to_know(ws: list[float]) -> None:
    told = question_information(ws)
    assert -1e-9 <= told <= entropy(ws) + 1e-9


@given(weights)
def test_a_question_answered_rightly_always_tells_everything(ws: list[float]) -> None:
    assert question_information(ws, right=1.0) == pytest.approx(entropy(ws))


@given(weights)
def test_a_question_answered_at_random_tells_nothing(ws: list[float]) -> None:
    # right no more often than any other option: n + 1 options ("none of these" too)
    assert question_information(ws, right=1.0 / (len(ws) + 1)) == pytest.approx(0.0, abs=1e-9)


@given(weights, st.data())
def test_a_putback_tells_what_its_boards_tell_when_followed(
    ws: list[float], data: st.DataObject
) -> None:
    boards = data.draw(st.lists(st.integers(0, 2), min_size=len(ws), max_size=len(ws)))
    told = putback_information(ws, boards)
    assert -1e-9 <= told <= FOLLOW * entropy(ws) + 1e-9
    assert putback_information(ws, range(len(ws))) == pytest.approx(FOLLOW * entropy(ws))
    assert putback_information(ws, [0] * len(ws)) == 0.0


@given(weights)
def test_moves_whose_boards_the_putback_leaves_alike_are_asked(ws: list[float]) -> None:
    assert not putback_first(ws, ["same"] * len(ws))


def test_two_moves_the_putback_tells_apart_ask_for_it_first() -> None:
    """Two moves, as likely or not: the board a followed request leaves is surer than a
    person's press (0.7 bits against 0.67 for two equal moves)."""
    for p in (0.5, 0.7, 0.9, 0.99):
        assert putback_first([p, 1.0 - p], ["a", "b"]), p


def test_three_moves_as_likely_are_better_asked() -> None:
    """Three moves as likely: a question's three options tell more than a request a player
    lets pass three times in ten (1.12 bits against 1.11)."""
    ws = [1.0, 1.0, 1.0]
    assert question_information(ws) > putback_information(ws, ["a", "b", "c"])
    assert not putback_first(ws, ["a", "b", "c"])
    assert putback_information(ws, ["a", "b", "c"]) == pytest.approx(FOLLOW * math.log2(3))


def test_the_rates_are_probabilities() -> None:
    assert 0.0 < FOLLOW <= 1.0 and 0.5 < ANSWER_RIGHT <= 1.0


def test_one_board_per_move() -> None:
    with pytest.raises(ValueError, match="one board per move"):
        putback_information([0.5, 0.5], ["a"])
