"""Rules engine speed: complete random 4-player games per second and one `legal_moves` call."""

from __future__ import annotations

import random
import statistics
import time

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.play import simulate_game

GOAL_GAMES_PER_S = 100.0


def _games_per_second(seconds: float) -> tuple[float, int, float]:
    board = load_board()
    simulate_game(4, seed=0, board=board)  # warm the walk table
    games = 0
    rounds = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        result = simulate_game(4, seed=games + 1, board=board, keep_rounds=False)
        rounds += result.game.round
        games += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, games, rounds / games


def _legal_moves_median_us(samples: int) -> float:
    """Median time of one legal_moves call on positions met in random games."""
    board = load_board()
    rng = random.Random(7)
    positions: list[tuple[Game, int]] = []
    seed = 100
    while len(positions) < samples:
        game = Game.new(4, seed=seed, board=board)
        seed += 1
        while not game.is_over() and len(positions) < samples:
            if game.phase is Phase.CLOUD:
                game.cloud_phase()
                continue
            die = game.roll_die()
            positions.append((game.copy(), die))
            game.push(rng.choice(game.legal_moves(die)))
    times_s = []
    for game, die in positions:
        started = time.perf_counter()
        game.legal_moves(die)
        times_s.append(time.perf_counter() - started)
    return statistics.median(times_s) * 1e6


def main() -> None:
    rate, games, rounds = _games_per_second(10.0)
    verdict = "meets" if rate >= GOAL_GAMES_PER_S else "MISSES"
    print(
        f"complete random 4-player games: {rate:.0f} games/s on one core "
        f"({games} games, {rounds:.1f} rounds each on average); "
        f"goal >= {GOAL_GAMES_PER_S:.0f} games/s: {verdict}"
    )
    print(
        f"legal_moves: median {_legal_moves_median_us(20_000):.1f} us per call "
        "(positions from random 4-player games, warm cache)"
    )


if __name__ == "__main__":
    main()
