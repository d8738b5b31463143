"""Fixtures for the controller: a whole simulated table (rig, camera, players) per test."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device

from bermuda_hw.config import Config, load_config
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import GameOptions
from bermuda_hw.sim.table import SimTable
from bermuda_hw.sim.world import World

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


class Table(SimTable):
    """One simulated table and the controller watching it."""

    def run_until(
        self, until: Callable[[], bool], limit: int = 400, *, every_s: float | None = None
    ) -> None:
        """Frames until `until()`, at most `limit`; with `every_s`, the frames that far apart in
        the table's time (`sparse_steps`)."""
        if every_s is None:
            ran = self.steps(limit, until)
        else:
            ran = self.sparse_steps(limit, every_s, until)
        assert until(), (
            f"not reached in {ran} frames; mode {self.controller.status.mode}: "
            f"{self.controller.status.message}\n" + "\n".join(self.log[-30:])
        )

    def sparse_steps(self, n: int, every_s: float, until: Callable[[], bool] | None = None) -> int:
        """Up to n frames `every_s` apart in the table's time instead of the camera's frame
        time (0.1 s): a quiet minute in a tenth of the frames. The controller still reads
        every one of them and acts on the clock between them as on the Pi (a slow camera);
        only the frames in between, each the same board as the last, are left out. The
        waits this is for are in seconds of the table's clock, never in frames."""
        clock = self.backend.virtual_clock
        gap_s = every_s - 1.0 / self.config.camera.replay_fps
        assert gap_s >= 0.0, "every_s is shorter than the camera's frame time"
        for i in range(n):
            if until is not None and until():
                return i
            clock.advance(gap_s)
            self.controller.step()
        return n


@pytest.fixture
def make_table(
    board: Board, table_config: Config, tmp_path: Path
) -> Iterator[Callable[..., Table]]:
    """Build a simulated table; several may share a world and a state directory (a restart)."""
    made: list[Table] = []
    previous = Device.pin_factory

    def make(
        *,
        world: World | None = None,
        state_dir: Path | None = None,
        players: int = 2,
        seed: int = 1,
        with_players: bool = True,
        start: bool = True,
        config: Config | None = None,
        options: GameOptions | None = None,
        **player_options: Any,
    ) -> Table:
        table = Table.build(
            config or table_config,
            board,
            state_dir or tmp_path / "state",
            world=world,
            players=players,
            seed=seed,
            with_players=with_players,
            options=options,
            **player_options,
        )
        made.append(table)
        if start:
            table.controller.start()
        return table

    try:
        yield make
    finally:
        for table in made:
            table.close()
        Device.pin_factory = previous


def shared_config(config: Config, **camera: Any) -> Config:
    return config.model_copy(update={"camera": config.camera.model_copy(update=camera)})
