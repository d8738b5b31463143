"""Evidence per place: how much of each place looks like each ship colour, and how well it is seen.

The hard readings (`ShipReading`) say "a blue ship on S16". The referee
needs more: how strongly each place supports "empty", "one ship of colour c"
and "two or more ships, c on top", and how much the camera sees of it at all.
For every place (a path space, or one berth of a port) a frame gives:

- the fraction of its sampling disk that looks like each ship colour (judged
  against the sea, the neutral greys and, in a port, the port's paint);
- the fraction that looks like none of them (the place's own background);
- its observability: 0 under the cloud, partial in the cloud's rim band
  (`rules.cover`, the model the rules share), 1 in the clear;
- the fraction of a wider disk, within a token's reach of the place's centre,
  that looks like each ship colour (`reach`): a token nudged across its place
  keeps it, a second token set down beside the first adds to it.

A stable run of frames averages its frames' evidence (`combine`), so one noisy
frame moves the evidence a little instead of breaking the reading.

Log-likelihoods come from a presence probability per colour, a smooth step of
the colour's fraction around the fill a ship's token gives; they are scaled by
the place's observability, so an unobservable place weighs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.cover import Circle, observability
from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.lighting import Normalised
from bermuda_hw.vision.ships import NONE, ShipFinder

Floats = npt.NDArray[np.float64]

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
                "colors": {c: round(float(f), 3) for c, f in
                           zip(self.colors, self.fractions[i], strict=True)},
            }
            if berth is not None:
                item["berth"] = berth
            out.append(item)
        return out


def combine(items: Sequence[BoardEvidence]) -> BoardEvidence:
    """The evidence of a run of frames: fractions and observability averaged, frame-weighted."""
    if not items:
        raise ValueError("no evidence to combine")
    if len(items) == 1:
        return items[0]
    w = np.array([e.frames for e in items], np.float64)
    total = float(w.sum())
    fractions = sum((e.fractions * e.frames for e in items), np.zeros_like(items[0].fractions))
    background = sum((e.background * e.frames for e in items),
                     np.zeros_like(items[0].background))
    # a place hidden in any frame of the run stays as doubtful as its worst frame
    observable = np.min(np.stack([e.observable for e in items]), axis=0)
    reach = None
    if all(e.reach is not None for e in items):
        reach = sum((e.reach * e.frames for e in items if e.reach is not None),
                    np.zeros_like(fractions)) / total
    first = items[0]
    return BoardEvidence(first.places, first.colors, fractions / total, background / total,
                         observable, int(total), reach)


def place_observability(layout: BoardLayout, circles: Sequence[Circle]) -> Floats:
    """Observability of every place of a layout given the cloud's hidden circles."""
    return np.array([observability(p.x_mm, p.y_mm, circles) for p in layout.places],
                    np.float64)


def measure(finder: ShipFinder, rect: npt.NDArray[np.uint8], norm: Normalised,
            circles: Sequence[Circle], half_labels: npt.NDArray[np.int8] | None = None
            ) -> BoardEvidence:
    """One frame's evidence for every place of the finder's layout (with the whole board's
    half-resolution labels, the wider disks of the path spaces too)."""
    layout = finder.layout
    k = len(finder.names)
    n = len(layout.places)
    obs = place_observability(layout, circles)
    fractions = np.zeros((n, k), np.float64)
    background = np.zeros(n, np.float64)
    use = np.nonzero(obs > 0.0)[0]
    if len(use):
        pix = norm.pixels(rect, finder.rows[use], finder.cols[use])
        labels = finder.classifier.labels(pix, norm.sea_lab)
        in_port = finder.in_port[use]
        if norm.port_lab is not None and in_port.any():
            labels[in_port] = finder.classifier.labels(pix[in_port], norm.sea_lab,
                                                       norm.port_lab)
        valid = finder.valid[use]
        labels[~valid] = NONE
        disk = finder.valid_count[use].astype(np.float64)
        for c in range(k):
            fractions[use, c] = (labels == c).sum(axis=1) / disk
        background[use] = ((labels == NONE) & valid).sum(axis=1) / disk
    places = tuple((p.space, p.berth) for p in layout.places)
    reach = finder.reach(half_labels) if half_labels is not None else None
    return BoardEvidence(places, tuple(finder.names), fractions, background, obs, reach=reach)
