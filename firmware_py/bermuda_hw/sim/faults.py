"""Faults in what the simulated camera renders: a ship seen in another colour, or not at all.

`SceneFaults` wraps the scene the simulated camera renders each frame
from. With probability `p` per frame it picks one ship the camera can see
(clear of the cloud and of a hand) and either draws it in another ship
colour or leaves it out. In `single` mode the fault lasts one frame; in
`run` mode it lasts as long as the table does not change (a whole stable
run, as a glare or a shadow would), at most `run_frames` frames. Vision
then reads the faulty frame as it would a real one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bermuda_hw.sim.render import Scene, ShipToken

FaultMode = Literal["single", "run"]
HAND_CLEARANCE_MM = 60.0  # ships this close to a hand's fingertip may be hidden by it anyway


@dataclass(frozen=True)
class Fault:
    """One token drawn wrong: `color` None means not drawn at all."""

    x_mm: float
    y_mm: float
    color: str | None

    def __str__(self) -> str:
        what = "dropped" if self.color is None else f"drawn {self.color}"
        return f"ship at ({self.x_mm:.0f}, {self.y_mm:.0f}) mm {what}"


class SceneFaults:
    """A scene provider's wrapper that flips or drops one visible ship with probability p."""

    def __init__(
        self,
        colors: Sequence[str],
        p: float,
        *,
        mode: FaultMode = "single",
        seed: int = 0,
        hidden_radius_mm: float = 80.0,
        run_frames: int = 20,
    ) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a fault probability is between 0 and 1, not {p}")
        if mode not in ("single", "run"):
            raise ValueError(f"fault mode is 'single' or 'run', not {mode!r}")
        self.colors = tuple(colors)
        self.p = p
        self.mode = mode
        self.rng = random.Random(f"faults:{seed}")
        self.hidden_radius_mm = hidden_radius_mm
        self.run_frames = run_frames
        self.injected: list[Fault] = []  # one entry per fault drawn (a run counts once)
        self.faulty_frames = 0
        self._active: Fault | None = None
        self._active_ships: tuple[ShipToken, ...] = ()
        self._active_frames = 0

    def wrap(self, scene: Callable[[], Scene]) -> Callable[[], Scene]:
        """A scene provider that renders `scene()` with the faults."""
        return lambda: self(scene())

    def _visible(self, scene: Scene) -> list[ShipToken]:
        out = []
        for token in scene.ships:
            if (
                scene.cloud is not None
                and math.dist((token.x_mm, token.y_mm), (scene.cloud.x_mm, scene.cloud.y_mm))
                <= self.hidden_radius_mm
            ):
                continue
            if (
                scene.hand is not None
                and math.dist((token.x_mm, token.y_mm), (scene.hand.x_mm, scene.hand.y_mm))
                <= HAND_CLEARANCE_MM
            ):
                continue
            out.append(token)
        return out

    def __call__(self, scene: Scene) -> Scene:
        fault = self._active
        if fault is not None and (
            self.mode == "single"
            or scene.ships != self._active_ships
            or self._active_frames >= self.run_frames
        ):
            fault = self._active = None  # the table changed, or the run is over
        if fault is None and self.rng.random() < self.p:
            visible = self._visible(scene)
            if visible:
                token = self.rng.choice(visible)
                others = [c for c in self.colors if c != token.color]
                color = self.rng.choice(others) if others and self.rng.random() < 0.5 else None
                fault = self._active = Fault(token.x_mm, token.y_mm, color)
                self._active_ships = scene.ships
                self._active_frames = 0
                self.injected.append(fault)
        if fault is None:
            return scene
        self._active_frames += 1
        self.faulty_frames += 1
        ships = []
        for token in scene.ships:
            if (token.x_mm, token.y_mm) == (fault.x_mm, fault.y_mm):
                if fault.color is None:
                    continue
                token = replace(token, color=fault.color)
            ships.append(token)
        return replace(scene, ships=tuple(ships))
