"""Ties the colours cannot settle, settled by the tokens: a ship set down elsewhere on its
space, and the ship landed on that the player was told to leave (rendered boards)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from referee_helpers import Camera

from bermuda_hw.controller.referee import (
    MOVED_CLEAR_MM,
    MOVED_MM,
    MOVED_SEEN,
    Outcome,
    judge,
    moved_spaces,
    same_board_bumps,
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


@pytest.fixture(scope="module")
def position(board: Board) -> tuple[Game, str, str, BoardObservation, Camera]:
    game, x, z = dock_or_bump(board)
    camera = Camera(board)
    return game, x, z, camera.game(game), camera


def test_the_same_board_is_known_from_the_die(board: Board) -> None:
    game, x, z = dock_or_bump(board)
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    assert contents(dock) == contents(bump) and consequence(dock) != consequence(bump)
    assert same_board_bumps(game, 1) == {z}
    # with a 4 the ship cannot land on z: nothing looks like the dock
    assert same_board_bumps(game, 4) == frozenset()


def test_a_token_set_down_off_where_it_stood_is_moved(
        board: Board, position: tuple[Game, str, str, BoardObservation, Camera]) -> None:
    game, _, z, before, camera = position
    for side in (SET_DOWN_MM, -SET_DOWN_MM):
        seen = look(camera, game, nudge={z: side})
        assert moved_spaces(board, before, seen) == {z}, side
    # a token read where it stood, and one barely pushed, did not move
    assert moved_spaces(board, before, look(camera, game)) == frozenset()
    assert moved_spaces(board, before, look(camera, game, nudge={z: 0.5})) == frozenset()


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
    assert look(camera, game, places, nudge={a: SET_DOWN_MM}).ships_at(a)
    assert moved_spaces(board, before, look(camera, game, places, nudge={a: SET_DOWN_MM})) \
        == {a}
    places[b] = ["blue"]
    assert a not in moved_spaces(board, before, look(camera, game, places,
                                                     nudge={a: SET_DOWN_MM}))


def test_the_bump_shows_in_its_token_put_down_elsewhere(
        board: Board, position: tuple[Game, str, str, BoardObservation, Camera]) -> None:
    game, x, z, before, camera = position
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    one = frozenset({1})
    unmoved = look(camera, game, contents(dock))
    # the colours alone: a tie, with or without the board before
    for reference in (None, before):
        verdict = judge(game, unmoved, one, reference=reference)
        assert verdict.outcome is Outcome.TIE
        assert {g.consequence for g in verdict.tied} == {consequence(dock), consequence(bump)}
    # the ship on z set down elsewhere than yellow-2 stood: the dock does not touch z
    moved = look(camera, game, contents(bump), nudge={z: SET_DOWN_MM})
    verdict = judge(game, moved, one, reference=before)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(bump)
    # without the board before, it cannot tell
    assert judge(game, moved, one).outcome is Outcome.TIE


def test_a_ship_landed_on_left_there_as_told_tells_the_dock(
        board: Board, position: tuple[Game, str, str, BoardObservation, Camera]) -> None:
    """Told to leave a ship landed on at z, a player who bumped shows it there first: the
    board with it back already and z's token where it stood is the dock; one with z's token
    set down elsewhere is still the bump (the player did not wait)."""
    game, x, z, before, camera = position
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    one, held = frozenset({1}), frozenset({z})
    unmoved = look(camera, game, contents(dock))
    verdict = judge(game, unmoved, one, reference=before, held=held)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(dock)
    moved = look(camera, game, contents(bump), nudge={z: SET_DOWN_MM})
    verdict = judge(game, moved, one, reference=before, held=held)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(bump)
    # without the board before, the token cannot be judged: still a tie
    assert judge(game, unmoved, one, held=held).outcome is Outcome.TIE


def test_the_die_unknown_keeps_the_other_ties(
        board: Board, position: tuple[Game, str, str, BoardObservation, Camera]) -> None:
    """With the die unknown, the docks of every die are one group (one consequence), which
    touches z no more than the dock with a 1: the bump is taken from the moved token."""
    game, x, z, before, camera = position
    bump = after(game, Move("yellow-1", (x, z)), 1)
    moved = look(camera, game, contents(bump), nudge={z: SET_DOWN_MM})
    verdict = judge(game, moved, reference=before)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(bump)


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
    assert space not in moved_spaces(board, before, seen)
