"""The simulated table end to end: the referee's accuracy over whole games, and the loop's rate.

Plays whole games (renderer 640x480 -> vision -> controller -> gantry, simulated
players) and reports beside wall time: games finished, stalls, committed moves
whose consequence differs from the legal move truly made (wrong consequences),
moves the players made against the rules that the journal took as legal
(illegal-as-legal), questions asked per move, and table-invariant violations;
one set per die mode and players' style: "obedient" players who always follow
the table, and "people" who hold ships in hand, set tokens off centre, knock,
ignore or half-follow instructions, miscount and answer late, never or wrong
(`sim.players.PEOPLE`; "mixed" seats both); then, with the obedient players,
the same with faults injected into the rendered frames (one visible ship's
colour flipped, or the ship dropped, in single frames or in whole stable runs,
with probability p per frame).

    python benchmarks/bench_controller.py [--games N] [--fault-games N] [--die table,virtual]
                                          [--style obedient,people] [--jobs N]
                                          [--no-hold]

`BENCH_GAMES`, `BENCH_FAULT_GAMES`, `BENCH_STYLES` and `BENCH_JOBS` in the
environment set the same (`make bench` uses the defaults: 30 games per die mode
and style, 3 games per fault setting, and one game at a time per CPU, each in
its own process).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bermuda_hw.config import load_config
from bermuda_hw.controller import seats
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.sim.faults import FaultMode
from bermuda_hw.sim.players import styles_for
from bermuda_hw.sim.session import (
    MAX_ROUNDS,
    GameReport,
    game_options,
    play_fresh,
)

GOAL_GAME_S = 180.0
GAMES = 30
STYLES = "obedient,people"
FAULT_GAMES = 3
FAULT_SETTINGS: tuple[tuple[float, FaultMode], ...] = (
    (0.01, "single"),
    (0.05, "single"),
    (0.01, "run"),
    (0.05, "run"),
)


def games(n: int) -> list[tuple[int, int]]:
    """n (players, seed) pairs: 2, 3 and 4 players in turn, seeds 1, 2, 3, ..."""
    return [(2 + i % 3, 1 + i // 3) for i in range(n)]


# (players, seed, die mode, (p, fault mode) or None, round limit, players' style): one game
Task = tuple[int, int, "str | None", "tuple[float, FaultMode] | None", int, str]


def _play(hold: bool, *task: Any) -> GameReport:
    """One game; `hold` False: the turn's line never tells a player to leave a ship landed
    on beside theirs (`seats.hold_spaces` finds no space), to measure what that
    instruction earns."""
    if not hold:
        seats.same_board_bumps = lambda game, die: frozenset()
    return play_fresh(*task)


def _played(tasks: Sequence[Task], jobs: int, hold: bool = True) -> Iterator[GameReport]:
    """The reports of the tasks' games, in order: in this process, or `jobs` at a time in
    fresh processes (each game builds its own simulated table). `hold` False: see `_play`
    (always in fresh processes, which it changes)."""
    if hold and jobs <= 1:
        for task in tasks:
            yield play_fresh(*task)
        return
    with ProcessPoolExecutor(max(1, jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
        if hold:
            yield from pool.map(play_fresh, *zip(*tasks, strict=True))
        else:
            yield from pool.map(_play, [hold] * len(tasks), *zip(*tasks, strict=True))


def _line(r: GameReport) -> str:
    end = "finished" if r.finished else "round limit" if r.limited else f"STALLED ({r.stalled})"
    text = (
        f"    {r.players}p seed {r.seed:2d}: {end}, {r.rounds} rounds, {r.moves} moves, "
        f"{len(r.wrong)} wrong ({len(r.on_wrong_answer)} more on a wrong answer), "
        f"{len(r.illegal_as_legal)} illegal-as-legal "
        f"(of {r.illegal_made} illegal moves made; {len(r.illegal_unseen_die)} legal for "
        f"another roll of the unseen die), {r.questions} questions, "
        f"{r.on_word} taken on the table's word, "
        f"{len(r.violations)} invariant breaks, {r.wall_s:5.1f} s wall"
    )
    if r.faults:
        text += f", {r.faults} faults"
    for check in r.wrong[:3]:
        text += f"\n        wrong: {check}"
    for check in r.illegal_as_legal[:3]:
        text += f"\n        illegal-as-legal: {check}"
    for check in r.on_wrong_answer[:3]:
        text += f"\n        on a wrong answer: {check}"
    if r.violations:
        text += f"\n        first invariant break: {r.violations[0]}"
    return text


def summary(title: str, reports: Sequence[GameReport]) -> str:
    n = len(reports)
    finished = sum(r.finished for r in reports)
    moves = sum(r.moves for r in reports)
    wrong = sum(len(r.wrong) for r in reports)
    illegal = sum(len(r.illegal_as_legal) for r in reports)
    unseen = sum(len(r.illegal_unseen_die) for r in reports)
    made = sum(r.illegal_made for r in reports)
    questions = sum(r.questions for r in reports)
    broken = sum(1 for r in reports if r.violations)
    wall = sum(r.wall_s for r in reports)
    slowest = max((r.wall_s for r in reports), default=0.0)
    stalled = sum(1 for r in reports if r.stalled)
    return (
        f"  {title}: {finished}/{n} finished, {stalled} stalled; "
        f"{wrong} of {moves} committed moves with a wrong consequence "
        f"({100.0 * wrong / max(moves, 1):.2f} %) in "
        f"{sum(1 for r in reports if r.wrong)} games; "
        f"{sum(len(r.on_wrong_answer) for r in reports)} more with a wrong consequence named "
        "by a wrong answer the board could not check; "
        f"{illegal} illegal moves journalled as legal (of {made} made; {unseen} more "
        f"taken as the legal move of another roll of a die the table did not see); "
        f"{questions / max(moves, 1):.3f} questions per move "
        f"({questions} in {moves} moves, {questions / max(n, 1):.2f} per game); "
        f"{sum(r.on_word for r in reports)} taken on the table's word; "
        f"table invariant broken in {broken} games; "
        f"{wall:.0f} s wall, {wall / max(n, 1):.1f} s per game, slowest {slowest:.1f} s "
        f"(goal <= {GOAL_GAME_S:g} s)"
    )


def die_modes(asked: str | None) -> list[str | None]:
    """The die modes to play: those asked for, else table and virtual if the rules know them."""
    if asked:
        return [m.strip() for m in asked.split(",") if m.strip()]
    try:
        game_options("table")
    except ValueError:
        return [None]
    return ["table", "virtual"]


def _loop_rate(frames: int = 60) -> float:
    """Frames per second of the daemon's reading loop: render, read, stabilise."""
    from bermuda_hw.backends.sim import SimBackend
    from bermuda_hw.camera_config import CameraConfig
    from bermuda_hw.rules.game import Game
    from bermuda_hw.sim.world import World
    from bermuda_hw.vision import BoardReader, ObservationStream, StabilitySettings

    board = load_board()
    world = World(board)
    for sid, (x_mm, y_mm) in Game.new(4, seed=1, board=board).ship_positions().items():
        world.place_ship(sid, x_mm, y_mm)
    backend = SimBackend(load_config(), world)
    try:
        camera = backend.open_camera(board, CameraConfig(width_px=640, height_px=480))
        with camera:
            stream = ObservationStream(camera, BoardReader(board), StabilitySettings(2, 0.1))
            stream.step()
            started = time.perf_counter()
            for _ in range(frames):
                stream.step()
            return frames / (time.perf_counter() - started)
    finally:
        backend.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=int(os.environ.get("BENCH_GAMES", GAMES)))
    parser.add_argument(
        "--fault-games",
        type=int,
        default=int(os.environ.get("BENCH_FAULT_GAMES", FAULT_GAMES)),
        help="games per fault setting (0: none)",
    )
    parser.add_argument(
        "--die",
        default=None,
        help="die modes, comma-separated "
        "(default: table and virtual when the rules know the option)",
    )
    parser.add_argument(
        "--style",
        default=os.environ.get("BENCH_STYLES", STYLES),
        help="the players' styles, one set of games each, comma-separated: "
        "obedient, people, mixed, or styles joined by '+' round the table",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=MAX_ROUNDS,
        help="stop each game after this many rounds (a short smoke run)",
    )
    parser.add_argument(
        "--loop-frames",
        type=int,
        default=60,
        help="frames to time the reading loop on (0: skip it)",
    )
    parser.add_argument(
        "--no-hold",
        action="store_true",
        help="never tell a player to leave a ship landed on beside theirs (what the "
        "instruction earns: compare the questions with a set without this)",
    )
    parser.add_argument("--verbose", action="store_true", help="one line per game")
    parser.add_argument(
        "--jobs",
        type=int,
        default=int(os.environ.get("BENCH_JOBS", os.cpu_count() or 1)),
        help="games played at once, one process each (default: one per CPU)",
    )
    args = parser.parse_args([] if argv is None else argv)
    if args.loop_frames > 0:
        print(
            "reading loop (render 640x480 + vision + stability): "
            f"{_loop_rate(args.loop_frames):.1f} frames/s"
        )
    print("simulated table: whole games (renderer 640x480 -> vision -> controller -> gantry)")
    # every game of every set, in the order they are reported
    sets: list[tuple[str, list[Task]]] = []
    styles = [s.strip() for s in args.style.split(",") if s.strip()]
    for style in styles:
        styles_for(style, ())  # a clear error for an unknown style before any game
    for die in die_modes(args.die):
        label = "die " + die if die else "die as the rules have it"
        for style in styles:
            sets.append(
                (
                    f"{args.games} games, {label}, {style} players"
                    + (", told to hold no ship" if args.no_hold else ""),
                    [(n, s, die, None, args.rounds, style) for n, s in games(args.games)],
                )
            )
        if args.fault_games <= 0:
            continue
        for p, mode in FAULT_SETTINGS:
            sets.append(
                (
                    f"faults p={p:g} {mode}, {args.fault_games} games, {label}"
                    + (", told to hold no ship" if args.no_hold else ""),
                    [
                        (n, s, die, (p, mode), args.rounds, "obedient")
                        for n, s in games(args.fault_games)
                    ],
                )
            )
    started = time.perf_counter()
    results = _played([task for _, tasks in sets for task in tasks], args.jobs, not args.no_hold)
    for title, tasks in sets:
        reports = []
        for _ in tasks:
            report = next(results)  # each game's line as soon as it is played
            reports.append(report)
            if (
                args.verbose
                or not report.finished
                or report.wrong
                or report.on_wrong_answer
                or report.violations
                or report.illegal_as_legal
            ):
                print(_line(report), flush=True)
        print(summary(title, reports), flush=True)
    print(
        f"  {sum(len(tasks) for _, tasks in sets)} games in "
        f"{time.perf_counter() - started:.0f} s, {max(1, args.jobs)} at a time "
        "(the wall figures above are each game's own)",
        flush=True,
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
