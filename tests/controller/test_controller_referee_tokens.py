"""Ties the colours cannot settle: a dock and a bump of an own ship back into the same port
with the same die. With the die on the table they are asked; with the virtual die the roll
tells the player to leave a ship landed on, and the first board after it is read as told
(rendered boards)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence

import pytest
from referee_helpers import BESIDE_MM, Camera

from bermuda_hw.controller.referee import (
    MOVED_CLEAR_MM,
    MOVED_MM,
    MOVED_SEEN,
    Outcome,
    judge,
    same_board_bumps,
    token_shift,
)
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import consequence, contents
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.cover import hidden_circles, observability
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation

SET_DOWN_MM = 6.0  # a ship set down beside the one it bumps stands this far across its space


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def after(game: Game, move: Move, die: int) -> Game:
    done = game.copy()
    done.set_die(die)
    done.push(move)
    return done


def dock_or_bump(board: Board) -> tuple[Game, str, str]:
    """Yellow to move with a 1: yellow-1 on x beside SUGAR docks there, or lands on yellow-2
    (from SUGAR) one space further on, z, which goes back to SUGAR: the same colours on every
    place either way."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    for ship in game.ships("yellow"):
        game.set_ship(ship.id, None)
    x = sorted(board.neighbours("SUGAR") - set(board.ports))[0]
    z = sorted(s for s in board.neighbours(x) if s not in board.ports)[0]
    game.set_ship("yellow-1", x, "SUGAR")
    game.set_ship("yellow-2", z, "SUGAR")
    game.set_turn("yellow")
    return game, x, z


def look(camera: Camera, game: Game, places: Mapping[str, Sequence[str]] | None = None,
         nudge: Mapping[str, float] = {}) -> BoardObservation:
    """A fresh stable observation of a board (reported even if its ships read as before)."""
    camera.forget()
    return camera.game(game, places, nudge=nudge)


Position = tuple[Game, str, str, BoardObservation, Camera]


@pytest.fixture(scope="module")
def position(board: Board) -> Position:
    game, x, z = dock_or_bump(board)
    camera = Camera(board)
    return game, x, z, camera.game(game), camera


def boards(board: Board, position: Position) -> dict[str, BoardObservation]:
    """The boards the turn may leave, rendered: the dock; the bump with its ship back and
    the mover set down where the bumped ship stood, or beside it; the bump with its ship
    still beside the mover; the mover lifted and nothing else."""
    game, x, z, _, camera = position
    dock = contents(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    landing = {p: list(c) for p, c in contents(game).items()}
    landing.pop(x)
    landing[z] = ["yellow", "yellow"]
    lifted = {p: list(c) for p, c in contents(game).items()}
    lifted.pop(x)
    return {
        "dock": look(camera, game, dock),
        "back, on the spot": look(camera, game, dock),
        "back, beside": look(camera, game, dock, nudge={z: SET_DOWN_MM}),
        # the bumped ship where it stood, the mover set down beside it
        "landing": look(camera, game, landing, nudge={z: BESIDE_MM / 2}),
        "lifted": look(camera, game, lifted),
    }


@pytest.fixture(scope="module")
def seen(board: Board, position: Position) -> dict[str, BoardObservation]:
    return boards(board, position)


def test_the_same_board_is_known_from_the_die(board: Board) -> None:
    game, x, z = dock_or_bump(board)
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    assert contents(dock) == contents(bump) and consequence(dock) != consequence(bump)
    assert same_board_bumps(game, 1) == {z}
    # with a 4 the ship cannot land on z: nothing looks like the dock
    assert same_board_bumps(game, 4) == frozenset()


def test_a_token_set_down_off_where_it_stood_is_read_elsewhere(
        board: Board, position: Position) -> None:
    game, _, z, before, camera = position
    for side in (SET_DOWN_MM, -SET_DOWN_MM):
        shift = token_shift(board, before, look(camera, game, nudge={z: side}), z)
        assert shift is not None and shift >= MOVED_MM, side
    for still in (0.0, 0.5):
        shift = token_shift(board, before, look(camera, game, nudge={z: still}), z)
        assert shift is not None and shift < MOVED_MM, still


def test_a_new_ship_beside_a_space_leaves_its_token_unjudged(board: Board) -> None:
    """A ship set down near a space can pull the reading of the one on it: that space is not
    judged."""
    a, b = next((s.id, t.id) for s in board.spaces.values() for t in board.spaces.values()
                if s.kind == t.kind == "path" and s.id != t.id
                and math.dist(s.position, t.position) < MOVED_CLEAR_MM)
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    game.set_ship("yellow-1", a, "SUGAR")
    camera = Camera(board)
    before = camera.game(game)
    places = {p: list(c) for p, c in contents(game).items()}
    shift = token_shift(board, before, look(camera, game, places, nudge={a: SET_DOWN_MM}), a)
    assert shift is not None and shift >= MOVED_MM
    places[b] = ["blue"]
    assert token_shift(board, before, look(camera, game, places, nudge={a: SET_DOWN_MM}),
                       a) is None


def test_a_token_in_the_clouds_rim_is_not_judged(board: Board) -> None:
    """A ship in the cloud's rim band is read, but only partly seen: where it is read can
    move with the cloud's cover, so its token is not judged."""
    for col, row in board.grid.dots():
        circles = hidden_circles(board, board.grid.dot_mm(col, row))
        game = Game.new(2, seed=1, board=board, first_player="yellow")
        game.set_cloud(CloudPose(col, row, 0))
        rim = [s.id for s in board.spaces.values() if s.kind == "path"
               and s.id not in game.blocked
               and 0.2 < observability(s.x_mm, s.y_mm, circles) < MOVED_SEEN - 0.1]
        if rim:
            break
    else:
        pytest.fail("no space in a cloud's rim band")
    space = rim[0]
    game.set_ship("yellow-1", space, "SUGAR")
    camera = Camera(board)
    before = camera.game(game)
    seen = look(camera, game, nudge={space: SET_DOWN_MM})
    was, now = before.ships_at(space), seen.ships_at(space)
    assert was and now  # read on both boards, and read elsewhere
    assert math.dist((was[0].x_mm, was[0].y_mm), (now[0].x_mm, now[0].y_mm)) >= MOVED_MM
    assert token_shift(board, before, seen, space) is None


def test_with_nothing_told_the_tokens_decide_nothing(
        board: Board, position: Position, seen: dict[str, BoardObservation]) -> None:
    """The dock and the bump with its ship back: a tie, whether or not the token on the
    landing space moved (a nudge before a dock moves it too), and with or without the die."""
    game, x, z, before, _ = position
    dock = consequence(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    for name in ("dock", "back, beside"):
        for dice in (None, frozenset({1})):
            verdict = judge(game, seen[name], dice, reference=before)
            assert verdict.outcome is Outcome.TIE, (name, dice)
            assert {dock, bump} <= {g.consequence for g in verdict.tied}


def test_the_first_board_after_the_roll_is_read_as_told(
        board: Board, position: Position, seen: dict[str, BoardObservation]) -> None:
    """Told to leave a ship landed on at z: the ship still beside the mover is the bump (at
    once, no put-back asked first); the ship back already with z's token where it stood is
    the dock; anything else stays a question or waits."""
    game, x, z, before, _ = position
    dock = consequence(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    one, held = frozenset({1}), frozenset({z})

    verdict = judge(game, seen["landing"], one, reference=before, held=held)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == bump and verdict.told

    verdict = judge(game, seen["dock"], one, reference=before, held=held)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == dock and not verdict.told

    # the ship back already and the mover set down beside where it stood: the player did
    # not wait, or nudged the token before docking; asked
    verdict = judge(game, seen["back, beside"], one, reference=before, held=held)
    assert verdict.outcome is Outcome.TIE
    assert {dock, bump} <= {g.consequence for g in verdict.tied}

    # the mover lifted, nothing else: not what was told of either move; never the bump
    verdict = judge(game, seen["lifted"], one, reference=before, held=held)
    assert not verdict.told
    assert verdict.outcome is not Outcome.MOVE or verdict.accepted is None \
        or verdict.accepted.consequence != dock

    # without the board before, nothing is read as told
    for name in ("landing", "dock"):
        assert not judge(game, seen[name], one, held=held).told
    assert judge(game, seen["dock"], one, held=held).outcome is Outcome.TIE


def rim_port_positions(board: Board) -> Iterator[tuple[Game, str, str, str]]:
    """`dock_or_bump` at any port with a berth in the cloud's rim band, the port still
    enterable and both spaces in clear view: (game, x, z, port)."""
    for port in sorted(board.ports):
        for col, row in board.grid.dots():
            circles = hidden_circles(board, board.grid.dot_mm(col, row))
            seen = [observability(bx, by, circles) for bx, by in board.ports[port].berths]
            if not 0.0 < min(seen) < MOVED_SEEN:
                continue
            for x in sorted(board.neighbours(port) - set(board.ports)):
                for z in sorted(s for s in board.neighbours(x) if s not in board.ports):
                    if any(observability(*board.spaces[s].position, circles) < 1.0
                           for s in (x, z)):
                        continue
                    game = Game.new(2, seed=1, board=board, first_player="yellow")
                    game.set_cloud(CloudPose(col, row, 0))
                    for ship in game.ships("yellow"):
                        game.set_ship(ship.id, None)
                    game.set_ship("yellow-1", x, port)
                    game.set_ship("yellow-2", z, port)
                    game.set_turn("yellow")
                    if z in same_board_bumps(game, 1):
                        yield game, x, z, port


def test_a_port_not_seen_well_is_not_read_as_the_dock(board: Board) -> None:
    """The ship back already, but a berth of its port in the cloud's rim: the port's new
    ship may not show, so the board is not taken as the dock."""
    found = next(rim_port_positions(board), None)
    assert found is not None, "no cloud pose leaves a port in the rim band, enterable"
    game, x, z, port = found
    camera = Camera(board)
    before = camera.game(game)
    dock = after(game, Move("yellow-1", (x, port)), 1)
    verdict = judge(game, look(camera, game, contents(dock)), frozenset({1}),
                    reference=before, held=frozenset({z}))
    assert not (verdict.outcome is Outcome.MOVE and verdict.accepted is not None
                and verdict.accepted.consequence == consequence(dock)), verdict
