"""`bermuda-hw run`: the table's controller daemon, on the rig or on the simulated table."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from bermuda_hw.backends import create_backend
from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.backends.camera_config import parse_camera_config
from bermuda_hw.cli.play import _players
from bermuda_hw.config import DEFAULT_CONFIG_PATH, Config, load_config
from bermuda_hw.controller.journal import DEFAULT_STATE_DIR, Journal
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.errors import ConfigError, StateError
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.rules.board import load_board
from bermuda_hw.rules.game import DIE_MODES, GameOptions

# The simulated table renders small frames and settles on fewer of them: a fast game.
SIM_CAMERA = {"width_px": 640, "height_px": 480, "stable_frames": 2, "stable_min_time_s": 0.1}
DEFAULT_MAX_ROUNDS = 400
STUCK_FRAMES = 3000  # the simulated players always act well within this


def state_dir_default() -> Path:
    """systemd's `StateDirectory=` (in $STATE_DIRECTORY), else /var/lib/bermuda-hw."""
    env = os.environ.get("STATE_DIRECTORY")
    return Path(env.split(":")[0]) if env else DEFAULT_STATE_DIR


def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", type=Path, default=None, metavar="DIR",
                        help="where the journal lives (default $STATE_DIRECTORY or "
                             f"{DEFAULT_STATE_DIR})")
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
    parser.add_argument("--config", type=Path, default=None,
                        help=f"configuration file (default {DEFAULT_CONFIG_PATH} if present)")
    add_common(parser)
    parser.add_argument("--players", type=_players, default=4, metavar="N",
                        help="players in a new game, 2 to 4 (default 4)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="seed of a new game's spinner (and of the simulated players)")
    parser.add_argument("--die", choices=DIE_MODES, default="table",
                        help="who rolls in a new game: the table's physical die (default), "
                        "or a virtual die rolled by a press of the spin button")
    parser.add_argument("--simulate", action="store_true", default=argparse.SUPPRESS,
                        help="run on the simulated table, with simulated players")
    parser.add_argument("--speed", type=float, default=0.0, metavar="X",
                        help="simulated table: X times real time (default 0: as fast as it "
                             "can)")
    parser.add_argument("--max-rounds", type=int, default=DEFAULT_MAX_ROUNDS, metavar="N",
                        help="simulated table: stop after this many rounds")
    parser.set_defaults(func=run)


class _ClockFormatter(logging.Formatter):
    def __init__(self, clock: Any) -> None:
        super().__init__("%(message)s")
        self.clock = clock

    def format(self, record: logging.LogRecord) -> str:
        return f"[{self.clock.monotonic():8.1f} s] {super().format(record)}"


def _logging(clock: Any, simulate: bool) -> logging.Handler:
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(_ClockFormatter(clock) if simulate else logging.Formatter("%(message)s"))
    logger = logging.getLogger("bermuda_hw.controller")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return handler


def _config(args: argparse.Namespace, simulate: bool) -> Config:
    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    config = load_config(path)
    if simulate:
        if args.speed < 0:
            raise ConfigError(None, "--speed", f"must be at least 0, not {args.speed:g}")
        factor = 0.0 if args.speed == 0 else 1.0 / args.speed
        camera = {**SIM_CAMERA, **dict(config.camera)}
        config = dataclasses.replace(
            config, sim=dataclasses.replace(config.sim, real_time_factor=factor), camera=camera
        )
    return config


def run(args: argparse.Namespace) -> int:
    from bermuda_hw.controller.daemon import Controller
    from bermuda_hw.controller.status import Mode
    from bermuda_hw.vision.stability import StabilitySettings

    simulate = bool(getattr(args, "simulate", False))
    config = _config(args, simulate)
    camera_config = parse_camera_config(config.camera, config.source)
    board = load_board(args.board)
    state_dir = args.state_dir or state_dir_default()
    world = None
    if simulate:
        from bermuda_hw.backends.sim import SimBackend
        from bermuda_hw.sim.world import World

        world = World(board)
        backend: Any = SimBackend(config, world)
    else:
        backend = create_backend(config, False)
    reader = None
    if camera_config.calibration:
        from bermuda_hw.vision import BoardReader, load_calibration

        reader = BoardReader(board, load_calibration(camera_config.calibration,
                                                        board.ship_colors))
    players: Any = None
    with (
        Journal.in_state_dir(state_dir) as journal,
        backend,
        CloudMover(config, backend, board) as mover,
        TableControls(config.controls, pin_factory=backend.pin_factory) as controls,
    ):
        handler = _logging(backend.clock, simulate)

        def open_camera() -> CameraSource:
            camera: CameraSource = backend.open_camera(board, camera_config)
            if players is not None:
                players.scene = backend.scene
                players.attach()
            return camera

        controller = Controller(
            board=board, journal=journal, open_camera=open_camera, mover=mover,
            controls=controls, clock=backend.clock, reader=reader,
            stability=StabilitySettings(camera_config.stable_frames,
                                        camera_config.stable_min_time_s),
            players=args.players, seed=args.seed, options=GameOptions(die=args.die),
        )
        if simulate:
            from bermuda_hw.sim.players import SimulatedPlayers
            from bermuda_hw.sim.scene import WorldScene

            assert world is not None
            players = SimulatedPlayers(
                controller, world, WorldScene(world, board),
                backend.pin(config.controls.spin_button_pin),
                seed=args.seed if args.seed is not None else 0,
            )

        progress = {"seq": -1, "frame": 0}

        def finished() -> bool:
            game = controller.game
            if not simulate or game is None:
                return False
            status = controller.status
            if status.seq != progress["seq"]:
                progress.update(seq=status.seq, frame=status.frames)
            elif status.frames - progress["frame"] > STUCK_FRAMES:
                raise StateError(f"the simulated table made no progress in {STUCK_FRAMES} "
                                 f"frames ({status.mode.value}: {status.message}); the game "
                                 "is saved")
            return status.mode is Mode.OVER or game.round > args.max_rounds

        previous = signal.signal(signal.SIGTERM, lambda *_: controller.request_stop())
        try:
            controller.run(until=finished)
        except KeyboardInterrupt:
            controller.say("interrupted: motors stopped, the game is saved")
        finally:
            signal.signal(signal.SIGTERM, previous)
            controller.close()
            logging.getLogger("bermuda_hw.controller").removeHandler(handler)
        if simulate:
            status = controller.status
            print(f"frames read: {status.frames}, stable observations: {status.observations}, "
                  f"simulated time: {backend.clock.monotonic():.1f} s")
    return 0
