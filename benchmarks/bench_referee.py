"""The referee's decision for one stable observation (`ship_phase.decide`: the verdict of
`referee.judge`, the belief of `belief.weigh` and what follows from them) on rendered boards
of positions met in random games, with the board before the move as the daemon gives it
(how far a token moved, `controller.moved`)."""

from __future__ import annotations

import random
import statistics
import time

from bermuda_hw.controller.ship_phase import decide
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, ShipToken, render
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import StabilitySettings, Stabilizer
from bermuda_hw.vision.types import BoardObservation

GOAL_P95_MS = 50.0
SAMPLES = 60


def _observation(game: Game, reader: BoardReader, seed: int) -> BoardObservation | None:
    board = game.board
    tokens = []
    for place, colors in contents(game).items():
        port = board.ports.get(place)
        for k, color in enumerate(colors):
            if port is not None:
                x, y = port.berths[k % len(port.berths)]
            else:
                x, y = board.spaces[place].position
                x += 9.0 * k
            tokens.append(ShipToken(color, x, y, 0.0))
    x, y = board.grid.dot_mm(game.pose.col, game.pose.row)
    scene = Scene(ships=tuple(tokens), cloud=CloudState(x, y, 45.0 * game.pose.letter))
    stabilizer = Stabilizer(StabilitySettings(frames=2, min_time_s=0.0))
    seen = None
    for k in range(2):
        frame = render(board, scene, CameraModel(), seed=seed + k)
        seen = stabilizer.push(reader.read(frame, 0.1 * k)) or seen
    return seen


def main() -> None:
    board = load_board()
    reader = BoardReader(board)
    rng = random.Random(11)
    times_ms: list[float] = []
    cpu_ms: list[float] = []  # the same, in the process's CPU time (a loaded machine's wall
    # time counts the waits for a core too)
    seed = 0
    while len(times_ms) < SAMPLES:
        game = Game.new(rng.choice((2, 3, 4)), seed=seed, board=board)
        seed += 1
        for _ in range(rng.randrange(0, 40)):
            if game.is_over():
                break
            if game.phase is Phase.CLOUD:
                game.cloud_phase(None)
                continue
            die = rng.randint(1, 6)
            game.set_die(die)
            game.push(rng.choice(game.legal_moves(die)))
        if game.is_over() or game.phase is not Phase.SHIPS:
            continue
        before = game.copy()
        die = rng.randint(1, 6)
        game.set_die(die)
        game.push(rng.choice(game.legal_moves(die)))
        seen = _observation(game, reader, seed)
        reference = _observation(before, reader, seed + 100_000)
        if seen is None or reference is None:
            continue
        for dice in (frozenset({die}), None):
            started, cpu = time.perf_counter(), time.process_time()
            decide(before, seen, dice, reference=reference)
            times_ms.append((time.perf_counter() - started) * 1e3)
            cpu_ms.append((time.process_time() - cpu) * 1e3)
    for name, values in (("wall", times_ms), ("CPU", cpu_ms)):
        values.sort()
        p95 = values[int(0.95 * (len(values) - 1))]
        print(
            f"referee decision (ship_phase.decide) on {len(values)} rendered observations, "
            f"{name} time: median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max "
            f"{values[-1]:.1f} ms (goal p95 <= {GOAL_P95_MS:g} ms)"
        )


if __name__ == "__main__":
    main()
