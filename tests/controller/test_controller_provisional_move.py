"""A move taken into a place the camera cannot see, from a board that showed only where the
ship had left (held in a hand, or misread for a stable run): once the board shows the ship
where another move of that turn took it, that move replaces it, and the ship moves made
since are replayed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import set_out, set_out_ready

from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move

MakeTable = Callable[..., Any]


def _out_of_sight_or_in_view(table: Any, occupied: str | None = None) -> tuple[Move, Move]:
    """The active player's ship on a space from which the die rolled takes it into exactly
    one place the cloud hides, or onto a free space in plain view (with `occupied`, onto
    that ship of another player, which the move bumps): (into, onto)."""
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    a = game.ships(color)[0].id
    paths = sorted(s for s in board.spaces if s not in board.ports)
    for die in range(1, 7):
        for start in paths:
            if start in hidden or game.ships_at(start):
                continue
            game.set_ship(a, start)
            moves = [m for m in game.legal_moves(die) if m.ship == a]
            into = [m for m in moves if m.end in hidden and m.end not in game.blocked]
            onto = [
                m
                for m in moves
                if m.end not in hidden and m.end in paths and not game.ships_at(m.end)
            ]
            if len(into) == 1 and into[0].end in paths and onto:
                if occupied is not None:
                    game.set_ship(occupied, onto[0].end)
                    if not any(m.end == onto[0].end for m in game.legal_moves(die)):
                        continue
                game.set_turn(color)
                game.set_die(die)
                assert c._commit()
                set_out(table)
                table.run_until(lambda: table.mode() is Mode.READY, limit=80)
                return into[0], onto[0]
    pytest.fail("no such position with the cloud at its start")


def _moves(c: Any) -> list[str]:
    return [str(e["move"]) for e in c.game.journal if "move" in e]


def _lift(table: Any, into: Move) -> None:
    """The ship lifted off its space: with nothing else changed, the move out of sight
    explains the board, and so does the ship in a hand (or a bump whose ship is not back):
    the table is asked (nothing is taken for a quiet board), and the player names the move
    out of sight, which is taken provisionally."""
    c = table.controller
    table.world.remove(into.ship)
    table.run_until(
        lambda: str(into) in c.status.provisional or table.mode() is Mode.ASK, limit=200
    )
    if table.mode() is Mode.ASK:
        question = c.status.question
        assert question is not None and question.options[-2:] == (NONE_OF_THESE, NOT_YET)
        c.answer(next(k for k, moves in enumerate(question.moves, 1) if str(into) in moves))
        table.run_until(lambda: str(into) in c.status.provisional, limit=20)
    entry = [e for e in c.game.journal if "move" in e][-1]
    assert entry["move"] == str(into) and entry.get("provisional") == [into.end]


def test_the_ship_seen_where_another_move_took_it_corrects_the_move(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    into, onto = _out_of_sight_or_in_view(table)
    _lift(table, into)
    count = len(_moves(c))
    table.world.place_ship(onto.ship, *table.board.spaces[onto.end].position)
    table.run_until(lambda: _moves(c)[-1] == str(onto), limit=200)
    assert len(_moves(c)) == count  # replaced, not added
    assert c.game.ship(onto.ship).location == onto.end
    assert str(into) not in c.status.provisional
    assert any(
        line.startswith(f"{into} is not where the ship went: the board shows {onto}")
        for line in table.log
    ), table.log[-5:]
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert c.status.fix is None and c.status.question is None
    # what the journal stores is the corrected game
    stored = c.journal.stored(c.game_id).record()["journal"]
    assert [e["move"] for e in stored if "move" in e] == _moves(c)


def _next_move(table: Any) -> Move:
    """A move of the next player, with a die rolled for them, from and to places in view."""
    c = table.controller
    observation = c.last_observation
    assert observation is not None
    hidden = observation.hidden_spaces
    for die in range(1, 7):
        free = [
            m
            for m in c.game.legal_moves(die)
            if m.end not in hidden
            and m.end not in table.board.ports
            and not c.game.ships_at(m.end)
            and c.game.ship(m.ship).location not in hidden
        ]
        if free:
            c.game.set_die(die)
            assert c._commit()
            return free[0]
    pytest.fail("the next player has no such move")


def _make(table: Any, move: Move) -> None:
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, *table.board.spaces[move.end].position)


@pytest.mark.parametrize("taken", [True, False])
def test_the_moves_made_since_are_replayed(make_table: MakeTable, taken: bool) -> None:
    """The next player moved in the meantime: their move stays, after the corrected one,
    whether it was taken before the ship showed up or is seen with it."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    into, onto = _out_of_sight_or_in_view(table)
    _lift(table, into)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert c.game.active != into.ship.rpartition("-")[0]
    later = _next_move(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    _make(table, later)
    if taken:
        table.run_until(lambda: _moves(c)[-1] == str(later), limit=200)
    _make(table, onto)
    table.run_until(lambda: _moves(c)[-2:] == [str(onto), str(later)], limit=300)
    assert str(into) not in _moves(c)
    assert c.game.ship(onto.ship).location == onto.end
    assert c.game.ship(later.ship).location == later.end
    assert c.game is not game
    table.run_until(lambda: table.mode() in (Mode.READY, Mode.SPIN), limit=80)
    assert c.status.fix is None and c.status.question is None


def test_a_ship_still_on_the_landing_space_corrects_nothing_until_it_is_back(
    make_table: MakeTable,
) -> None:
    """The ship shows up on a space where another player's ship stands: the move there would
    bump it, but while the bumped ship is still there (the mover may just as well be a
    misread) nothing is corrected; once it is back in its port, the move is."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    other = next(s.id for s in game.ships() if s.color != game.active)
    into, onto = _out_of_sight_or_in_view(table, occupied=other)
    port = c.game.ship(other).previous_port
    _lift(table, into)
    x_mm, y_mm = table.board.spaces[onto.end].position
    table.world.place_ship(onto.ship, x_mm + 6.0, y_mm)
    table.steps(40)
    assert _moves(c)[-1] == str(into) and str(into) in c.status.provisional
    free = next(
        p
        for p in table.board.ports[port].berths
        if all(
            abs(p[0] - q[0]) + abs(p[1] - q[1]) > 4 for q in table.world.ship_positions().values()
        )
    )
    table.world.remove(other)
    table.world.place_ship(other, *free)
    table.run_until(lambda: _moves(c)[-1] == str(onto), limit=200)
    assert c.game.ship(other).location == port
    assert c.game.ship(onto.ship).location == onto.end


def _to_the_spin(table: Any, set_down: bool) -> Move:
    """A move out of sight taken provisionally (its landing beside the cloud, hidden to the
    cloud's model), the other players' moves in view, the table at the spin: the mover's
    token set down on the landing, or still held."""
    c = table.controller
    into, _ = _out_of_sight_or_in_view(table)
    _lift(table, into)
    if set_down:  # on the landing, its edge in view beside the cloud's body
        table.world.place_ship(into.ship, *table.board.spaces[into.end].position)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    for _ in range(3):  # the other players move, in view
        if table.mode() is not Mode.READY:
            break
        later = _next_move(table)
        table.run_until(lambda: table.mode() is Mode.READY, limit=80)
        _make(table, later)
        made = str(later)
        table.run_until(lambda made=made: _moves(c)[-1] == made, limit=200)
        table.run_until(lambda: table.mode() in (Mode.READY, Mode.SPIN), limit=80)
    assert table.mode() is Mode.SPIN and str(into) in c.status.provisional
    return into


def test_a_ship_seen_at_the_clouds_rim_on_its_landing_lets_the_spin_go(
    make_table: MakeTable,
) -> None:
    """The camera sees the token's edge beside the cloud's body on the landing its model
    hides: the move is confirmed there, and a press spins without a question."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    into = _to_the_spin(table, set_down=True)
    pose = c.game.pose
    table.press()
    table.run_until(lambda: c.game.pose != pose or table.mode() is Mode.ASK, limit=400)
    assert c.game.pose != pose and f"seen at the cloud's rim: {into}" in table.log
    assert not any(", before the spin: " in line for line in table.log)
    assert str(into) in _moves(c)


def test_a_spin_asks_first_about_the_landing_and_stable_boards_leave_the_question(
    make_table: MakeTable,
) -> None:
    """The daemon's loop routes the boards seen while the table is asked about a landing
    before the spin to that question: boards that show nothing new (the landing still out
    of sight, or a ship knocked aside) leave it standing and the cloud where it is; "yes"
    lets the next press spin."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    into = _to_the_spin(table, set_down=False)  # still in a hand: nothing at the rim
    pose = c.game.pose
    table.press()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=20)
    question = c.status.question
    assert question is not None and ", before the spin: " in question.text
    assert f"is {into.ship} on {into.end}?" in question.text
    assert question.options[-2:] == (NONE_OF_THESE, NOT_YET)
    seen = c.status.seq
    table.steps(60)
    assert table.mode() is Mode.ASK and c.status.question is question
    assert c.game.pose == pose and c.status.seq == seen  # nothing moved, nothing said
    # a ship knocked off its space meanwhile: the question stands (the board is checked
    # once it is answered), rather than giving way to a fix of the board
    hidden = c.last_observation.hidden_spaces if c.last_observation is not None else ()
    knocked, (x_mm, y_mm) = next(
        (sid, xy)
        for sid, xy in table.world.ship_positions().items()
        if sid != into.ship
        and c.game.ship(sid).location in table.board.spaces
        and c.game.ship(sid).location not in table.board.ports
        and c.game.ship(sid).location not in hidden
    )
    table.world.remove(knocked)
    table.world.place_ship(knocked, x_mm + 30.0, y_mm + 30.0)
    table.steps(60)
    assert table.mode() is Mode.ASK and c.status.question is question
    assert c.status.fix is None
    table.world.remove(knocked)
    table.world.place_ship(knocked, x_mm, y_mm)
    c.answer(1)  # yes: the ship stands where the game has it
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=40)
    assert str(into) not in c.status.provisional
    table.press()
    table.run_until(lambda: c.game.pose != pose or table.mode() is Mode.ASK, limit=400)
    assert table.mode() is not Mode.ASK and c.game.pose != pose
