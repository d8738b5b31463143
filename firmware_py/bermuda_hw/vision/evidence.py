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
- apart, for the path spaces the cloud's model hides beyond its footprint (`rim`),
  where a legal move may land and the cloud's body may still leave a token's edge
  in view: the fraction of their disks that looks like each ship colour. The
  model's margins are wide (`rules.cover`), so these places weigh nothing in the
  evidence; a token's colour seen there is kept for what only it can tell (a ship
  standing on the landing of a move out of sight, `controller.rim.rim_shows`);
- for the places seen in part, how much of its disk's look the reader has
  learned (`learned`): a pixel counts for a ship in a reading (`ShipReading`)
  only where it is unlike the learned board;
- the fraction of a wider disk, within a token's reach of the place's centre,
  that looks like each ship colour (`reach`): a token nudged across its place
  keeps it, a second token set down beside the first adds to it.

- for every colour, the likelihood of 0, 1, and 2 or more tokens of it on the
  place (`counts`), from the colour's area on the place in units of one
  token's area (`vision.counts`).

A stable run of frames averages its frames' evidence (`combine`; observability and
the learned share take their least frame's), so one noisy
frame moves the evidence a little instead of breaking the reading.

Log-likelihoods (`BoardEvidence`, in `vision.types`) come from a presence
probability per colour, a smooth step of the colour's fraction around the fill
a ship's token gives; they are scaled by the place's observability, so an
unobservable place weighs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.cover import Circle, observability
from bermuda_hw.vision.background import BackgroundComparison
from bermuda_hw.vision.counts import TokenCounter
from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.lighting import Normalised
from bermuda_hw.vision.ships import NONE, ShipFinder
from bermuda_hw.vision.types import BoardEvidence

Floats = npt.NDArray[np.float64]


def combine(items: Sequence[BoardEvidence]) -> BoardEvidence:
    """The evidence of a run of frames: fractions averaged, frame-weighted; observability
    and the learned share each place's least in any frame."""
    if not items:
        raise ValueError("no evidence to combine")
    if len(items) == 1:
        return items[0]
    w = np.array([e.frames for e in items], np.float64)
    total = float(w.sum())
    fractions = sum((e.fractions * e.frames for e in items), np.zeros_like(items[0].fractions))
    background = sum((e.background * e.frames for e in items), np.zeros_like(items[0].background))
    # a place hidden in any frame of the run stays as doubtful as its worst frame
    observable = np.min(np.stack([e.observable for e in items]), axis=0)
    reach = None
    if all(e.reach is not None for e in items):
        reach = (
            sum(
                (e.reach * e.frames for e in items if e.reach is not None), np.zeros_like(fractions)
            )
            / total
        )
    areas = None
    token = None
    if all(e.areas is not None and e.token_area_mm2 is not None for e in items):
        areas = (
            sum(
                (e.areas * e.frames for e in items if e.areas is not None), np.zeros_like(fractions)
            )
            / total
        )
        token = sum(float(e.token_area_mm2 or 0.0) * e.frames for e in items) / total
    rim = None
    if all(e.rim is not None for e in items):
        rim = (
            sum((e.rim * e.frames for e in items if e.rim is not None), np.zeros_like(fractions))
            / total
        )
    learned = None
    if all(e.learned is not None for e in items):
        # as for observability: a place stays as little learned as in its worst frame
        learned = np.min(np.stack([e.learned for e in items if e.learned is not None]), axis=0)
    first = items[0]
    return BoardEvidence(
        first.places,
        first.colors,
        fractions / total,
        background / total,
        observable,
        int(total),
        reach,
        areas,
        token,
        rim=rim,
        learned=learned,
    )


def place_observability(layout: BoardLayout, circles: Sequence[Circle]) -> Floats:
    """Observability of every place of a layout given the cloud's hidden circles."""
    return np.array([observability(p.x_mm, p.y_mm, circles) for p in layout.places], np.float64)


def measure(
    finder: ShipFinder,
    rect: npt.NDArray[np.uint8],
    norm: Normalised,
    circles: Sequence[Circle],
    half_labels: npt.NDArray[np.int8] | None = None,
    counter: TokenCounter | None = None,
    rim: npt.NDArray[np.bool_] | None = None,
    board: BackgroundComparison | None = None,
) -> BoardEvidence:
    """One frame's evidence for every place of the finder's layout (with the whole board's
    half-resolution labels, the wider disks of the path spaces too, and with a counter
    the tokens' counts). `rim`: the path spaces the cloud's model hides that lie outside
    its footprint, whose colours are measured apart (`BoardEvidence.rim`). `board`: the
    learned board the frame is compared with (`BoardEvidence.learned`)."""
    layout = finder.layout
    k = len(finder.names)
    n = len(layout.places)
    obs = place_observability(layout, circles)
    fractions = np.zeros((n, k), np.float64)
    background = np.zeros(n, np.float64)
    shown = obs > 0.0
    under = np.zeros(n, bool) if rim is None else rim & ~shown
    use = np.nonzero(shown | under)[0]
    if len(use):
        labels = finder.place_labels(rect, norm, use)
        valid = finder.valid[use]
        labels[~valid] = NONE
        disk = finder.valid_count[use].astype(np.float64)
        for c in range(k):
            fractions[use, c] = (labels == c).sum(axis=1) / disk
        background[use] = ((labels == NONE) & valid).sum(axis=1) / disk
    rim_fractions = None
    if rim is not None:
        # kept apart (NaN: not measured): to the evidence a place the model hides shows
        # nothing
        rim_fractions = np.where(under[:, None], fractions, np.nan)
        fractions[under] = 0.0
        background[under] = 0.0
    places = tuple((p.space, p.berth) for p in layout.places)
    reach = finder.reach(half_labels) if half_labels is not None else None
    areas = None
    token = None
    if counter is not None and half_labels is not None:
        areas = counter.areas(half_labels)
        token = counter.token_area(areas)
    return BoardEvidence(
        places,
        tuple(finder.names),
        fractions,
        background,
        obs,
        reach=reach,
        areas=areas,
        token_area_mm2=token,
        rim=rim_fractions,
        learned=_learned(finder, board, obs),
    )


def _learned(finder: ShipFinder, board: BackgroundComparison | None, observable: Floats) -> Floats:
    """`BoardEvidence.learned`: measured on the places seen in part (the cloud's rim band,
    where it is asked for), NaN on the others; 0 where no board is learned."""
    out = np.full(len(observable), np.nan)
    band = np.nonzero((observable > 0.0) & (observable < 1.0))[0]
    out[band] = 0.0 if board is None else finder.learned(board, band)
    return out
