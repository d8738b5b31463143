"""What vision reports: ships, the cloud, a reading of one frame, a stable observation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bermuda_hw.rules.board import LETTERS

if TYPE_CHECKING:
    from bermuda_hw.vision.evidence import BoardEvidence


@dataclass(frozen=True)
class ShipReading:
    """A ship seen (or known hidden) on the board.

    `space` is a space id, a port id (for a ship in a berth) or None for a ship
    off every space. `hidden` ships are under the cloud: not seen in this frame
    but known from the last stable observation.
    """

    color: str
    space: str | None
    x_mm: float
    y_mm: float
    confidence: float = 1.0
    hidden: bool = False
    berth: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "color": self.color,
            "space": self.space,
            "x_mm": round(self.x_mm, 1),
            "y_mm": round(self.y_mm, 1),
            "confidence": round(self.confidence, 3),
        }
        if self.berth is not None:
            out["berth"] = self.berth
        if self.hidden:
            out["hidden"] = True
        return out


@dataclass(frozen=True)
class CloudReading:
    """The cloud: the dot nearest its locater, the letter at the notch, and its raw pose."""

    col: int
    row: int
    letter: int
    x_mm: float
    y_mm: float
    heading_deg: float
    confidence: float = 1.0

    @property
    def letter_name(self) -> str:
        return LETTERS[self.letter]

    def to_json(self) -> dict[str, Any]:
        return {
            "col": self.col,
            "row": self.row,
            "letter": self.letter_name,
            "x_mm": round(self.x_mm, 1),
            "y_mm": round(self.y_mm, 1),
            "heading_deg": round(self.heading_deg, 1),
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class FrameReading:
    """Everything read from one frame; `board_found` False means nothing else is valid."""

    board_found: bool
    occluded: bool = False
    ships: tuple[ShipReading, ...] = ()
    cloud: CloudReading | None = None
    hidden_spaces: frozenset[str] = frozenset()
    markers_seen: tuple[int, ...] = ()
    pose_error_px: float | None = None
    pose_source: str = "none"
    timestamp_s: float = 0.0
    error: str | None = None
    #: Per-place evidence (colour fractions, observability); None without the board.
    evidence: BoardEvidence | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "board_found": self.board_found,
            "occluded": self.occluded,
            "ships": [s.to_json() for s in self.ships],
            "cloud": self.cloud.to_json() if self.cloud is not None else None,
            "hidden_spaces": sorted(self.hidden_spaces),
            "markers_seen": list(self.markers_seen),
            "pose_error_px": (
                round(self.pose_error_px, 3) if self.pose_error_px is not None else None
            ),
        }
        if self.error is not None:
            out["error"] = self.error
        return out

    def state_key(self) -> tuple[tuple[tuple[str, str | None], ...], tuple[int, int, int] | None]:
        """What must agree between frames for a stable reading: ships by place, cloud pose."""
        ships = tuple(sorted(((s.color, s.space) for s in self.ships if not s.hidden),
                             key=lambda item: (item[0], item[1] or "")))
        cloud = (self.cloud.col, self.cloud.row, self.cloud.letter) if self.cloud else None
        return ships, cloud


@dataclass(frozen=True)
class BoardObservation:
    """A stable state of the board: several consecutive unoccluded frames agreed on it."""

    ships: tuple[ShipReading, ...]
    cloud: CloudReading | None
    timestamp_s: float
    frames: int
    hidden_spaces: frozenset[str] = field(default_factory=frozenset)
    #: The run's per-place evidence, averaged over its frames (None if not measured).
    evidence: BoardEvidence | None = field(default=None, compare=False, repr=False)

    def ships_at(self, space: str) -> list[ShipReading]:
        return [s for s in self.ships if s.space == space]

    def to_json(self) -> dict[str, Any]:
        return {
            "timestamp_s": round(self.timestamp_s, 3),
            "frames": self.frames,
            "ships": [s.to_json() for s in self.ships],
            "cloud": self.cloud.to_json() if self.cloud is not None else None,
            "hidden_spaces": sorted(self.hidden_spaces),
        }
