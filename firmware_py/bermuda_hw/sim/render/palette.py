"""How the printed board and the ship tokens look: colours and ship shape."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from bermuda_hw.sim.render.draw import clip8
from bermuda_hw.sim.render.printing import Printing
from bermuda_hw.sim.render.scene import BGR


@dataclass(frozen=True)
class ShipStyle:
    """The shape of the ship tokens: hull length and beam, bow style."""

    length_mm: float = 22.0
    beam_mm: float = 9.0
    bow: Literal["pointed", "round", "square"] = "pointed"


DEFAULT_SHIP_COLORS: dict[str, BGR] = {
    "blue": (160, 60, 15),
    "yellow": (30, 205, 240),
    "green": (60, 150, 30),
    "red": (40, 40, 200),
}


@dataclass(frozen=True)
class Palette:
    """Colours of the printed board and of the ship tokens (BGR)."""

    sea: BGR = (195, 150, 75)
    land: BGR = (110, 170, 175)
    table: BGR = (70, 100, 140)
    space: BGR = (245, 245, 240)
    port: BGR = (170, 215, 235)
    ink: BGR = (50, 40, 30)
    cloud: BGR = (215, 215, 220)
    ships: tuple[tuple[str, BGR], ...] = tuple(DEFAULT_SHIP_COLORS.items())
    ship_style: ShipStyle = field(default_factory=ShipStyle)
    printing: Printing = field(default_factory=Printing)  # artwork not in the board file

    def ship_bgr(self, color: str) -> BGR:
        for name, bgr in self.ships:
            if name == color:
                return bgr
        raise KeyError(f"no colour {color!r} in the palette")

    @classmethod
    def random(cls, rng: random.Random, strength: float = 1.0) -> Palette:
        """A palette jittered around the default: other printings, other plastics."""

        def jitter(bgr: BGR, amount: float) -> BGR:
            return (
                clip8(bgr[0] + rng.uniform(-amount, amount) * strength),
                clip8(bgr[1] + rng.uniform(-amount, amount) * strength),
                clip8(bgr[2] + rng.uniform(-amount, amount) * strength),
            )

        base = cls()
        style = ShipStyle(
            length_mm=rng.uniform(19.0, 24.0),
            beam_mm=rng.uniform(8.0, 11.0),
            bow=rng.choice(("pointed", "round", "square")),
        )
        return cls(
            sea=jitter(base.sea, 20),
            land=jitter(base.land, 20),
            table=jitter(base.table, 40),
            space=jitter(base.space, 8),
            port=jitter(base.port, 15),
            ink=base.ink,
            cloud=jitter(base.cloud, 10),
            ships=tuple((name, jitter(bgr, 18)) for name, bgr in base.ships),
            ship_style=style,
        )
