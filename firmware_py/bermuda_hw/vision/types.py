"""What vision reports: ships, the cloud, a reading of one frame, a stable observation, and
the evidence per place that a frame or a stable run gives (`vision.evidence` measures it)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import LETTERS
from bermuda_hw.vision.counts import COUNTS, count_loglik

Floats = npt.NDArray[np.float64]


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
    #: the line of the token's length as read on its place, in degrees from 0 to 180 like
    #: a heading (a token's bow and stern are not told apart); None where its pixels there
    #: show no clear length (`ships.MIN_ELONGATION`) or where it is read off every place
    axis_deg: float | None = None

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
        ships = tuple(
            sorted(
                ((s.color, s.space) for s in self.ships if not s.hidden),
                key=lambda item: (item[0], item[1] or ""),
            )
        )
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


#: The colour fraction at which a ship is as likely present as not (a token fills ~0.45).
PRESENCE_FILL = 0.10
#: How sharply presence grows with the fraction around PRESENCE_FILL.
PRESENCE_SLOPE = 0.025
#: Presence probabilities are kept within [FLOOR, 1 - FLOOR]: no single place is certain.
FLOOR = 0.02

Content = tuple[str, ...]  # the colours of the ships on a place (empty: no ship)
PlaceKey = tuple[str, int | None]  # (space or port id, berth index or None)


def presence(fraction: float) -> float:
    """The probability that a ship of a colour is on a place, from its colour fraction."""
    z = (fraction - PRESENCE_FILL) / PRESENCE_SLOPE
    p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
    return min(1.0 - FLOOR, max(FLOOR, p))


@dataclass(eq=False)
class BoardEvidence:
    """Per-place evidence of one frame, or averaged over a stable run."""

    places: tuple[PlaceKey, ...]
    colors: tuple[str, ...]
    fractions: Floats  # places x colours: share of the place's disk like each colour
    background: Floats  # places: share like the place's own background
    observable: Floats  # places: 0 (hidden) .. 1 (clear)
    frames: int = 1
    #: places x colours: share of the place's wider disk like each colour (None: not measured)
    reach: Floats | None = None
    #: places x colours: each colour's area on the place (mm², `vision.counts`; None: not
    #: measured) and one token's area it is compared with
    areas: Floats | None = None
    token_area_mm2: float | None = None
    #: places x colours: for the path spaces the cloud's model hides beyond its footprint, the
    #: share of the place's disk like each colour as the frame shows it (NaN elsewhere, and
    #: where a stable run's frames did not all measure it; None: not measured at all). The
    #: evidence above counts these places as hidden.
    rim: Floats | None = None
    #: places: the share of the place's disk whose look the reader has learned (the board
    #: its pixels are compared with before they count for a ship, `vision.background`),
    #: for the places seen in part (NaN on the others, and where a stable run's frames did
    #: not all measure it; None: not measured at all)
    learned: Floats | None = None
    _index: dict[PlaceKey, int] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[int, Content], float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {p: i for i, p in enumerate(self.places)}

    def index(self, space: str, berth: int | None = None) -> int:
        return self._index[(space, berth)]

    def berths(self, port: str) -> list[int]:
        """Indices of a port's berths, in berth order."""
        return [i for i, (s, b) in enumerate(self.places) if s == port and b is not None]

    def observability(self, space: str, berth: int | None = None) -> float:
        return float(self.observable[self.index(space, berth)])

    def loglik(self, i: int, content: Content) -> float:
        """Log-likelihood of a place's content, scaled by its observability.

        `()` is an empty place; `("blue",)` one blue ship; `("blue", "red")`
        two or more ships, any of them on top (the best is taken): the ships
        below may show or not, at no cost.
        """
        key = (i, tuple(sorted(content)))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        obs = float(self.observable[i])
        if obs <= 0.0:
            self._cache[key] = 0.0
            return 0.0
        p = [presence(float(f)) for f in self.fractions[i]]
        absent = [math.log(1.0 - q) for q in p]
        present = [math.log(q) for q in p]
        names = set(content)
        idx = [k for k, c in enumerate(self.colors) if c in names]
        rest = sum(absent[k] for k in range(len(self.colors)) if k not in idx)
        best = rest  # empty (or only colours vision does not know: they show as nothing)
        if idx:
            best = -math.inf
            for top in idx:
                under = sum(max(present[k], absent[k]) for k in idx if k != top)
                best = max(best, present[top] + under + rest)
        value = obs * best
        self._cache[key] = value
        return value

    def count_loglik(self, i: int) -> Floats:
        """Log-likelihoods (colours x 3) of 0, 1 and 2-or-more tokens of each colour on a
        place, scaled by its observability (a hidden place: all 0, nothing known).
        Raises ValueError when the counts were not measured."""
        if self.areas is None or self.token_area_mm2 is None:
            raise ValueError("token counts were not measured")
        out: Floats = count_loglik(self.areas[i] / self.token_area_mm2) * float(self.observable[i])
        return out

    def counts(self, i: int) -> dict[str, tuple[int, float]]:
        """Each colour's most likely count on a place (2: two or more) and its probability
        (the likelihoods normalised over 0, 1, 2+ with equal priors)."""
        ll = self.count_loglik(i)
        p = np.exp(ll - ll.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        out: dict[str, tuple[int, float]] = {}
        for k, name in enumerate(self.colors):
            best = int(np.argmax(p[k]))
            out[name] = (COUNTS[best], float(p[k, best]))
        return out

    def best_color(self, i: int) -> str | None:
        """The colour most likely on a place, or None if it most likely is empty."""
        empty = self.loglik(i, ())
        scores = [(self.loglik(i, (c,)), c) for c in self.colors]
        score, color = max(scores)
        return color if score > empty else None

    def to_json(self) -> list[dict[str, Any]]:
        out = []
        for i, (space, berth) in enumerate(self.places):
            item: dict[str, Any] = {
                "space": space,
                "observability": round(float(self.observable[i]), 3),
                "background": round(float(self.background[i]), 3),
                "colors": {
                    c: round(float(f), 3)
                    for c, f in zip(self.colors, self.fractions[i], strict=True)
                },
            }
            if berth is not None:
                item["berth"] = berth
            if self.areas is not None:
                item["counts"] = {
                    c: {"count": n, "probability": round(p, 3)}
                    for c, (n, p) in self.counts(i).items()
                }
            out.append(item)
        return out
