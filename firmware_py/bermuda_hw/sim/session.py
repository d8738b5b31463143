"""One whole game on the simulated table, with its truth checked: for benchmarks and tests.

`play_game` builds the table as `bermuda-hw run --simulate` does (`SimTable`: simulated
backend, mover, controls, journal, controller, simulated players), plays
until the game is over, the table makes no progress, or a round limit, and
reports what the referee did against the truth: the committed moves whose
consequence differs from the move truly made (`truth.compare_moves`), the
moves made against the rules that it journalled as legal, the table
invariant at every settled board (`truth.InvariantWatch`), and the
questions the controller asked the table. The players' style (obedient, or
people who hold ships, miscount, answer late: `sim.players.PlayerStyle`)
is a player option.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bermuda_hw.config import Config
from bermuda_hw.controller.daemon import Controller
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import GameOptions
from bermuda_hw.rules.record import record
from bermuda_hw.sim.faults import FaultMode, SceneFaults
from bermuda_hw.sim.table import SimTable
from bermuda_hw.sim.truth import InvariantWatch, MoveCheck, TableDifference, compare_moves
from bermuda_hw.sim.world import World

STUCK_FRAMES = 800  # the simulated players act on a request well within this many frames
MAX_ROUNDS = 60
QUESTION_REPEATS = 4


def simulate_config(config: Config) -> Config:
    """`config` as `bermuda-hw run --simulate` runs it: as fast as it can, with small frames."""
    from bermuda_hw.cli.run import SIM_CAMERA

    return config.model_copy(
        update={
            "sim": config.sim.model_copy(update={"real_time_factor": 0.0}),
            "camera": config.camera.unless_written(SIM_CAMERA),
        }
    )


def game_options(die: str | None = None) -> GameOptions | None:
    """The game options for a die mode ("table" or "virtual") if the rules know the option.

    None when no mode is asked for; raises ValueError when one is asked for
    and the rules have no such option.
    """
    if die is None:
        return None
    if "die" not in {f.name for f in dataclasses.fields(GameOptions)}:
        raise ValueError("these rules have no die option")
    return GameOptions(**{"die": die})  # type: ignore[arg-type]


@dataclass
class GameReport:
    """What happened in one simulated game."""

    players: int
    seed: int
    finished: bool = False
    stalled: str = ""  # the controller's state when the table stopped making progress
    limited: bool = False  # stopped at the round limit, still playing
    outcome: str = ""
    rounds: int = 0
    frames: int = 0
    wall_s: float = 0.0
    table_s: float = 0.0
    questions: int = 0
    checks: list[MoveCheck] = field(default_factory=list)
    violations: list[TableDifference] = field(default_factory=list)
    faults: int = 0
    log: list[str] = field(default_factory=list)
    style: str = "obedient"
    illegal_made: int = 0  # moves the players truly made against the rules
    acts: dict[str, int] = field(default_factory=dict)  # what else they did, by kind
    actions: list[str] = field(default_factory=list)  # the players' own account, in order

    @property
    def moves(self) -> int:
        return len(self.checks)

    @property
    def wrong(self) -> list[MoveCheck]:
        """Committed moves whose consequence differs from the legal move truly made (an
        illegal move journalled as legal is counted apart: `illegal_as_legal`)."""
        return [
            c
            for c in self.checks
            if c.wrong
            and not c.illegal_as_legal
            and not c.illegal_for_an_unseen_die
            and not c.answered_wrong
        ]

    @property
    def on_wrong_answer(self) -> list[MoveCheck]:
        """Committed moves with a wrong consequence that the player named by pressing a
        wrong answer, on a board that could not tell the options apart (counted apart
        from `wrong`: the table took the player's word)."""
        return [c for c in self.checks if c.wrong and c.answered_wrong]

    @property
    def illegal_as_legal(self) -> list[MoveCheck]:
        """Committed moves for which the player truly made a move against the rules."""
        return [c for c in self.checks if c.illegal_as_legal]

    @property
    def illegal_unseen_die(self) -> list[MoveCheck]:
        """Committed moves for which the player made a move against the rules that is legal
        for another roll of the table's die, which the referee never saw."""
        return [c for c in self.checks if c.illegal_for_an_unseen_die]

    @property
    def on_word(self) -> int:
        """What the table took on the players' word where the camera cannot see: a move
        answered yes, bumped ships said back by a press."""
        return sum(1 for line in self.log if "on the table's word" in line)

    @property
    def questions_per_move(self) -> float:
        return self.questions / max(self.moves, 1)


def _question(status: Any) -> str:
    """The question the controller is asking the table, if its status has one."""
    question = getattr(status, "question", None)
    return str(question) if question else ""


def play_game(
    board: Board,
    config: Config,
    state_dir: Path,
    *,
    players: int,
    seed: int,
    options: GameOptions | None = None,
    faults: SceneFaults | None = None,
    max_rounds: int = MAX_ROUNDS,
    stuck_frames: int = STUCK_FRAMES,
    on_step: Callable[[Controller, World], None] | None = None,
    **player_options: Any,
) -> GameReport:
    """Play one game on a fresh simulated table; see the module's docstring."""
    report = GameReport(players, seed, style=str(player_options.get("style", "obedient")))
    started = time.perf_counter()
    with SimTable.build(
        config,
        board,
        state_dir,
        players=players,
        seed=seed,
        options=options,
        faults=faults,
        **player_options,
    ) as table:
        controller, world, backend = table.controller, table.world, table.backend
        report.log = table.log
        table_players = table.players
        assert table_players is not None
        watch = InvariantWatch(
            controller, world, lambda: backend.camera.camera if backend.camera is not None else None
        )
        try:
            controller.start()
            # steps since the game last changed (a step in a fault reads no frame)
            seq, steps, question = -1, 0, ""
            # a question said again (its players may let it pass once or twice) is the
            # table waiting on them, not a stall, up to QUESTION_REPEATS times per move
            put, repeats = None, 0
            while True:
                status = controller.status
                game = controller.game
                assert game is not None
                if status.mode is Mode.OVER:
                    report.finished = True
                    break
                if game.round > max_rounds:
                    report.limited = True
                    break
                steps += 1
                if status.seq != seq:
                    seq, steps, repeats = status.seq, 0, 0
                if status.question is not None and status.question is not put:
                    put = status.question
                    if repeats < QUESTION_REPEATS:
                        steps, repeats = 0, repeats + 1
                if steps > stuck_frames:
                    report.stalled = f"round {game.round}, {status.mode.value}: {status.message}"
                    break
                controller.step()
                watch.check()
                if on_step is not None:
                    on_step(controller, world)
                asked = _question(controller.status)
                if asked and asked != question:
                    report.questions += 1
                question = asked
        finally:
            controller.close()
        game = controller.game
        assert game is not None
        report.outcome = str(game.outcome() or "")
        report.rounds = game.round
        report.frames = controller.status.frames
        report.table_s = backend.clock.monotonic()
        report.violations = watch.violations
        truth = table_players.truth
        report.checks = compare_moves(record(game), truth.moves, board, truth.acts)
        report.illegal_made = sum(1 for m in table_players.truth.moves if not m.legal)
        report.acts = dict(Counter(a.kind for a in table_players.truth.acts))
        report.actions = table_players.actions
        report.faults = len(faults.injected) if faults is not None else 0
    report.wall_s = time.perf_counter() - started
    return report


def play_fresh(
    players: int,
    seed: int,
    die: str | None = None,
    fault: tuple[float, FaultMode] | None = None,
    max_rounds: int = MAX_ROUNDS,
    style: str = "obedient",
) -> GameReport:
    """One game on the default board and configuration of `run --simulate`, in a fresh state
    directory, with `fault` = (p, mode) frame faults if given and players of a style
    (`sim.players.styles_for`): a task a process pool can run (its arguments and its report
    cross processes)."""
    import tempfile

    from bermuda_hw.config import load_config
    from bermuda_hw.rules.boardfile import load_board

    board = load_board()
    faults = (
        SceneFaults(board.ship_colors, fault[0], mode=fault[1], seed=seed)
        if fault is not None
        else None
    )
    with tempfile.TemporaryDirectory() as state:
        return play_game(
            board,
            simulate_config(load_config(None)),
            Path(state),
            players=players,
            seed=seed,
            options=game_options(die),
            faults=faults,
            max_rounds=max_rounds,
            style=style,
        )
