"""A ship bumped back into a port the cloud covers, left beside the mover on the landing
space: the camera cannot see the port, and the readings show one ship per place, so only
the landing place's evidence tells. The players are asked to put it back, and the board is
read again while they do, though its ships read the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from referee_helpers import Camera
from table_helpers import put_in_port, set_out_seen, taken_moves

from bermuda_hw.controller.asking import PUTBACK_GIVE_UP_S
from bermuda_hw.controller.buttons import REACTION_S
from bermuda_hw.controller.identify import difference
from bermuda_hw.controller.referee import bumped_beside
from bermuda_hw.controller.status import Mode
from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.cover import hidden_circles, observability
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation

MakeTable = Callable[..., Any]


def covered_port(board: Board) -> tuple[CloudPose, str, list[str]]:
    """A cloud pose whose cloud hides every berth of a port, and the path spaces in clear view
    then."""
    for port in sorted(board.ports):
        for col, row in board.grid.dots():
            circles = hidden_circles(board, board.grid.dot_mm(col, row))
            if any(observability(x, y, circles) > 0.0 for x, y in board.ports[port].berths):
                continue
            clear = [
                s.id
                for s in board.spaces.values()
                if s.kind == "path" and observability(s.x_mm, s.y_mm, circles) >= 1.0
            ]
            if clear:
                return CloudPose(col, row, 0), port, clear
    raise AssertionError("no dot whose cloud covers a port")


def bump_into_covered_port(game: Game) -> tuple[Move, str, str]:
    """With the cloud over a port P: the active player's ship set where a 2 takes it onto
    the next player's ship, whose previous port is P. Returns (the move, that ship, P)."""
    board = game.board
    pose, port, clear = covered_port(board)
    game.set_cloud(pose)
    mover = game.active
    other = next(c for c in game.players if c != mover)
    ship, bumped = game.ships(mover)[0].id, game.ships(other)[0].id
    for start in clear:
        if game.ships_at(start):
            continue
        game.set_ship(ship, start)
        for move in game.legal_moves(2):
            if move.ship != ship or move.end not in clear or game.ships_at(move.end):
                continue
            game.set_ship(bumped, move.end, previous_port=port)
            game.set_turn(mover)
            game.set_die(2)
            if move in game.legal_moves(2):
                return move, bumped, port
            game.set_ship(bumped, None)
    raise AssertionError("no bump into the covered port")


def beside_the_bumped(board: Board, move: Move) -> tuple[float, float]:
    assert move.end is not None
    s = board.spaces[move.end]
    ux, uy = heading_vector(s.heading_deg + 90.0)
    return (s.x_mm + 6.0 * ux, s.y_mm + 6.0 * uy)


def left_beside(game: Game, move: Move, bumped: str) -> tuple[Game, BoardObservation]:
    """The game after the bump, and the board with the bumped ship left beside the mover on
    the landing space (the mover on top) instead of in its port."""
    done = game.copy()
    done.push(move)
    port = done.ship(bumped).location
    assert move.end is not None and port is not None
    places = {p: list(c) for p, c in contents(done).items()}
    places[port].remove(game.ship(bumped).color)
    places[move.end] = [game.ship(bumped).color, game.active]
    return done, Camera(game.board).game(done, places)


def test_the_evidence_of_a_ship_left_beside_the_mover(board: Board) -> None:
    """The landing space's evidence shows the bumped ship's colour beside the mover on top;
    once it is back (under the cloud), nothing is left to ask."""
    game = Game.new(2, seed=1, board=board)
    move, bumped, port = bump_into_covered_port(game)
    done, seen = left_beside(game, move, bumped)
    assert done.ship(bumped).location == port and move.end is not None
    assert port in seen.hidden_spaces
    assert not difference(done, seen)  # one ship per place: the readings show nothing
    diff = bumped_beside(done, seen, move.end, (bumped,))
    assert diff.missing == ((game.ship(bumped).color, port),)
    assert diff.extra == ((game.ship(bumped).color, move.end),)
    assert not bumped_beside(done, Camera(board).game(done), move.end, (bumped,))


def _made(table: Any) -> tuple[Move, str, str]:
    """The bump made on the table, the bumped ship left where it was."""
    c = table.controller
    move, bumped, port = bump_into_covered_port(c.game)
    assert c._commit()
    c.rig.place_cloud(c.game)
    set_out_seen(table)
    table.world.place_ship(move.ship, *beside_the_bumped(table.board, move))
    return move, bumped, port


def _asked_back(make_table: MakeTable, **options: Any) -> tuple[Any, Move, str, str]:
    """A table whose bump was taken, its bumped ship left beside the mover and asked back
    into the port the cloud covers: the table, the move, that ship and its port."""
    table = make_table(with_players=False, seed=1, **options)
    c = table.controller
    before = len(taken_moves(c))
    move, bumped, port = _made(table)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    table.run_until(lambda: table.mode() is Mode.FIX and c.status.back_unseen, limit=40)
    assert c.status.back_unseen
    return table, move, bumped, port


def test_the_players_are_asked_and_the_board_read_again(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1)
    c = table.controller
    before = len(taken_moves(c))
    move, bumped, port = _made(table)
    color = c.game.ship(bumped).color
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(move)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=40)
    fix = c.status.fix
    assert fix is not None and fix.missing == ((color, port),)
    assert f"the cloud covers {port}" in c.status.message
    attempts = c.status.fix_attempts
    table.steps(30)  # read again and again while nobody acts: one ask
    assert table.mode() is Mode.FIX and c.status.fix_attempts == attempts
    put_in_port(table, bumped, port)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    assert c.status.fix is None


def test_a_board_that_keeps_showing_it_waits_for_the_tables_word(make_table: MakeTable) -> None:
    """The ship is back in its port but the landing still reads it beside the mover (or
    nobody acts): waiting tells nothing, so the fix stands however long the board reads
    so; a press of spin is the table's word that the ship is back, and the game goes on
    with the record as it was."""
    table, move, bumped, port = _asked_back(make_table)
    c = table.controller
    assert "if it is back there already, press spin" in c.status.message
    journal = list(c.game.journal)
    asked = c.clock.monotonic()
    # two minutes of the same board, a frame a second: the fix stands, nothing is taken
    table.sparse_steps(120, 1.0)
    assert c.clock.monotonic() - asked >= 2 * PUTBACK_GIVE_UP_S - 1.0
    assert table.mode() is Mode.FIX and c.status.back_unseen
    assert c.game.journal == journal
    c.press()
    table.run_until(lambda: table.mode() is Mode.READY, limit=40)
    assert c.game.journal == journal and not c.status.back_unseen
    assert c.game.ship(bumped).location == port
    said = [line for line in table.log if "on the table's word" in line]
    assert said and port in said[-1] and move.end in said[-1]
    # the landing's evidence is not asked about again for this move
    table.steps(20)
    assert table.mode() is Mode.READY


def test_a_press_while_the_ship_is_not_asked_back_is_refused(make_table: MakeTable) -> None:
    """A press while the table asks for another fix changes nothing: only the fix of a
    ship asked back where the camera cannot see is settled by the table's word."""
    table, move, _bumped, _port = _asked_back(make_table)
    c = table.controller
    # the mover lifted off the landing space: another fix
    table.world.remove(move.ship)
    table.run_until(lambda: not c.status.back_unseen, limit=60)
    assert table.mode() is Mode.FIX
    journal = list(c.game.journal)
    table.sparse_steps(2, REACTION_S)  # a press made for this fix, not for the one before
    c.press()
    table.steps(5)
    assert table.mode() is Mode.FIX and c.game.journal == journal
    assert any("fix the board first" in line for line in table.log)


def test_a_ship_of_the_movers_colour_is_not_asked_for(board: Board) -> None:
    """A bumped ship of the mover's colour cannot be told from the mover: the same evidence
    asks for no ship of that colour."""
    game = Game.new(2, seed=1, board=board)
    move, bumped, port = bump_into_covered_port(game)
    done, seen = left_beside(game, move, bumped)
    mine = next(s.id for s in done.ships(game.active) if s.id != move.ship)
    done.set_ship(mine, port, previous_port=port)
    assert bumped_beside(done, seen, move.end, (bumped,))
    assert not bumped_beside(done, seen, move.end, (mine,))


def test_a_port_in_view_is_left_to_the_difference(board: Board) -> None:
    """With the port in view, the ship missing there is an ordinary difference: the
    evidence check adds nothing."""
    game = Game.new(2, seed=1, board=board)
    move, bumped, port = bump_into_covered_port(game)
    game.set_cloud(CloudPose(*board.grid.centre, 0))
    assert move in game.legal_moves(2)
    done, seen = left_beside(game, move, bumped)
    assert port not in seen.hidden_spaces
    assert difference(done, seen).missing == ((game.ship(bumped).color, port),)
    assert not bumped_beside(done, seen, move.end, (bumped,))


@pytest.mark.parametrize(
    ("die", "lag"), [("table", 0), ("virtual", 0), ("virtual", 3), ("table", 6)]
)
def test_a_press_as_the_board_settles_is_not_taken_for_what_comes_next(
    make_table: MakeTable, die: str, lag: int
) -> None:
    """The ship is put back and the button pressed while the frame that shows it is read,
    or `lag` frames later (within `REACTION_S`): the press was made for the fix, so it is
    neither a pass (refused or not) nor a roll of the next turn; the table says so."""
    table, _move, bumped, port = _asked_back(make_table, options=GameOptions(die=die))
    c = table.controller
    journal = list(c.game.journal)
    stream = c.rig.stream
    read = stream.step
    frames: list[int] = []  # since the board that shows the ship back was read

    def pressed_while_read() -> Any:
        seen = read()
        if seen is not None and not frames:
            frames.append(0)
        elif frames:
            frames[0] += 1
        if frames and frames[0] == lag:
            c.press()  # the button goes down `lag` frames after the board is read
        return seen

    stream.step = pressed_while_read
    put_in_port(table, bumped, port)
    table.run_until(lambda: table.mode() is Mode.READY, limit=60)
    table.steps(lag + 3)
    assert c.clock.monotonic() - c.button.pressed_s < REACTION_S
    assert c.game.journal == journal and table.mode() is Mode.READY
    assert c.game.die is None and not any("cannot pass" in line for line in table.log)
    assert any("a press as the table changed is not taken" in line for line in table.log)
