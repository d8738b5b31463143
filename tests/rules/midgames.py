"""Positions met in random games on the classic board, for property tests of the players."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, GameOptions, Phase

BOARD = load_board()


def midgame(seed: int, players: int, turns: int, options: GameOptions | None = None) -> Game:
    """A game played at random for some turns, then left with the die rolled (if not over)."""
    game = Game.new(players, seed=seed, board=BOARD, options=options)
    rng = random.Random(seed)
    for _ in range(turns):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
            continue
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    while game.phase is Phase.CLOUD:
        game.cloud_phase()
    if not game.is_over():
        game.roll_die()
    return game


midgames = st.builds(midgame, st.integers(0, 2**31), st.integers(2, 4), st.integers(0, 120))
