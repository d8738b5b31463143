"""The computer player's strength: two-player games on the rules engine alone.

"best" and "easy" (`rules.computer`) each play 1,000 games against a random
mover and against a greedy card-taker, seats alternating; "best" also plays
"easy", and the greedy card-taker plays the random mover for scale. Goals:
"best" wins >= 80 % against the random mover and >= 55 % against the greedy
card-taker; "easy" sits between the random mover and "best". Each figure comes
with its 95 % Wilson interval, and "best"'s mean time to choose a move.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.computer import ComputerPlayer, MatchResult, greedy_chooser, match
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.play import Chooser, random_chooser

GAMES = 1_000
GOAL_VS_RANDOM = 0.80
GOAL_VS_GREEDY = 0.55

Maker = Callable[[int], Chooser]


def best(seed: int) -> Chooser:
    return ComputerPlayer("best", seed=seed)


class Timed:
    """A chooser that adds up the time its inner chooser takes, per move."""

    def __init__(self) -> None:
        self.times_s: list[float] = []

    def make(self, inner: Maker) -> Maker:
        def made(seed: int) -> Chooser:
            chooser = inner(seed)

            def choose(game: Game, moves: list[Move]) -> Move:
                started = time.perf_counter()
                move = chooser(game, moves)
                self.times_s.append(time.perf_counter() - started)
                return move

            return choose

        return made


def easy(seed: int) -> Chooser:
    return ComputerPlayer("easy", seed=seed)


def mover(seed: int) -> Chooser:
    return random_chooser(random.Random(f"random:{seed}"))


def greedy(seed: int) -> Chooser:
    return greedy_chooser(random.Random(f"greedy:{seed}"))


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(name: str, first: Maker, second: Maker, games: int) -> tuple[MatchResult, float]:
    board = load_board()
    started = time.perf_counter()
    result = match(first, second, games, board=board)
    elapsed_s = time.perf_counter() - started
    low, high = wilson(result.wins, result.games)
    print(
        f"{name:<26} {result.share:6.1%} of {result.games} games "
        f"(95 % interval {low:.1%}-{high:.1%}; {elapsed_s:.1f} s)",
        flush=True,
    )
    return result, elapsed_s


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=GAMES, help="games per pairing")
    args = parser.parse_args([] if argv is None else argv)
    games = args.games
    timed = Timed()
    best_random, _ = play("best vs random mover", timed.make(best), mover, games)
    best_greedy, _ = play("best vs greedy card-taker", best, greedy, games)
    easy_random, _ = play("easy vs random mover", easy, mover, games)
    easy_greedy, _ = play("easy vs greedy card-taker", easy, greedy, games)
    play("best vs easy", best, easy, games)
    greedy_random, _ = play("greedy vs random mover", greedy, mover, games)
    times_s = sorted(timed.times_s)
    print(
        f"best chooses a move in {1000 * statistics.mean(times_s):.2f} ms on average, "
        f"{1000 * times_s[int(0.99 * (len(times_s) - 1))]:.2f} ms at the 99th percentile "
        f"({len(times_s)} moves against the random mover, one core)"
    )
    verdicts = [
        ("best vs random mover", best_random.share >= GOAL_VS_RANDOM, f">= {GOAL_VS_RANDOM:.0%}"),
        (
            "best vs greedy card-taker",
            best_greedy.share >= GOAL_VS_GREEDY,
            f">= {GOAL_VS_GREEDY:.0%}",
        ),
        (
            "easy between random and best vs the random mover",
            0.5 < easy_random.share <= best_random.share,
            "",
        ),
        (
            "easy between random and best vs the greedy card-taker",
            1 - greedy_random.share < easy_greedy.share < best_greedy.share,
            "",
        ),
    ]
    for name, met, goal in verdicts:
        print(f"goal: {name}{' ' + goal if goal else ''}: {'meets' if met else 'MISSES'}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
