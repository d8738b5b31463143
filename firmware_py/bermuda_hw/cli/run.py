"""`bermuda-hw run`: the table's controller daemon, on the rig or on the simulated table."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import create_backend
from bermuda_hw.camera_config import CameraConfig
from bermuda_hw.cli.options import (
    EXIT_INTERRUPTED,
    computer_seats,
    new_game_options,
    number,
    whole,
)
from bermuda_hw.cli.play import _players
from bermuda_hw.clock import Clock
from bermuda_hw.config import DEFAULT_CONFIG_PATH, Config, load_config
from bermuda_hw.controller.journal import DB_NAME, DEFAULT_STATE_DIR, Journal
from bermuda_hw.controller.statedir import (
    StateLock,
    check_access,
    check_evidence,
    check_path,
    lock_holder,
)
from bermuda_hw.errors import ConfigError, HardwareError, StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import DIE_MODES, GameOptions

if TYPE_CHECKING:
    from bermuda_hw.controller.daemon import Controller
    from bermuda_hw.web.service import Page

# The simulated table renders small frames and settles on fewer of them: a fast game.
SIM_CAMERA = {"width_px": 640, "height_px": 480, "stable_frames": 2, "stable_min_time_s": 0.1}
DEFAULT_MAX_ROUNDS = 400
STUCK_STEPS = 3000  # the simulated players always act well within this many steps
# --speed: sim.real_time_factor (1 / speed) must stay within the config's 0..1000
MIN_SPEED = 0.001
MAX_SPEED = 1e6


def state_dir_default() -> Path:
    """systemd's `StateDirectory=` (in $STATE_DIRECTORY), else /var/lib/bermuda-hw."""
    env = os.environ.get("STATE_DIRECTORY")
    return Path(env.split(":")[0]) if env else DEFAULT_STATE_DIR


def simulation_pointer() -> Path:
    """The file that names the state directory of this user's running simulated table."""
    runtime = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(runtime) / f"bermuda-hw-simulation-{os.getuid()}"


def running_simulation() -> Path | None:
    """The state directory of the simulated table this user is running, if one runs."""
    try:
        named = Path(simulation_pointer().read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    try:
        live = named.is_dir() and lock_holder(named) is not None
    except (OSError, StateError):
        return None
    return named if live else None


def _bind(text: str) -> str:
    """`--bind`: HOST:PORT, the port ASCII digits from 0 to 65535 (checked before anything
    starts)."""
    host, colon, port = text.rpartition(":")
    if (
        not colon
        or not host
        or not (port.isascii() and port.isdigit())
        or len(port) > 5
        or int(port) > 65535
    ):
        shown = text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"
        raise argparse.ArgumentTypeError(
            f"must be HOST:PORT with a port from 0 to 65535, not {shown!r}"
        )
    return text


def _state_dir(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a directory, not an empty string")
    return Path(text)


def prepare_state_dir(state_dir: Path, *, write: bool) -> Path:
    """Check a state directory before anything moves (path, permissions, lost files)."""
    check_path(state_dir)
    check_access(state_dir, DB_NAME, write=write)
    check_evidence(state_dir, DB_NAME)
    return state_dir


def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state-dir",
        type=_state_dir,
        default=None,
        metavar="DIR",
        help=f"where the journal lives (default $STATE_DIRECTORY or {DEFAULT_STATE_DIR})",
    )
    parser.add_argument("--board", type=Path, default=None, help="board definition file")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the table's controller daemon",
        description=(
            "Home the rig, resume the journalled game (or start one), then watch the board: "
            "check every move with the rules, spin and drive the cloud, decide captures from "
            "what the camera sees, and journal every event. With --simulate the whole table "
            "is simulated, players included, and the run ends with the game."
        ),
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"configuration file (default {DEFAULT_CONFIG_PATH} if present)",
    )
    add_common(parser)
    parser.add_argument(
        "--players",
        type=_players,
        default=None,
        metavar="N",
        help="players in a new game, 2 to 4 (default 4); a game in the journal resumes as it is",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of a new game's spinner (and of the simulated players)",
    )
    parser.add_argument(
        "--die",
        choices=DIE_MODES,
        default="table",
        help="who rolls in a new game: the table's physical die (default), "
        "or a virtual die rolled by a press of the spin button",
    )
    computer_seats(parser)
    parser.add_argument(
        "--simulate",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run on the simulated table, with simulated players",
    )
    parser.add_argument(
        "--speed",
        type=number(MIN_SPEED, MAX_SPEED, zero="as fast as it can"),
        default=0.0,
        metavar="X",
        help="simulated table: X times real time (default 0: as fast as it can)",
    )
    parser.add_argument(
        "--max-rounds",
        type=whole(1),
        default=DEFAULT_MAX_ROUNDS,
        metavar="N",
        help="simulated table: stop after this many rounds",
    )
    parser.add_argument(
        "--stay",
        action="store_true",
        help="simulated table: keep running (and serving the page) after the "
        "game ends, until interrupted",
    )
    parser.add_argument(
        "--spin-from-page",
        action="store_true",
        help="simulated table: the simulated players leave the spin to the "
        "page's Spin (or the button)",
    )
    parser.add_argument(
        "--no-web",
        action="store_true",
        help="do not serve the table's page (as [web] enabled = false)",
    )
    parser.add_argument(
        "--bind",
        type=_bind,
        default=None,
        metavar="HOST:PORT",
        help="where the page listens (overrides [web] bind)",
    )
    parser.set_defaults(func=run, config_error_exit=78)  # EX_CONFIG: not restarted


class _ClockFormatter(logging.Formatter):
    def __init__(self, clock: Clock) -> None:
        super().__init__("%(message)s")
        self.clock = clock

    def format(self, record: logging.LogRecord) -> str:
        return f"[{self.clock.monotonic():8.1f} s] {super().format(record)}"


def _logging(clock: Clock, simulate: bool) -> logging.Handler:
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(_ClockFormatter(clock) if simulate else logging.Formatter("%(message)s"))
    logger = logging.getLogger("bermuda_hw.controller")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return handler


@contextlib.contextmanager
def _logged(clock: Clock, simulate: bool) -> Iterator[None]:
    """The controller's log on stdout while the daemon runs."""
    handler = _logging(clock, simulate)
    try:
        yield
    finally:
        logging.getLogger("bermuda_hw.controller").removeHandler(handler)


def _config(args: argparse.Namespace, simulate: bool) -> Config:
    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    config = load_config(path)
    if simulate:
        factor = 0.0 if args.speed == 0 else 1.0 / args.speed
        config = config.model_copy(
            update={
                "sim": config.sim.model_copy(update={"real_time_factor": factor}),
                "camera": config.camera.unless_written(SIM_CAMERA),
            }
        )
    return config


def _start_page(
    controller: Controller,
    board: Board,
    config: Config,
    state_dir: Path,
    simulate: bool,
    bind: str | None,
) -> Page:
    from bermuda_hw.web.pairing import pairing_url
    from bermuda_hw.web.service import start_page

    web = config.web
    if bind is not None:
        web = web.model_copy(update={"bind": _bind(bind)})
    try:
        page = start_page(controller, board, web, state_dir, simulate=simulate)
    except ConfigError as exc:
        if exc.key != "web.bind":
            raise
        # named where the address came from: the command line, the file, or the default
        if bind is not None:
            raise ConfigError("--bind", None, exc.problem) from None
        raise ConfigError(config.source, exc.key, exc.problem) from None
    shown = "read-only" if web.public_view else "shows nothing before pairing"
    controller.say(
        f"the table's page: {page.url} ({shown}; to pair a phone: "
        f"bermuda-hw token --state-dir {state_dir})"
    )
    if simulate:
        controller.say(f"paired link for this machine: {pairing_url(page.local_url, page.token)}")
    return page


class StopOnInterrupt:
    """Ctrl-C (SIGINT) stops the table as SIGTERM does: a stop requested, never an exception
    raised wherever the program happens to be. An exception could leave the I2C bus locked
    half-way into a transfer (the Adafruit drivers' `I2CDevice` takes the bus in a loop and
    releases it only when its `with` block ends), and the motors-off on the way out would
    then wait for that bus forever. The first press stops; any more are ignored while the
    table winds down (motors stopped, the journal closed)."""

    def __init__(self, early_stop: threading.Event) -> None:
        self.early_stop = early_stop
        self.pressed = False
        self.stop: Callable[[], None] | None = None  # the controller's, once it exists
        self._previous: Any = None
        self._installed = threading.current_thread() is threading.main_thread()
        if self._installed:
            self._previous = signal.signal(signal.SIGINT, self._interrupted)

    def _interrupted(self, signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.pressed = True
        self.early_stop.set()
        if self.stop is not None:
            self.stop()

    def restore(self) -> None:
        """The caller's handler back, unless a press came (then presses stay ignored until
        the process has exited, or its caller restores its own)."""
        if self._installed and not self.pressed:
            signal.signal(signal.SIGINT, self._previous)


def run(args: argparse.Namespace) -> int:
    # SIGTERM and Ctrl-C before the controller exists (checks, opening the rig) are
    # remembered, then obeyed
    early_stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: early_stop.set())
    interrupt = StopOnInterrupt(early_stop)
    try:
        return _run(args, interrupt)
    finally:
        signal.signal(signal.SIGTERM, previous)
        interrupt.restore()


def _run(args: argparse.Namespace, interrupt: StopOnInterrupt) -> int:
    simulate = bool(getattr(args, "simulate", False))
    config = _config(args, simulate)
    camera_config = config.camera
    board = load_board(args.board)
    options = new_game_options(args.players or 4, board, die=args.die, computer=args.computer)
    state_dir = args.state_dir
    if state_dir is None and simulate:
        # the simulated table never writes into the real table's journal
        state_dir = Path(tempfile.mkdtemp(prefix="bermuda-hw-sim-"))
        print(f"state directory: {state_dir} (pass --state-dir {state_dir} to resume this game)")
    elif state_dir is None:
        state_dir = state_dir_default()
    prepare_state_dir(state_dir, write=True)
    lock = StateLock(state_dir, "bermuda-hw run").acquire()
    pointer = simulation_pointer() if simulate else None
    if pointer is not None:
        # `bermuda-hw game show` (no --state-dir) finds the running simulation by it
        with contextlib.suppress(OSError):
            pointer.write_text(f"{state_dir.resolve()}\n", encoding="utf-8")
    try:
        return _run_locked(
            args, simulate, config, camera_config, board, options, state_dir, interrupt
        )
    finally:
        if pointer is not None:
            with contextlib.suppress(OSError):
                if pointer.read_text(encoding="utf-8").strip() == str(state_dir.resolve()):
                    pointer.unlink()
        lock.release()


def _run_locked(
    args: argparse.Namespace,
    simulate: bool,
    config: Config,
    camera_config: CameraConfig,
    board: Board,
    options: GameOptions,
    state_dir: Path,
    interrupt: StopOnInterrupt,
) -> int:
    from bermuda_hw.controller.status import Mode
    from bermuda_hw.controller.table import TableParts, build_parts

    reader = None
    if camera_config.calibration:
        from bermuda_hw.vision import BoardReader, load_calibration

        reader = BoardReader(board, load_calibration(camera_config.calibration, board.ship_colors))
    with (
        Journal.in_state_dir(state_dir) as journal,
        create_backend(config, simulate, board=board) as backend,
        # before the devices: the pin factory and gpiochip are logged when they are built
        _logged(backend.clock, simulate),
        contextlib.ExitStack() as parts_closed,
    ):
        players = args.players or 4
        if simulate:
            from bermuda_hw.backends.sim import SimBackend
            from bermuda_hw.sim.table import SimTable
            from bermuda_hw.sim.truth import TRUTH_FILE, TruthLog

            assert isinstance(backend, SimBackend)
            parts: TableParts = SimTable.build(
                config,
                board,
                state_dir,
                backend=backend,
                journal=journal,
                reader=reader,
                players=players,
                seed=args.seed,
                options=options,
                truth=TruthLog(state_dir / TRUTH_FILE),  # the players' true moves
                presses_spin=not args.spin_from_page,
            )
        else:
            parts = build_parts(
                backend,
                board,
                config,
                journal,
                camera=camera_config,
                reader=reader,
                players=players,
                seed=args.seed,
                options=options,
            )
        parts_closed.callback(parts.close)
        controller = parts.controller
        current = journal.current()
        if current is not None and (
            args.players is not None or args.seed is not None or args.computer
        ):
            controller.say(
                f"{state_dir}: game {current.id} is in the journal and resumes as "
                "it is: --players, --seed and --computer apply only to a new game "
                "(`bermuda-hw game new`)"
            )

        # the controller's steps since the game last changed (a step in a fault reads no
        # frame, so steps are counted, not frames)
        progress = {"seq": -1, "steps": 0}

        def finished() -> bool:
            game = controller.game
            if not simulate or game is None:
                return False
            status = controller.status
            if args.stay:
                return False
            progress["steps"] += 1
            waits_for_page = args.spin_from_page and status.mode is Mode.SPIN
            if status.seq != progress["seq"] or status.paused or waits_for_page:
                progress.update(seq=status.seq, steps=0)
            elif progress["steps"] > STUCK_STEPS:
                what = (
                    f"it stayed in a fault ({status.fault}); "
                    if status.mode is Mode.FAULT
                    else f"{status.mode.value}: {status.message}; "
                )
                raise StateError(
                    f"the simulated table made no progress in {STUCK_STEPS} "
                    f"steps: {what}the game is saved: run `bermuda-hw run "
                    "--simulate` again to resume it"
                )
            return status.mode is Mode.OVER or game.round > args.max_rounds

        page = None
        voice = None
        if config.voice.enabled:
            from bermuda_hw.voice import Voice

            voice = Voice(config.voice)
            controller.listeners.append(voice.announce)
        signal.signal(signal.SIGTERM, lambda *_: controller.request_stop())
        interrupt.stop = controller.request_stop
        if interrupt.early_stop.is_set():
            controller.request_stop()
        interrupted = False
        try:
            if config.web.enabled and not args.no_web:
                page = _start_page(controller, board, config, state_dir, simulate, args.bind)
            controller.run(until=finished)
        except KeyboardInterrupt:  # a handler of the caller's own (not `StopOnInterrupt`)
            interrupted = True
        except HardwareError:
            if not controller.stopping:  # the stop itself interrupts homing or a move
                raise
        finally:
            if page is not None:
                page.stop()
            if voice is not None:
                voice.close()
            parts.close()
        interrupted = interrupted or interrupt.pressed
        if interrupted:
            controller.say("interrupted: motors stopped, the game is saved")
        elif controller.stopping:
            print("stopping: motors stopped, the game is saved", flush=True)
        if simulate:
            status = controller.status
            print(
                f"frames read: {status.frames}, stable observations: {status.observations}, "
                f"simulated time: {backend.clock.monotonic():.1f} s"
            )
    return EXIT_INTERRUPTED if interrupted else 0
