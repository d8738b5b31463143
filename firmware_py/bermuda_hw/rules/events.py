"""The events that moves and cloud phases cause, each a small immutable value with a text form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bermuda_hw.rules.cloud import CloudPose, Spin
from bermuda_hw.rules.moves import Move


def usd(value_usd: int) -> str:
    """A dollar amount as printed on the cards: $20,000."""
    return f"${value_usd:,}"


class EndReason(StrEnum):
    TARGET = "target"  # ruling 16: a player's cards reached the target
    FLEET_LOST = "fleet-lost"  # ruling 17: a player has no ships left
    CARDS_GONE = "cards-gone"  # ruling 18: every card has been taken


_REASON_TEXT = {
    EndReason.TARGET: "reached the target",
    EndReason.FLEET_LOST: "a player lost every ship",
    EndReason.CARDS_GONE: "every card has been taken",
}


@dataclass(frozen=True)
class Outcome:
    """How the game ended: the winners (seat order), every total and the reason."""

    reason: EndReason
    winners: tuple[str, ...]
    totals: Mapping[str, int] = field(hash=False)

    def __str__(self) -> str:
        who = " and ".join(self.winners)
        verb = "wins" if len(self.winners) == 1 else "share the win"
        return f"{who} {verb} ({_REASON_TEXT[self.reason]})"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the game."""


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A ship walked; `short` for a short move (ruling 7)."""

    move: Move
    die: int
    short: bool = False

    def __str__(self) -> str:
        kind = " (short move)" if self.short else ""
        return f"{self.move}{kind}"


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A player had no move and passed (ruling 8)."""

    color: str
    die: int

    def __str__(self) -> str:
        return f"{self.color} passes"


@dataclass(frozen=True, slots=True)
class Docked(Event):
    """A ship ended its walk in a port (ruling 3)."""

    ship: str
    port: str

    def __str__(self) -> str:
        return f"{self.ship} docks at {self.port}"


@dataclass(frozen=True, slots=True)
class CardTaken(Event):
    """A docking ship took the top card of its port's pile (ruling 9)."""

    color: str
    ship: str
    product: str
    value_usd: int

    def __str__(self) -> str:
        article = "an" if self.product[0] in "aeiou" else "a"
        return f"{self.color} takes {article} {self.product} card worth {usd(self.value_usd)}"


@dataclass(frozen=True, slots=True)
class BonusTaken(Event):
    """A ship docking at the Home Port took a bonus card (ruling 9)."""

    color: str
    ship: str
    value_usd: int

    def __str__(self) -> str:
        return f"{self.color} takes a Home Port bonus card worth {usd(self.value_usd)}"


@dataclass(frozen=True, slots=True)
class PileEmpty(Event):
    """A ship docked where no card was left to take."""

    ship: str
    port: str

    def __str__(self) -> str:
        return f"no card left at {self.port}"


@dataclass(frozen=True, slots=True)
class Bumped(Event):
    """A ship landed on by exact count went back to its previous port (ruling 5)."""

    ship: str
    space: str
    port: str

    def __str__(self) -> str:
        return f"{self.ship} is bumped from {self.space} back to {self.port}"


@dataclass(frozen=True, slots=True)
class Spun(Event):
    """The spinner's result (ruling 12)."""

    spin: Spin

    def __str__(self) -> str:
        return f"spin {self.spin}"


@dataclass(frozen=True, slots=True)
class CloudMoved(Event):
    """The cloud turned clockwise and moved (ruling 12)."""

    start: CloudPose
    end: CloudPose
    turn_deg: float

    def __str__(self) -> str:
        return f"cloud turns {self.turn_deg:g} deg and moves from {self.start} to {self.end}"


@dataclass(frozen=True, slots=True)
class Swept(Event):
    """Ships that came within reach of the cloud's magnets (ruling 14)."""

    ships: tuple[str, ...]

    def __str__(self) -> str:
        return f"swept: {', '.join(self.ships)}"


@dataclass(frozen=True, slots=True)
class Captured(Event):
    """Swept ships that the cloud took; they travel inside it (ruling 14)."""

    ships: tuple[str, ...]

    def __str__(self) -> str:
        return f"captured: {', '.join(self.ships)}"


@dataclass(frozen=True, slots=True)
class CloudRemoved(Event):
    """The cloud reached an outside dot: its ships are lost, it goes back to the centre (15)."""

    ships: tuple[str, ...]
    reset: CloudPose

    def __str__(self) -> str:
        lost = f"{', '.join(self.ships)} lost for good" if self.ships else "no ships in it"
        return f"cloud leaves the board ({lost}); reset to {self.reset}"


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game has ended (rulings 16-18)."""

    outcome: Outcome

    def __str__(self) -> str:
        return f"game over: {self.outcome}"
