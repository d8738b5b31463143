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
    WRONG_COST,
    entropy,
    putback_first,
    putback_information,
    question_information,
    question_worth,
    wrong_commits,
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


@given(st.lists(st.floats(1e-9, 1.0), min_size=2, max_size=4))
def test_a_putback_that_tells_the_moves_apart_comes_first_at_these_rates(
    ws: list[float],
) -> None:
    """Two to four moves, however weighed (an option the belief holds at nearly nothing
    included): the put-back first. A wrong press commits a move nobody made."""
    assert putback_first(ws, range(len(ws)))


def test_a_table_that_lets_requests_pass_is_asked_at_once() -> None:
    assert not putback_first([1.0, 1.0], ["a", "b"], follow=0.4)
    assert not putback_first([1.0, 1.0, 1.0], ["a", "b", "c"], follow=0.5)


def test_a_wrong_press_costs_what_it_commits() -> None:
    """Three moves as likely: the question tells more than the put-back (1.12 bits against
    1.11), but one press in fifteen commits a move nobody made: worth less."""
    ws = [1.0, 1.0, 1.0]
    assert question_information(ws) > putback_information(ws, ["a", "b", "c"])
    assert wrong_commits(ws) == pytest.approx((1.0 - ANSWER_RIGHT) * 2 / 3)
    assert question_worth(ws) == pytest.approx(
        question_information(ws) - WRONG_COST * wrong_commits(ws)
    )
    assert putback_first(ws, ["a", "b", "c"])
    assert putback_information(ws, ["a", "b", "c"]) == pytest.approx(FOLLOW * math.log2(3))
    # answered rightly always, a question commits nothing wrong and tells everything
    assert wrong_commits(ws, right=1.0) == 0.0


def test_the_rates_are_probabilities() -> None:
    assert 0.0 < FOLLOW <= 1.0 and 0.5 < ANSWER_RIGHT <= 1.0


def test_one_board_per_move() -> None:
    with pytest.raises(ValueError, match="one board per move"):
        putback_information([0.5, 0.5], ["a"])
