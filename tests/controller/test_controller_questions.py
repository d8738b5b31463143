"""The controller knows the die or asks: a virtual die rolled by a press, a question answered
by presses, a long press that accepts the board as seen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from synthetic import set_dock_or_bump
from table_helpers import set_out

from bermuda_hw.controller import announce
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.rules.candidates import candidates
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.record import to_dict

MakeTable = Callable[..., Any]


def test_a_press_rolls_the_virtual_die(make_table: MakeTable) -> None:
    table = make_table(with_players=False, options=GameOptions(die="virtual"))
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    seq = c.status.seq
    table.press()
    table.steps(1)
    game = c.game
    assert c.status.die is not None and c.status.seq > seq
    assert game.journal[-1] == {"roll": c.status.die, "engine": True} or game.journal[-2] == {
        "roll": c.status.die,
        "engine": True,
    }
    assert f"rolls {c.status.die}" in "\n".join(table.log)
    # a second press does not roll again
    die = c.status.die
    table.press()
    table.steps(1)
    assert c.status.die == die
    assert sum(1 for e in game.journal if "roll" in e) == 1


def _dock_or_bump(table: Any) -> tuple[Move, str]:
    """Yellow to move: yellow-1 beside SUGAR, yellow-2 (from SUGAR) one step further on."""
    c = table.controller
    game: Game = c.game
    x, _ = set_dock_or_bump(game)
    c._commit()
    return Move("yellow-1", (x, "SUGAR")), x


def _asked(table: Any) -> Move:
    """Yellow docks at SUGAR, a board a bump with a 1 leaves too: the controller asks."""
    dock, _ = _dock_or_bump(table)
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    free = [
        b
        for b in table.board.ports["SUGAR"].berths
        if all(
            abs(b[0] - p[0]) + abs(b[1] - p[1]) > 4 for p in table.world.ship_positions().values()
        )
    ]
    table.world.place_ship("yellow-1", *free[0])
    table.run_until(lambda: table.mode() is Mode.ASK, limit=60)
    return dock


def test_a_tie_is_asked_and_answered_by_presses(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    dock = _asked(table)
    question = c.status.question
    assert question is not None and question.text.startswith("yellow:")
    option = next(k for k, moves in enumerate(question.moves, 1) if str(dock) in moves)
    before = c.game.totals()["yellow"]
    for _ in range(option):
        table.press()
    table.run_until(lambda: table.mode() is not Mode.ASK, limit=80)  # the button rests
    assert c.status.question is None
    assert any(e.get("move") == str(dock) for e in c.game.journal)
    assert c.game.totals()["yellow"] > before  # the sugar card


def test_the_page_answers_too(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    dock = _asked(table)
    question = c.status.question
    assert question is not None
    other = next(k for k, moves in enumerate(question.moves, 1) if str(dock) not in moves)
    c.answer(other)
    table.steps(1)
    assert c.status.question is None
    assert not any(e.get("move") == str(dock) for e in c.game.journal)


def test_the_page_s_answer_action_takes_the_option_s_text(make_table: MakeTable) -> None:
    """The page sends the option it shows; a wrong option is refused and changes nothing."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    dock = _asked(table)
    question = c.status.question
    assert question is not None
    refused = c.commands.submit("answer", {"option": "not an option"})
    table.steps(1)
    assert refused.exception() is not None and c.status.mode is Mode.ASK
    k = next(k for k, moves in enumerate(question.moves, 1) if str(dock) in moves)
    done = c.commands.submit("answer", {"option": question.options[k - 1]})
    table.steps(2)
    assert done.result() == f"answered: {question.options[k - 1]}"
    assert any(e.get("move") == str(dock) for e in c.game.journal)


def test_a_long_press_accepts_the_board_after_failed_fixes(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    # a ship of the player who is not to move stands on S16, and stays there: each attempt
    # lifts it and puts it down on S16 again
    other = next(p for p in c.game.players if p != c.game.active)
    sid = next(s.id for s in c.game.ships(other))
    space = table.board.spaces["S16"]
    table.world.place_ship(sid, space.x_mm, space.y_mm)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=60)
    assert not c.accept_board()  # not before the fix has been asked for a few times
    for _ in range(3):
        table.world.remove(sid)
        table.steps(6)
        table.world.place_ship(sid, space.x_mm, space.y_mm)
        table.steps(6)
    assert c.status.fix_attempts >= 3
    assert "hold the spin button" in c.status.message
    assert c.accept_board()
    assert c.game.ship(sid).location == "S16"
    assert any(e.get("set-ship") == sid for e in c.game.journal)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)


def test_a_provisional_move_the_board_contradicts_is_rewound(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    game: Game = c.game
    before = list(game.journal)
    move = next(m for m in game.legal_moves(3) if m.end not in table.board.ports)
    cand = next(x for x in candidates(game, frozenset({3})) if x.move == move)
    # the token went where the camera could not see (so the move was taken unseen) ...
    token = next(s for s in game.ships_at(move.start) if s == move.ship)
    table.world.remove(token)
    c.checks.apply(cand, (move.end,))
    c._commit()
    assert c.status.provisional == (str(move),)
    stored = table.journal.load(table.board)
    assert stored is not None and stored[1].journal[-1].get("provisional") == [move.end]
    # ... and when the place is in view, it is empty: the game goes back to before the move
    c.rig.forget()
    table.run_until(lambda: c.game.journal == before, limit=30)
    assert table.mode() in (Mode.SETUP, Mode.FIX)
    assert any("was not made" in line for line in table.log)
    stored = table.journal.load(table.board)
    assert stored is not None and to_dict(stored[1]) == to_dict(c.game)
    assert c.status.provisional == ()


def test_with_the_virtual_die_no_move_before_the_roll(make_table: MakeTable) -> None:
    table = make_table(with_players=False, options=GameOptions(die="virtual"))
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    game: Game = c.game
    move = game.legal_moves(2)[0]
    x, y = table.board.spaces[move.end].position
    table.world.place_ship(move.ship, x, y)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=40)
    assert c.status.question is None
    assert not any("move" in e for e in game.journal)


def test_a_ship_gone_while_the_board_is_checked_is_a_fix_never_a_move(
    make_table: MakeTable,
) -> None:
    """4 players, seed 3, round 4: on its way back to the centre the cloud's magnets took
    green-4 from LUMBER; checking the board, the referee took "green-4 LUMBER-S07-S08, the
    bumped red ship still on S08 on top of it", a move nobody made."""
    table = make_table(with_players=False)
    c = table.controller
    game: Game = c.game
    active = game.active
    found = None
    for die in range(1, 7):
        for move in game.legal_moves(die):
            end = move.end
            if move.is_pass or end is None or end in table.board.ports or move.steps < die:
                continue
            found = (move, die)
            break
        if found:
            break
    assert found is not None
    move, die = found
    other = next(s for s in game.ships() if s.color != active and s.location is not None)
    game.set_ship(other.id, move.end)
    assert move in game.legal_moves(die)
    c._commit()
    set_out(table)
    table.world.remove(move.ship)
    table.run_until(lambda: c.status.fix is not None, limit=120)
    table.steps(20)
    assert not any("move" in entry for entry in c.game.journal), table.log
    assert table.mode() is Mode.SETUP
    assert c.status.fix is not None and (active, move.start) in c.status.fix.missing


def _moves(c: Any) -> int:
    return sum(1 for e in c.game.journal if "move" in e)


def test_none_of_these_takes_nothing_and_asks_for_the_board_as_the_game_has_it(
    make_table: MakeTable,
) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    _asked(table)
    question = c.status.question
    assert question is not None and question.options[-2:] == (NONE_OF_THESE, NOT_YET)
    made = _moves(c)
    c.answer(question.options.index(NONE_OF_THESE) + 1)
    table.steps(2)
    assert _moves(c) == made and c.status.question is None
    assert table.mode() is Mode.FIX and "none of these" in c.status.message
    assert "SUGAR" in c.status.message  # the ship the game has elsewhere, named


def test_not_yet_takes_nothing_and_asks_again_only_for_a_changed_board(
    make_table: MakeTable,
) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    _asked(table)
    question = c.status.question
    assert question is not None
    made = _moves(c)
    c.answer(question.options.index(NOT_YET) + 1)
    table.steps(60)  # the same board, read again and again
    assert _moves(c) == made and table.mode() is not Mode.ASK
    assert "finish your move" in c.status.message
    # the ship set down again elsewhere in its port: a new board, judged (and asked) anew
    c.rig.forget()
    table.steps(10)
    assert table.mode() is Mode.ASK or _moves(c) == made


def test_an_unanswered_question_is_said_again_and_nothing_is_taken(
    make_table: MakeTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    repeat_s = 4.0  # REPEAT_S shortened: the same rule, a shorter run of frames
    monkeypatch.setattr(announce, "REPEAT_S", repeat_s)
    table = make_table(with_players=False, seed=1)
    c = table.controller
    _asked(table)
    made = _moves(c)
    start = c.clock.monotonic()
    table.run_until(lambda: c.clock.monotonic() - start > 2.5 * repeat_s, limit=4000)
    assert table.mode() is Mode.ASK and _moves(c) == made
    again = [line for line in table.log if line.startswith("still waiting for an answer")]
    assert len(again) >= 2 and "none of these" in again[0]


def test_a_not_yet_on_a_board_left_as_it_was_is_asked_again_and_nothing_is_taken(
    make_table: MakeTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    repeat_s = 4.0  # REPEAT_S shortened: the same rule, a shorter run of frames
    monkeypatch.setattr(announce, "REPEAT_S", repeat_s)
    table = make_table(with_players=False, seed=1)
    c = table.controller
    _asked(table)
    question = c.status.question
    assert question is not None
    made = _moves(c)
    c.answer(question.options.index(NOT_YET) + 1)
    table.steps(2)
    # the move is under way: the game waits, the board may differ from it meanwhile
    assert table.mode() is Mode.READY and c.status.unfinished
    assert c.snapshot is not None and c.snapshot.status["unfinished"] is True
    start = c.clock.monotonic()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=4000)
    # the board never changed: the same question again once REPEAT_S passed, no move taken
    assert c.clock.monotonic() - start >= repeat_s - 1.0
    assert _moves(c) == made and not c.status.unfinished
    again = c.status.question
    assert again is not None and again.options == question.options


def test_a_press_after_not_yet_asks_again_at_once_and_never_passes(
    make_table: MakeTable,
) -> None:
    """After "not yet", a press of spin says the move is done (a ship set down where the
    camera cannot see leaves the board as it was; here the board is left as it was): the
    board is judged again at once (the same question), and the press is no pass."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    _asked(table)
    question = c.status.question
    assert question is not None
    made, entries = _moves(c), len(c.game.journal)
    c.answer(question.options.index(NOT_YET) + 1)
    table.steps(2)
    assert table.mode() is Mode.READY and c.status.unfinished
    assert "then press spin" in c.status.message
    start = c.clock.monotonic()
    c.press()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=200)
    assert c.clock.monotonic() - start < 5.0  # at once, not after REPEAT_S
    assert _moves(c) == made and not c.status.unfinished
    again = c.status.question
    assert again is not None and again.options == question.options
    assert len(c.game.journal) == entries  # no pass, nothing taken
