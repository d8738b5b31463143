"""A move into a place out of sight, and the same ship still in its player's hand: what the
ship phase decides on each (`ship_phase.decide`), with the die on the table and the virtual
die. The two boards are alike (the landing hidden, the start emptied): a provisional take of
the second is a move nobody made yet. Synthetic evidence (`tests/controller/synthetic.py`),
random positions; run from the repository's root:

    PYTHONPATH=firmware_py:tests/controller python benchmarks/sweep_out_of_sight.py [N]
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from synthetic import observe

from bermuda_hw.controller.ship_phase import Take, decide
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.play import play_round, random_chooser

BOARD = load_board()


def sweep(positions: int) -> Counter[tuple[str, str, str]]:
    """(die mode, truth, decision) counted over `positions` random positions."""
    out: Counter[tuple[str, str, str]] = Counter()
    for seed in range(1, positions + 1):
        rng = random.Random(seed)
        game = Game.new(2 + seed % 3, seed=seed, board=BOARD)
        for _ in range(rng.randrange(0, 10)):
            if game.is_over():
                break
            play_round(game, random_chooser(rng))
        if game.is_over() or game.phase is not Phase.SHIPS:
            continue
        game.roll_die()
        assert game.die is not None
        plain = [
            m
            for m in game.legal_moves()
            if not m.is_pass and m.end is not None and not game.ships_at(m.end)
        ]
        if not plain:
            continue
        move = plain[rng.randrange(len(plain))]
        assert move.end is not None
        start = game.ship(move.ship).location
        assert start is not None
        after = game.copy()
        after.push(move)
        moved = {p: list(c) for p, c in contents(after).items()}
        held = {p: list(c) for p, c in contents(game).items()}
        held[start].remove(game.ship(move.ship).color)
        for mode, dice in (("table", None), ("virtual", frozenset({game.die}))):
            for truth, board in (("moved", moved), ("in hand", held)):
                decision = decide(game, observe(BOARD, board, hidden={move.end}), dice)
                kind = type(decision).__name__
                if isinstance(decision, Take):
                    kind += " provisional" if decision.provisional else " seen"
                out[(mode, truth, kind)] += 1
    return out


def main() -> None:
    positions = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    for (mode, truth, kind), n in sorted(sweep(positions).items()):
        print(f"die {mode:8} {truth:8} {kind:18} {n}")


if __name__ == "__main__":
    main()
