"""The referee on rendered boards: the rules propose, vision's evidence scores, ties are asked."""

from __future__ import annotations

import pytest
from referee_helpers import Camera
from synthetic import after, set_dock_or_bump

from bermuda_hw.controller.identify import difference
from bermuda_hw.controller.referee import Outcome, judge
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Bump, consequence, contents
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.cover import hidden_circles, observability
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def test_an_unchanged_board_is_no_move(board: Board) -> None:
    game = Game.new(3, seed=2, board=board)
    assert judge(game, Camera(board).game(game)).outcome is Outcome.NONE


def test_a_plain_move_is_taken_with_its_consequence(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    move = game.legal_moves(3)[0]
    done = after(game, move, 3)
    verdict = judge(game, Camera(board).game(game, contents(done)))
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(done)
    assert not verdict.provisional


def test_an_extra_ship_beside_the_move_is_reported_apart(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    move = game.legal_moves(3)[0]
    done = after(game, move, 3)
    stray = next(s for s in ("S16", "S10", "S40") if s not in contents(done))
    places = {**contents(done), stray: ("blue",)}
    seen = Camera(board).game(game, places)
    verdict = judge(game, seen)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(done)
    extra = difference(done, seen)
    assert extra.extra == (("blue", stray),) and not extra.missing
    assert stray in extra.describe()


def test_a_bumped_ship_still_on_the_landing_space(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    target = next(m for m in game.legal_moves(2) if m.end not in board.ports)
    game.set_ship("yellow-1", target.end)
    game.set_turn("blue")
    done = after(game, target, 2)
    landing = {p: list(c) for p, c in contents(done).items()}
    back = done.ship("yellow-1").location
    assert back is not None
    landing[back].remove("yellow")
    landing[target.end] = ["blue", "yellow"]
    verdict = judge(game, Camera(board).game(game, landing))
    assert verdict.outcome in (Outcome.MOVE, Outcome.TIE)
    if verdict.outcome is Outcome.MOVE:
        assert verdict.accepted is not None
        assert verdict.accepted.consequence == consequence(done)
        assert verdict.accepted.best.bump is Bump.LANDING
    else:  # never another consequence alone
        assert consequence(done) in {g.consequence for g in verdict.tied}


def dock_or_bump(board: Board) -> Game:
    """Yellow to move: yellow-1 beside SUGAR, yellow-2 (from SUGAR) one step further on."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    set_dock_or_bump(game)
    return game


def test_dock_or_own_ship_bumped_back_asks_unless_the_die_is_known(board: Board) -> None:
    game = dock_or_bump(board)
    x = game.ship("yellow-1").location
    assert x is not None
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 4)
    seen = Camera(board).game(game, contents(dock))
    verdict = judge(game, seen)
    assert verdict.outcome is Outcome.TIE
    assert consequence(dock) in {g.consequence for g in verdict.tied}
    known = judge(game, seen, frozenset({4}))
    assert known.outcome is Outcome.MOVE and known.accepted is not None
    assert known.accepted.consequence == consequence(dock)


def hidden_destination(board: Board) -> tuple[Game, Move, int]:
    """A position where the active player's ship can move onto a space that the rules leave
    free of the cloud but the camera cannot see (inside the cloud's overhang)."""
    game = Game.new(3, seed=2, board=board, first_player="yellow")
    for col, row in board.grid.dots():
        pose_game = game.copy()
        pose_game.set_cloud(CloudPose(col, row, 0))
        circles = hidden_circles(board, board.grid.dot_mm(col, row))
        for space in board.spaces.values():
            if space.kind != "path" or space.id in pose_game.blocked:
                continue
            if observability(space.x_mm, space.y_mm, circles) > 0.0:
                continue
            for start in sorted(board.neighbours(space.id)):
                if start in board.ports or start in pose_game.blocked:
                    continue
                trial = pose_game.copy()
                trial.set_ship("yellow-1", start)
                trial.set_turn("yellow")
                move = Move("yellow-1", (start, space.id))
                if move in trial.legal_moves(1):
                    return trial, move, 1
    raise AssertionError("no space between the rules' footprint and the hidden zone")


def test_a_hidden_destination_is_never_silently_taken(board: Board) -> None:
    game, move, die = hidden_destination(board)
    done = after(game, move, die)
    verdict = judge(game, Camera(board).game(game, contents(done)))
    assert verdict.outcome is not Outcome.NONE
    if verdict.outcome is Outcome.MOVE:
        assert verdict.accepted is not None
        assert verdict.accepted.consequence == consequence(done)
        assert move.end in verdict.provisional
    else:
        assert verdict.outcome is Outcome.TIE
        assert consequence(done) in {g.consequence for g in verdict.tied}


def test_a_misread_place_does_not_change_the_move(board: Board) -> None:
    """One place reads as another colour for the whole run (a fault): the move is still the
    true one, and the misread place is left over as its own fix."""
    game = Game.new(3, seed=2, board=board)
    move = game.legal_moves(3)[0]
    done = after(game, move, 3)
    places = {p: list(c) for p, c in contents(done).items()}
    victim = next(
        p
        for p, c in sorted(places.items())
        if p != move.end and p != move.start and c and p in board.ports
    )
    other = next(c for c in board.ship_colors if c not in places[victim])
    places[victim][0] = other
    seen = Camera(board).game(game, places)
    verdict = judge(game, seen)
    assert verdict.outcome is Outcome.MOVE and verdict.accepted is not None
    assert verdict.accepted.consequence == consequence(done)
    assert difference(done, seen)
