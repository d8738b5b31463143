"""Stable observations made without rendering: per-place evidence drawn from what vision was
measured to produce (a ship's colour fills 0.17-0.60 of its place's disk, a place without it
0-0.016), with hard readings to match. For the referee's fast tests."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from bermuda_hw.controller.moved import replaced_loglik
from bermuda_hw.controller.referee import observation_evidence, places_of
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardEvidence, BoardObservation, ShipReading

PRESENT = (0.17, 0.60)
ABSENT = (0.0, 0.016)
#: with counts: one token's area (mm²), what one token shows of it on its place (all of it,
#: wherever on the place it stands), and a colour's stray pixels on a place without it
TOKEN_MM2 = 190.0
ONE_TOKEN = (0.85, 1.15)
STRAY = (0.0, 0.05)


def observe(
    board: Board,
    places: Mapping[str, Sequence[str]],
    *,
    seed: int = 0,
    hidden: Iterable[str] = (),
    weak: Mapping[str, float] | None = None,
    counted: bool = False,
    partly: Mapping[str, float] | None = None,
) -> BoardObservation:
    """The stable observation of ships by place (a port's in its berths in order); `hidden`
    places are under the cloud (unseen, their ships read as hidden), `weak` fills some
    places' colour to a given fraction instead (a token off its place's centre); `counted`:
    with each colour's area on every place (`vision.counts`), one token's worth per ship
    there (a token off centre shows all of its area); `partly`: places in the cloud's rim
    band, seen that share (their ships stand in the part in view)."""
    rng = random.Random(seed)
    hidden = frozenset(hidden)
    keys = places_of(board)
    colors = tuple(board.ship_colors)
    fractions = np.array([[rng.uniform(*ABSENT) for _ in colors] for _ in keys])
    observable = np.array([0.0 if s in hidden else (partly or {}).get(s, 1.0) for s, _ in keys])
    counting = random.Random(seed + 1)  # the fills above draw as they did without counts
    areas = np.array([[counting.uniform(*STRAY) * TOKEN_MM2 for _ in colors] for _ in keys])
    index = {k: i for i, k in enumerate(keys)}
    ships: list[ShipReading] = []
    for place, content in places.items():
        port = board.ports.get(place)
        for n, color in enumerate(content):
            if port is not None:
                berth: int | None = n % len(port.berths)
                x, y = port.berths[berth]
                i = index[(place, berth)]
            else:
                berth = None
                x, y = board.spaces[place].position
                i = index[(place, None)]
            fill = (weak or {}).get(place, rng.uniform(*PRESENT))
            k = colors.index(color)
            fractions[i, k] = max(fractions[i, k], fill)
            areas[i, k] += counting.uniform(*ONE_TOKEN) * TOKEN_MM2
            ships.append(ShipReading(color, place, x, y, hidden=place in hidden, berth=berth))
    background = 1.0 - fractions.sum(axis=1)
    evidence = BoardEvidence(
        keys,
        colors,
        fractions,
        background,
        observable,
        3,
        areas=areas if counted else None,
        token_area_mm2=TOKEN_MM2 if counted else None,
        learned=np.ones(len(keys)),  # the reader has learned the whole board's look
    )
    return BoardObservation(tuple(ships), None, 0.0, 3, hidden_spaces=hidden, evidence=evidence)


def two_plain_moves(board: Board, seed: int) -> tuple[Game, Move, Move]:
    """A game whose active player has rolled, with two moves of the die that bump nothing."""
    for s in range(seed, seed + 200):
        game = Game.new(3, seed=s, board=board)
        game.roll_die()
        plain = [
            m
            for m in game.legal_moves()
            if not m.is_pass and m.end is not None and not game.ships_at(m.end)
        ]
        ends = {m.end for m in plain}
        if len(ends) >= 2:
            first = plain[0]
            other = next(m for m in plain if m.end != first.end)
            return game, first, other
    raise AssertionError("no such roll")


def after(game: Game, move: Move, die: int) -> Game:
    """A copy of the game with the die set and the move made."""
    done = game.copy()
    done.set_die(die)
    done.push(move)
    return done


def set_dock_or_bump(game: Game) -> tuple[str, str]:
    """Yellow to move: yellow-1 on x beside SUGAR, yellow-2 (from SUGAR) on z one space further
    on, no other yellow ship on the board. With a 1, yellow-1 docks at SUGAR or lands on
    yellow-2, which goes back to SUGAR: the same colours on every place either way. (x, z)."""
    board = game.board
    for ship in game.ships("yellow"):
        game.set_ship(ship.id, None)
    x = sorted(board.neighbours("SUGAR") - set(board.ports))[0]
    z = sorted(s for s in board.neighbours(x) if s not in board.ports)[0]
    game.set_ship("yellow-1", x, "SUGAR")
    game.set_ship("yellow-2", z, "SUGAR")
    game.set_turn("yellow")
    return x, z


def moved_term(board: Board, before: BoardObservation, now: BoardObservation, z: str) -> float:
    """How much likelier z's reading is under another token set down there than under the
    one that stood there, between two observations (log; `controller.moved`)."""
    terms = replaced_loglik(
        board,
        observation_evidence(board, now),
        before,
        observation_evidence(board, before),
        now,
        frozenset({z}),
    )
    assert z in terms, "z's token is judged"
    return terms[z]
