"""Stable observations: a new board state only when several unoccluded frames agree.

A `Stabilizer` takes `FrameReading`s in order and returns a `BoardObservation`
when a run of at least `frames` consecutive readings (all with the board
found and no hand over it) has shown the same ships on the same places and
the same cloud pose for at least `min_time_s`, and that state differs from
the last one reported.
Ships that were on places now under the cloud are carried over as hidden,
never dropped as missing. The observation carries the run's per-place
evidence (`vision.evidence`), averaged over the run's frames. Its ships are the
last frame's, each as sure as the run's least sure reading of its colour on its
place: a run is only as sure as its worst frame. A ship alone of its colour on its
place is read where the run's frames read it on average, and turned as they read
it on average: the camera's own scatter, frame to frame, shrinks so (what tells a
token left alone from another set down in its place, `controller.moved`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from bermuda_hw.geometry import mean_axis_deg
from bermuda_hw.vision.evidence import combine
from bermuda_hw.vision.types import BoardEvidence, BoardObservation, FrameReading, ShipReading


@dataclass(frozen=True)
class StabilitySettings:
    """How many agreeing frames, over how long, make a stable reading."""

    frames: int = 3
    min_time_s: float = 0.3

    def __post_init__(self) -> None:
        if self.frames < 1:
            raise ValueError(f"frames must be at least 1, not {self.frames}")
        if self.min_time_s < 0:
            raise ValueError(f"min_time_s must be >= 0, not {self.min_time_s}")


class Stabilizer:
    """Turns a stream of frame readings into a stream of stable board observations."""

    def __init__(self, settings: StabilitySettings | None = None) -> None:
        self.settings = settings or StabilitySettings()
        self._run: list[FrameReading] = []
        # the run has made its observation (reported, or the same as the last report):
        # its later frames add nothing until it ends, and are not kept (a board left
        # still for an hour is one run)
        self._settled = False
        self.current: BoardObservation | None = None

    def reset(self) -> None:
        self._run.clear()
        self._settled = False

    def forget(self) -> None:
        """Forget the last stable state: the next one is reported even if it looks the same."""
        self.reset()
        self.current = None

    def push(self, reading: FrameReading) -> BoardObservation | None:
        """Add a reading; return a new observation when the board has settled in a new state."""
        if not reading.board_found or reading.occluded:
            self.reset()
            return None
        if self._run and self._run[-1].state_key() != reading.state_key():
            self.reset()
        if self._settled:
            return None
        self._run.append(reading)
        if len(self._run) < self.settings.frames:
            return None
        if reading.timestamp_s - self._run[0].timestamp_s < self.settings.min_time_s:
            return None
        ships = self._with_hidden(reading, _steadied(self._run, _least_sure(self._run)))
        observation = BoardObservation(
            ships=ships,
            cloud=reading.cloud,
            timestamp_s=reading.timestamp_s,
            frames=len(self._run),
            hidden_spaces=reading.hidden_spaces,
            evidence=self._evidence(),
        )
        self._settled = True
        if self.current is not None and _same(self.current, observation):
            return None
        self.current = observation
        return observation

    def _evidence(self) -> BoardEvidence | None:
        items = [r.evidence for r in self._run if r.evidence is not None]
        return combine(items) if items else None

    def _with_hidden(
        self, reading: FrameReading, ships: tuple[ShipReading, ...]
    ) -> tuple[ShipReading, ...]:
        """`ships` (the reading's, as sure as the run), plus the last observation's ships
        now under the cloud."""
        seen = list(ships)
        if self.current is None:
            return tuple(seen)
        # A port may be only partly under the cloud: carry over only the ships of a
        # colour that are no longer seen there.
        still = Counter((s.color, s.space) for s in ships)
        for ship in self.current.ships:
            if ship.space is None or ship.space not in reading.hidden_spaces:
                continue
            key = (ship.color, ship.space)
            if still[key] > 0:
                still[key] -= 1
            else:
                seen.append(replace(ship, hidden=True))
        return tuple(seen)


def _least_sure(run: list[FrameReading]) -> tuple[ShipReading, ...]:
    """The last frame's ships, each with the least confidence the run read for it: the
    frames agree on every colour's count on every place (`FrameReading.state_key`), so the
    k-th least sure reading of a colour on a place in the last frame takes the least of
    the k-th least sure in every frame."""
    last = run[-1].ships
    out = list(last)
    mine = _ranked(last)
    for frame in run[:-1]:
        theirs = _ranked(frame.ships)
        for key, ks in mine.items():
            for k, j in zip(ks, theirs[key], strict=True):
                seen = frame.ships[j].confidence
                if seen < out[k].confidence:
                    out[k] = replace(out[k], confidence=seen)
    return tuple(out)


def _steadied(run: list[FrameReading], ships: tuple[ShipReading, ...]) -> tuple[ShipReading, ...]:
    """`ships` (the last frame's), each alone of its colour on its place in every frame of
    the run read where the frames read it on average, and turned as they read it on
    average (an axis is a line: `geometry.mean_axis_deg`)."""
    if len(run) < 2:
        return ships
    frames = [_ranked(frame.ships) for frame in run]
    out = list(ships)
    for key, ks in _ranked(ships).items():
        if key[1] is None or len(ks) != 1 or any(len(f.get(key, ())) != 1 for f in frames):
            continue
        seen = [frame.ships[f[key][0]] for frame, f in zip(run, frames, strict=True)]
        if any(r.berth != out[ks[0]].berth for r in seen):
            continue  # read in another berth of its port in some frame: not one spot
        axis = out[ks[0]].axis_deg
        axes = [r.axis_deg for r in seen if r.axis_deg is not None]
        if len(axes) == len(seen):
            axis = mean_axis_deg(axes)
        out[ks[0]] = replace(
            out[ks[0]],
            x_mm=sum(r.x_mm for r in seen) / len(seen),
            y_mm=sum(r.y_mm for r in seen) / len(seen),
            axis_deg=axis,
        )
    return tuple(out)


def _ranked(ships: tuple[ShipReading, ...]) -> dict[tuple[str, str | None], list[int]]:
    """The indices of the ships in view, by colour and place, least sure first."""
    out: dict[tuple[str, str | None], list[int]] = {}
    for k in sorted(range(len(ships)), key=lambda k: ships[k].confidence):
        if not ships[k].hidden:
            out.setdefault((ships[k].color, ships[k].space), []).append(k)
    return out


def _key(observation: BoardObservation) -> tuple[object, ...]:
    ships = sorted((s.color, s.space or "", s.hidden) for s in observation.ships)
    cloud = observation.cloud
    return (tuple(ships), (cloud.col, cloud.row, cloud.letter) if cloud else None)


def _same(a: BoardObservation, b: BoardObservation) -> bool:
    return _key(a) == _key(b)


def observations(
    readings: Iterator[FrameReading] | list[FrameReading],
    settings: StabilitySettings | None = None,
) -> Iterator[BoardObservation]:
    """The stable observations of a sequence of readings."""
    stabilizer = Stabilizer(settings)
    for reading in readings:
        observation = stabilizer.push(reading)
        if observation is not None:
            yield observation


class FrameLike(Protocol):
    """What a camera source's `read()` returns (see `backends.camera.Frame`)."""

    @property
    def image(self) -> Any: ...
    @property
    def timestamp_s(self) -> float: ...


class FrameSource(Protocol):
    def read(self, timeout_s: float | None = None) -> FrameLike: ...


class FrameReader(Protocol):
    def read(self, frame: Any, timestamp_s: float = 0.0) -> FrameReading: ...


class ObservationStream:
    """Frames from a camera, read and stabilised: iterate to get each new board state."""

    def __init__(
        self,
        source: FrameSource,
        reader: FrameReader,
        settings: StabilitySettings | None = None,
    ) -> None:
        self.source = source
        self.reader = reader
        self.stabilizer = Stabilizer(settings)
        self.last_reading: FrameReading | None = None

    def step(self) -> BoardObservation | None:
        """Read one frame; return a new observation if the board settled in a new state."""
        frame = self.source.read()
        reading = self.reader.read(frame.image, frame.timestamp_s)
        self.last_reading = reading
        return self.stabilizer.push(reading)

    def forget(self) -> None:
        """Forget the last stable state: the next one is reported even if it looks the same."""
        self.stabilizer.forget()

    def __iter__(self) -> Iterator[BoardObservation]:
        while True:
            observation = self.step()
            if observation is not None:
                yield observation
