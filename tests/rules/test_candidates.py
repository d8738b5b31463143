"""Candidate boards of a turn: every legal move for every die, bumps three ways."""

from __future__ import annotations

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Bump, Kind, candidates, consequence, contents
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move

BOARD = load_board()


def test_first_is_no_change_then_every_legal_move_of_every_die() -> None:
    game = Game.new(3, seed=2, board=BOARD)
    cands = candidates(game)
    assert cands[0].kind is Kind.NONE and cands[0].contents == contents(game)
    assert cands[0].consequence == consequence(game)
    made = {(c.die, c.move) for c in cands if c.kind is Kind.MOVE}
    legal = {(d, m) for d in range(1, 7) for m in game.legal_moves(d) if not m.is_pass}
    assert made == legal
    # the game itself is untouched
    assert game.die is None and game.journal == Game.new(3, seed=2, board=BOARD).journal


def test_docks_with_count_to_spare_are_candidates() -> None:
    game = Game.new(2, seed=1, board=BOARD, first_player="blue")
    game.set_ship("blue-1", "S01")  # next to the Home Port
    game.set_turn("blue")
    docks = [
        c
        for c in candidates(game)
        if c.move is not None
        and not c.move.is_pass
        and c.move.end in BOARD.ports
        and c.move.steps < (c.die or 0)
    ]
    assert docks
    assert all(c.consequence != candidates(game)[0].consequence for c in docks)


def test_known_die_limits_the_moves() -> None:
    game = Game.new(2, seed=1, board=BOARD)
    cands = candidates(game, frozenset({4}))
    assert {c.die for c in cands if c.kind is not Kind.NONE} == {4}


def test_a_bump_gives_three_boards_with_one_consequence() -> None:
    game = Game.new(2, seed=1, board=BOARD, first_player="blue")
    target = next(m for m in game.legal_moves(2) if m.end not in BOARD.ports)
    game.set_ship("yellow-1", target.end)
    game.set_turn("blue")
    bumps = [
        c for c in candidates(game, frozenset({2})) if c.move == target and c.kind is Kind.MOVE
    ]
    assert {c.bump for c in bumps} == {Bump.BACK, Bump.LANDING, Bump.LIFTED}
    assert len({c.consequence for c in bumps}) == 1
    by = {c.bump: c for c in bumps}
    back = game.ship("yellow-1").previous_port
    assert "yellow" in by[Bump.BACK].contents[back]
    assert sorted(by[Bump.LANDING].contents[target.end]) == ["blue", "yellow"]
    assert by[Bump.LIFTED].contents[target.end] == ("blue",)
    assert (
        by[Bump.LIFTED].contents.get(back, ()).count("yellow")
        == by[Bump.BACK].contents[back].count("yellow") - 1
    )


def test_same_board_different_consequence_dock_and_bump_back() -> None:
    """A ship docks at SUGAR, or steps onto an own ship whose previous port is SUGAR and
    bumps it back there: one board, two consequences (the card)."""
    game = dock_or_bump()
    x = game.ship("yellow-1").location
    z = game.ship("yellow-2").location
    assert x is not None and z is not None
    dock = Move("yellow-1", (x, "SUGAR"))
    bump = Move("yellow-1", (x, z))
    cands = [
        c for c in candidates(game) if c.kind is Kind.MOVE and c.bump in (Bump.NONE, Bump.BACK)
    ]
    docked = next(c for c in cands if c.move == dock and c.die == 4)
    bumped = next(c for c in cands if c.move == bump and c.die == 1)
    assert docked.contents == bumped.contents
    assert docked.consequence != bumped.consequence


def dock_or_bump() -> Game:
    """Yellow to move: yellow-1 beside SUGAR, yellow-2 (from SUGAR) one step further."""
    game = Game.new(2, seed=1, board=BOARD, first_player="yellow")
    for ship in game.ships("yellow"):
        game.set_ship(ship.id, None)
    x = sorted(BOARD.neighbours("SUGAR") - set(BOARD.ports))[0]
    z = sorted(s for s in BOARD.neighbours(x) if s not in BOARD.ports)[0]
    game.set_ship("yellow-1", x, "SUGAR")
    game.set_ship("yellow-2", z, "SUGAR")
    game.set_turn("yellow")
    return game


def test_pass_when_a_die_leaves_no_move() -> None:
    game = Game.new(2, seed=1, board=BOARD, first_player="blue")
    for ship in game.ships("blue"):
        game.set_ship(ship.id, None)
    game.set_ship("blue-1", "SUGAR")
    exits = BOARD.neighbours("SUGAR")
    for col, row in BOARD.grid.dots():
        game.set_cloud(CloudPose(col, row, 0))
        if exits <= game.blocked:
            break
    game.set_turn("blue")
    if exits <= game.blocked:
        passes = [c for c in candidates(game) if c.kind is Kind.PASS]
        assert passes and all(c.contents == contents(game) for c in passes)
        assert all(c.consequence != consequence(game) for c in passes)
