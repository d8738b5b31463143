"""The table's questions and put-back requests, carried out: a question put, an answer taking
its move, "none of these" asking for the board back, "not yet" letting the player finish (a
stand-in for the controller; synthetic observations, no frame)."""

from __future__ import annotations

from pathlib import Path

from parts_table import BOARD, Table
from synthetic import observe

from bermuda_hw.controller import announce
from bermuda_hw.controller.referee import Group
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.controller.turn import Request
from bermuda_hw.rules.candidates import Kind, candidates, contents
from bermuda_hw.vision.types import BoardObservation


def _tied(tmp_path: Path) -> tuple[Table, tuple[Group, ...]]:
    """A table whose active player has rolled, and two plain moves of that die as a tie."""
    for seed in range(1, 200):
        table = Table(tmp_path / str(seed), players=3, seed=seed)
        game = table.game
        game.roll_die()
        plain = [
            c
            for c in candidates(game, frozenset({game.die or 0}))
            if c.kind is Kind.MOVE and c.move is not None and not c.bumped
            if c.move.end is not None and not game.ships_at(c.move.end)
        ]
        ends = {c.move.end for c in plain if c.move is not None}
        if len(ends) >= 2:
            first = plain[0]
            assert first.move is not None
            other = next(c for c in plain if c.move is not None and c.move.end != first.move.end)
            groups = tuple(Group(c.consequence, c, 0.0, (c,)) for c in (first, other))
            table.status.mode = Mode.READY
            return table, groups
    raise AssertionError("no such roll")


def _board(table: Table) -> BoardObservation:
    return observe(BOARD, {p: list(c) for p, c in contents(table.game).items()})


def _asked(tmp_path: Path) -> tuple[Table, tuple[Group, ...]]:
    table, groups = _tied(tmp_path)
    table.answers.ask(groups)
    return table, groups


def test_a_question_is_put_with_none_of_these_and_not_yet(tmp_path: Path) -> None:
    table, groups = _asked(tmp_path)
    question = table.status.question
    assert question is not None and table.status.mode is Mode.ASK
    assert question.options[-2:] == (NONE_OF_THESE, NOT_YET)
    assert table.status.message.startswith(question.text)
    # asked once: the same question on the same board is not put again
    modes = len(table.modes)
    table.answers.ask(groups)
    assert len(table.modes) == modes


def test_an_unanswered_question_is_said_again_and_nothing_is_taken(tmp_path: Path) -> None:
    table, _ = _asked(tmp_path)
    journal = len(table.game.journal)
    table.answers.answer_step()
    assert table.status.mode is Mode.ASK and not table.lines[-1].startswith("still waiting")
    table.clock.sleep(announce.REPEAT_S)
    table.answers.answer_step()
    assert table.lines[-1].startswith("still waiting for an answer, the game is paused: ")
    assert len(table.game.journal) == journal and table.status.mode is Mode.ASK


def test_an_answer_naming_a_move_takes_it_and_checks_the_board(tmp_path: Path) -> None:
    table, groups = _asked(tmp_path)
    question = table.status.question
    assert question is not None
    chosen = groups[0].best
    option = 1 + question.options.index(str(chosen.move))
    moved = table.game.copy()
    assert chosen.move is not None
    moved.push(chosen.move)
    table.last_observation = observe(BOARD, {p: list(c) for p, c in contents(moved).items()})
    table.asking.give(option)
    table.answers.answer_step()
    assert f"answer {option}: {chosen.describe()}" in table.lines  # then the move, said
    assert table.game.journal[-1] == moved.journal[-1]
    assert table.journalled()[-1] == dict(moved.journal[-1])
    assert table.status.question is None and table.status.mode is not Mode.ASK


def test_none_of_these_takes_nothing_and_asks_for_the_board_back(tmp_path: Path) -> None:
    table, _ = _asked(tmp_path)
    table.last_observation = _board(table)
    question = table.status.question
    assert question is not None
    journal = len(table.game.journal)
    table.asking.give(question.options.index(NONE_OF_THESE) + 1)
    table.answers.answer_step()
    assert table.lines[-1].endswith(": none of these; nothing is taken")
    assert table.status.mode is Mode.FIX and "set the board back" in table.status.message
    assert len(table.game.journal) == journal


def test_not_yet_lets_the_player_finish(tmp_path: Path) -> None:
    table, _ = _asked(tmp_path)
    question = table.status.question
    assert question is not None
    table.asking.give(question.options.index(NOT_YET) + 1)
    table.answers.answer_step()
    assert table.status.mode is Mode.READY and table.status.unfinished
    assert "finish your move" in table.status.message


def test_a_putback_request_is_shown_once_and_ends_when_the_mode_leaves_fix(
    tmp_path: Path,
) -> None:
    table, groups = _tied(tmp_path)
    key = tuple(g.consequence for g in groups)
    assert table.answers.request_putback(Request.BUMPS, key, groups) is True
    assert table.status.mode is Mode.FIX and table.status.putback
    assert "if your move bumped a ship, put it back" in table.status.message
    assert table.checks.turn.putback is not None
    table.last_observation = _board(table)
    table.status.mode = Mode.READY  # (the board went on without it)
    table.answers.putback_step()
    assert table.checks.turn.putback is None and not table.status.putback


def _answer_with_landing_hidden(tmp_path: Path, one: bool) -> tuple[Table, str]:
    """A question about the first of two plain moves (alone: "did you make ...?"; else
    which of the two), answered with that move, its landing under the cloud."""
    table, groups = _tied(tmp_path)
    chosen = groups[0].best
    assert chosen.move is not None and chosen.move.end is not None
    table.answers.ask(groups[:1] if one else groups, (chosen.move.end,) if one else ())
    question = table.status.question
    assert question is not None
    if one:
        assert f"The camera cannot see {chosen.move.end}" in question.text
    moved = table.game.copy()
    moved.push(chosen.move)
    table.last_observation = observe(
        BOARD, {p: list(c) for p, c in contents(moved).items()}, hidden={chosen.move.end}
    )
    table.asking.give(1)
    table.answers.answer_step()
    assert table.game.journal[-1]["move"] == moved.journal[-1]["move"]
    return table, str(chosen.move)


def test_a_yes_to_a_move_out_of_sight_is_the_tables_word_and_not_asked_again(
    tmp_path: Path,
) -> None:
    """A "did you make ...? The camera cannot see S23" answered yes names the move, landing
    and all: the move is taken on the table's word, not provisional, so that the spin does
    not wait on a question about its landing."""
    table, move = _answer_with_landing_hidden(tmp_path, one=True)
    end = move.rsplit("-", 1)[-1]
    assert table.session.provisional == []
    assert "provisional" not in table.game.journal[-1]
    assert f"    on the table's word: the camera cannot see {end}" in table.lines
    assert table.session.unseen_landing(table.last_observation) is None


def test_a_tie_answered_by_a_move_out_of_sight_is_checked_when_seen(tmp_path: Path) -> None:
    """Which of two moves: the answer tells the move, not where its ship was set down under
    the cloud; it stays provisional, checked once seen (and asked before the spin)."""
    table, move = _answer_with_landing_hidden(tmp_path, one=False)
    assert [p.move for p in table.session.provisional] == [move]
    item = table.session.unseen_landing(table.last_observation)
    assert item is not None and item.move == move
