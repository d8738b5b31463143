"""The whole simulated table in one value: rig, world, camera, players, journal and controller.

`SimTable.build` is the one place the simulated table is put together, for
`bermuda-hw run --simulate`, the whole-game sessions, the chaos campaign and
the tests. The controller is wired to the simulated backend exactly as to the
real one (`bermuda_hw.controller.table.build_parts`); the players act in the
world before every frame the simulated camera renders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.status import Mode
from bermuda_hw.controller.table import TableParts, build_parts
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import GameOptions
from bermuda_hw.sim.faults import SceneFaults
from bermuda_hw.sim.players import SimulatedPlayers
from bermuda_hw.sim.render import Scene
from bermuda_hw.sim.scene import WorldScene
from bermuda_hw.sim.world import World
from bermuda_hw.vision.reader import BoardReader


@dataclass
class SimTable(TableParts):
    """One simulated table: its world and backend, the journal, the controller's parts, the
    players."""

    board: Board
    config: Config
    world: World
    backend: SimBackend
    journal: Journal
    players: SimulatedPlayers | None
    state_dir: Path
    log: list[str] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        config: Config,
        board: Board,
        state_dir: Path,
        *,
        backend: SimBackend | None = None,
        world: World | None = None,
        journal: Journal | None = None,
        reader: BoardReader | None = None,
        players: int = 2,
        seed: int | None = 1,
        options: GameOptions | None = None,
        with_players: bool = True,
        faults: SceneFaults | None = None,
        **player_options: Any,
    ) -> Self:
        """Build the table on `state_dir`'s journal (opened here unless `journal` is given).

        `backend` (else a new simulated backend over `world`, else over a new
        world of `board`); `seed` seeds a new game's spinner and the players
        (0 for the players when None); `player_options` go to
        `SimulatedPlayers` (e.g. `truth=`, `hand_chance=`, `style=`).
        """
        if backend is None:
            backend = SimBackend(config, world if world is not None else World(board))
        world = backend.rig.world
        if faults is not None:

            def wrapped(scene: Callable[[], Scene]) -> Callable[[], Scene]:
                assert faults is not None
                return faults.wrap(scene)

            backend.scene_wrapper = wrapped
        if journal is None:
            journal = Journal.in_state_dir(state_dir)
        acting: list[SimulatedPlayers] = []

        def on_camera() -> None:
            # the players act on the scene the camera renders, before each of its frames
            for p in acting:
                assert backend is not None and backend.scene is not None
                p.scene = backend.scene
                p.attach()

        parts = build_parts(
            backend,
            board,
            config,
            journal,
            camera=config.camera,
            reader=reader,
            players=players,
            seed=seed,
            options=options,
            on_camera=on_camera,
        )
        table_players = None
        if with_players:
            player_options.setdefault("clock", backend.clock.monotonic)
            table_players = SimulatedPlayers(
                parts.controller,
                world,
                WorldScene(world, board),
                backend.pin(config.controls.spin_button_pin),
                seed=seed if seed is not None else 0,
                **player_options,
            )
            acting.append(table_players)
            backend.virtual_clock.listeners.append(table_players.on_clock)
        table = cls(
            parts.motion,
            parts.controller,
            board,
            config,
            world,
            backend,
            journal,
            table_players,
            state_dir,
        )
        table.controller.listeners.append(table.log.append)
        return table

    def mode(self) -> Mode:
        return self.controller.status.mode

    def press(self, bcm: int | None = None) -> None:
        """A press of a button (the spin button unless `bcm` names another pin)."""
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

    def close(self) -> None:
        """Stop the controller, release the devices, the backend and the journal."""
        try:
            super().close()
        finally:
            self.backend.close()
            self.journal.close()
