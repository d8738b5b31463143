"""Fixtures for the controller: a whole simulated table (rig, camera, players) per test."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device

from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.backends.camera_config import parse_camera_config
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config, load_config
from bermuda_hw.controller.daemon import Controller
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.status import Mode
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import GameOptions
from bermuda_hw.sim.players import SimulatedPlayers
from bermuda_hw.sim.world import World
from bermuda_hw.vision.stability import StabilitySettings

# The helpers module beside this file (rendered observations for the referee's tests).
sys.path.insert(0, str(Path(__file__).parent))

FAST_TABLE = """
# quarter microsteps (20 steps/mm): the same rig physics with fewer steps to simulate
[gantry.x]
microsteps = 4
[gantry.y]
microsteps = 4
[controls]
estop_pin = 4
buzzer_pin = 12
[camera]
width_px = 640
height_px = 480
stable_frames = 2
stable_min_time_s = 0.1
"""


@pytest.fixture(scope="session")
def board() -> Board:
    return load_board()


@pytest.fixture(scope="session")
def table_config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    path = tmp_path_factory.mktemp("config") / "table.toml"
    path.write_text(FAST_TABLE)
    return load_config(path)


@dataclass
class Table:
    """One simulated table and the controller watching it."""

    board: Board
    config: Config
    world: World
    backend: SimBackend
    mover: CloudMover
    controls: TableControls
    journal: Journal
    controller: Controller
    players: SimulatedPlayers | None
    state_dir: Path
    log: list[str]

    def press(self, bcm: int | None = None) -> None:
        pin = self.backend.pin(bcm if bcm is not None else self.config.controls.spin_button_pin)
        pin.drive_low()
        pin.drive_high()

    def steps(self, n: int, until: Callable[[], bool] | None = None) -> int:
        """Run up to n frames (stop early when `until()`); how many ran."""
        for i in range(n):
            if until is not None and until():
                return i
            self.controller.step()
        return n

    def run_until(self, until: Callable[[], bool], limit: int = 400) -> None:
        ran = self.steps(limit, until)
        assert until(), (f"not reached in {ran} frames; mode {self.controller.status.mode}: "
                         f"{self.controller.status.message}\n" + "\n".join(self.log[-30:]))

    def mode(self) -> Mode:
        return self.controller.status.mode


@pytest.fixture
def make_table(
    board: Board, table_config: Config, tmp_path: Path
) -> Iterator[Callable[..., Table]]:
    """Build a simulated table; several may share a world and a state directory (a restart)."""
    made: list[Table] = []
    previous = Device.pin_factory

    def make(*, world: World | None = None, state_dir: Path | None = None, players: int = 2,
             seed: int = 1, with_players: bool = True, start: bool = True,
             config: Config | None = None, options: GameOptions | None = None,
             **player_options: Any) -> Table:
        config = config or table_config
        world = world if world is not None else World(board)
        state_dir = state_dir or tmp_path / "state"
        backend = SimBackend(config, world)
        mover = CloudMover(config, backend, board)
        controls = TableControls(config.controls, pin_factory=backend.pin_factory)
        journal = Journal.in_state_dir(state_dir)
        camera_config = parse_camera_config(config.camera)
        sim_players: list[SimulatedPlayers] = []

        def open_camera() -> CameraSource:
            camera = backend.open_camera(board, camera_config)
            for p in sim_players:
                assert backend.scene is not None
                p.scene = backend.scene
                p.attach()
            return camera

        controller = Controller(
            board=board, journal=journal, open_camera=open_camera, mover=mover,
            controls=controls, clock=backend.clock,
            stability=StabilitySettings(camera_config.stable_frames,
                                        camera_config.stable_min_time_s),
            players=players, seed=seed, options=options,
        )
        log: list[str] = []
        controller.listeners.append(log.append)
        table_players = None
        if with_players:
            from bermuda_hw.sim.scene import WorldScene

            table_players = SimulatedPlayers(
                controller, world, WorldScene(world, board),
                backend.pin(config.controls.spin_button_pin), seed=seed, **player_options)
            sim_players.append(table_players)
        table = Table(board, config, world, backend, mover, controls, journal, controller,
                      table_players, state_dir, log)
        made.append(table)
        if start:
            controller.start()
        return table

    try:
        yield make
    finally:
        for table in made:
            table.controller.close()
            table.controls.close()
            table.mover.close()
            table.backend.close()
            table.journal.close()
        Device.pin_factory = previous


def shared_config(config: Config, **camera: Any) -> Config:
    return dataclasses.replace(config, camera={**dict(config.camera), **camera})
