"""Vision on boards whose printing differs from their file, after the documented calibration.

One trial: for each setup (a board printing, a camera and its light), render
the start layout with the cloud off the board and calibrate on it (`detect
--calibrate`), show the reader the game's start (ships in their ports, the
cloud on the centre dot) and let it learn the board, then read random
tables, empty boards and hands. Used by the tests (few frames) and by
`benchmarks/bench_vision.py` (many), with the project's renderer or the
independent one in `independent_render.py`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
from independent_render import OtherLook, render_other

from bermuda_hw.controller.putback import CONFIRM_OBSERVABILITY
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, blocked_spaces
from bermuda_hw.sim.render import (
    CameraModel,
    CloudState,
    Palette,
    Printing,
    Scene,
    ShipToken,
    coloured_light,
    random_scene,
    render,
)
from bermuda_hw.vision.reader import BoardReader, start_layout
from bermuda_hw.vision.types import BoardEvidence, FrameReading

Image = npt.NDArray[np.uint8]
Shoot = Callable[..., Image]  # (scene, seed, light=AS_CALIBRATED) -> frame

AS_CALIBRATED = "as calibrated"
#: Light at play unlike the calibration's: each renderer changes its own light model.
LIGHTS = ("brighter", "dimmer", "warmer", "cooler", "lamp on one side")
GAIN = {"brighter": 1.3, "dimmer": 0.65}
TINT = {"warmer": (0.8, 0.95, 1.15), "cooler": (1.15, 1.0, 0.82)}
LAMP_TINT = (-0.15, 0.05, 0.3)  # per-channel gain change (BGR) across the board
LAMP_GAIN = 0.45  # brightness change across the board


@dataclass
class Figures:
    """Counts over a trial; percentages as properties."""

    frames: int = 0
    ships: int = 0
    ships_right: int = 0
    extra: int = 0
    clear_frames: int = 0
    false_hands: int = 0
    hands: int = 0
    hands_flagged: int = 0
    not_found: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def right_pct(self) -> float:
        return 100.0 * self.ships_right / max(self.ships, 1)

    @property
    def extra_pct(self) -> float:
        return 100.0 * self.extra / max(self.ships, 1)

    @property
    def false_hand_pct(self) -> float:
        return 100.0 * self.false_hands / max(self.clear_frames, 1)

    @property
    def hands_pct(self) -> float:
        return 100.0 * self.hands_flagged / max(self.hands, 1)

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.frames} frames; ships right {self.ships_right}/{self.ships} = "
            f"{self.right_pct:.2f} %; extra ships {self.extra} = {self.extra_pct:.2f} %; "
            f"false hands {self.false_hands}/{self.clear_frames} = "
            f"{self.false_hand_pct:.2f} %; hands flagged {self.hands_flagged}/{self.hands}"
            f" = {self.hands_pct:.1f} %; board not found {self.not_found}"
        )


def truth_place(board: Board, x_mm: float, y_mm: float) -> str | None:
    """The space or port a ship at a point stands on, or None when it is off them."""
    best, best_d = None, 9.0
    for space in board.spaces.values():
        if space.kind == "path":
            d = math.dist((x_mm, y_mm), space.position)
            if d < best_d:
                best, best_d = space.id, d
    for port in board.ports.values():
        for berth in port.berths:
            d = math.dist((x_mm, y_mm), berth)
            if d < best_d:
                best, best_d = port.id, d
    return best


def visible_truth(board: Board, scene: Scene) -> list[tuple[str, str | None, float, float]]:
    """The ships the camera can see: (colour, place or None, x_mm, y_mm)."""
    out = []
    for ship in scene.ships:
        if (
            scene.cloud is not None
            and math.dist((ship.x_mm, ship.y_mm), (scene.cloud.x_mm, scene.cloud.y_mm))
            < board.cloud.footprint_radius_mm
        ):
            continue  # under the cloud: hidden
        out.append((ship.color, truth_place(board, ship.x_mm, ship.y_mm), ship.x_mm, ship.y_mm))
    return out


def score(
    truth: list[tuple[str, str | None, float, float]], reading: FrameReading
) -> tuple[int, int]:
    """(right, extra): true ships read on their place in their colour (off-space: within
    15 mm), and ships read that match no true ship."""
    seen = Counter((s.color, s.space) for s in reading.ships if s.space is not None)
    off = [s for s in reading.ships if s.space is None]
    right = 0
    for color, place, x, y in truth:
        if place is not None:
            if seen[(color, place)] > 0:
                seen[(color, place)] -= 1
                right += 1
        else:
            match = next(
                (s for s in off if s.color == color and math.dist((s.x_mm, s.y_mm), (x, y)) < 15.0),
                None,
            )
            if match is not None:
                off.remove(match)
                right += 1
    return right, sum(seen.values()) + len(off)


ARRANGEMENTS = ("one", "side by side", "overlapping", "on top")


def token_scene(
    board: Board, rng: random.Random, places: int = 10
) -> tuple[Scene, dict[str, Counter[str]]]:
    """Tokens on `places` random path spaces away from the cloud, in every arrangement in
    turn (one token; two side by side, overlapping, or one on top of the other, of one
    colour or two), and what stands on each space."""
    colors = list(board.ship_colors)
    cloud = CloudState(*board.grid.dot_mm(*board.grid.centre))
    free = [
        s
        for s in board.spaces.values()
        if s.kind == "path"
        and math.dist(s.position, (cloud.x_mm, cloud.y_mm)) > board.cloud.footprint_radius_mm + 30
    ]
    rng.shuffle(free)
    # Spaces apart: a pair's tokens never reach a neighbour's cell.
    chosen: list = []
    for space in free:
        if all(math.dist(space.position, o.position) > 40.0 for o in chosen):
            chosen.append(space)
        if len(chosen) == places:
            break
    tokens: list[ShipToken] = []
    truth: dict[str, Counter[str]] = {}
    for n, space in enumerate(chosen):
        kind = ARRANGEMENTS[n % len(ARRANGEMENTS)]
        heading = rng.uniform(0, 360)
        first = rng.choice(colors)
        second = first if rng.random() < 0.5 else rng.choice([c for c in colors if c != first])
        rad = math.radians(heading)
        along = (math.sin(rad), -math.cos(rad))  # the bow's direction
        across = (-along[1], along[0])
        x, y = space.position
        if kind == "one":
            placed = [(first, x, y)]
        elif kind == "side by side":
            placed = [
                (first, x - 6.0 * across[0], y - 6.0 * across[1]),
                (second, x + 6.0 * across[0], y + 6.0 * across[1]),
            ]
        elif kind == "overlapping":
            placed = [
                (first, x - 4.0 * across[0] - 5.0 * along[0], y - 4.0 * across[1] - 5.0 * along[1]),
                (
                    second,
                    x + 3.0 * across[0] + 5.0 * along[0],
                    y + 3.0 * across[1] + 5.0 * along[1],
                ),
            ]
        else:  # on top: the second lies on the first, shifted a little
            placed = [
                (first, x, y),
                (
                    second,
                    x + 3.0 * across[0] + 2.0 * along[0],
                    y + 3.0 * across[1] + 2.0 * along[1],
                ),
            ]
        for color, px, py in placed:
            tokens.append(ShipToken(color, px, py, heading + rng.uniform(-8, 8)))
        truth[space.id] = Counter(c for c, _, _ in placed)
    return Scene(tuple(tokens), cloud), truth


def rim_band_places(board: Board, evidence: BoardEvidence, dot: tuple[int, int]) -> list[str]:
    """The path spaces of the cloud's rim band with the cloud on `dot`: seen in part
    (0 < observability < CONFIRM_OBSERVABILITY), not blocked by the rules."""
    blocked = blocked_spaces(board, CloudPose(*dot))
    return [
        space
        for i, (space, berth) in enumerate(evidence.places)
        if berth is None
        and space not in blocked
        and 0.0 < evidence.observable[i] < CONFIRM_OBSERVABILITY
    ]


def start_ships(board: Board) -> tuple[ShipToken, ...]:
    return tuple(
        ShipToken(c, *board.ports[p].berths[b or 0], 0.0)
        for (p, b), c in start_layout(board).items()
    )


def relit(camera: CameraModel, light: str) -> CameraModel:
    """The project's camera under another light."""
    if light in GAIN:
        return replace(camera, exposure=camera.exposure * GAIN[light])
    if light in TINT:
        return replace(
            camera,
            tint=tuple(  # type: ignore[arg-type]
                a * b for a, b in zip(camera.tint, TINT[light], strict=True)
            ),
        )
    if light == "lamp on one side":
        return replace(
            camera,
            gradient=camera.gradient + LAMP_GAIN,
            tint_gradient=tuple(  # type: ignore[arg-type]
                a + b for a, b in zip(camera.tint_gradient, LAMP_TINT, strict=True)
            ),
        )
    return camera


def relit_other(look: OtherLook, light: str) -> OtherLook:
    """The independent renderer's light changed the same way (its cast varies along x)."""
    if light in GAIN:
        return replace(look, cast=tuple(c * GAIN[light] for c in look.cast))  # type: ignore[arg-type]
    if light in TINT:
        return replace(
            look,
            cast=tuple(  # type: ignore[arg-type]
                a * b for a, b in zip(look.cast, TINT[light], strict=True)
            ),
        )
    if light == "lamp on one side":
        return replace(
            look,
            cast_slope=tuple(  # type: ignore[arg-type]
                a + b + LAMP_GAIN for a, b in zip(look.cast_slope, LAMP_TINT, strict=True)
            ),
        )
    return look


def project_setup(board: Board, rng: random.Random) -> Shoot:
    """The project's renderer with a printing not in the file and coloured light."""
    palette = replace(Palette.random(rng), printing=Printing.random(rng, board))
    camera = CameraModel.random(rng, board, **coloured_light(rng))

    def shoot(scene: Scene, seed: int, light: str = AS_CALIBRATED) -> Image:
        return render(board, scene, relit(camera, light), seed=seed, palette=palette)

    return shoot


def other_setup(board: Board, rng: random.Random) -> Shoot:
    """The independent renderer, with its own artwork, ships and light."""
    look = OtherLook.random(rng, board)

    def shoot(scene: Scene, seed: int, light: str = AS_CALIBRATED) -> Image:
        return render_other(board, scene, relit_other(look, light), seed)

    return shoot


RENDERERS: dict[str, Callable[[Board, random.Random], Shoot]] = {
    "project renderer": project_setup,
    "independent renderer": other_setup,
}


MODES = ("learned", "each frame alone", "file only", "other light", "other light, learned")


def run_trial(
    board: Board,
    renderer: str,
    setups: int,
    frames_per_setup: int,
    seed: int,
    mode: str = "learned",
) -> Figures:
    """Calibrate, see the game's start, then read random frames; count what vision got.

    `mode` "learned": one reader per setup, as the daemon (calibration, then the
    game start learned); "each frame alone": a fresh reader with the calibration
    file for every frame, as `detect --calibration`; "file only": one reader per
    setup that knows only the board file (no calibration, nothing learned);
    "other light": as "each frame alone", but every frame is lit unlike the
    calibration (`LIGHTS` in turn), as `detect` or the daemon's first frames
    after a restart under another light; "other light, learned": one reader
    per setup that saw the game's start under the calibration's light, then
    frames under another light.
    """
    rng = random.Random(seed)
    figures = Figures()
    centre = board.grid.dot_mm(*board.grid.centre)
    for _ in range(setups):
        shoot = RENDERERS[renderer](board, rng)
        ships = start_ships(board)
        calibration = BoardReader(board).calibrate(shoot(Scene(ships), rng.randrange(1 << 30)))
        reader = BoardReader(board, calibration if mode != "file only" else None)
        start = shoot(Scene(ships, CloudState(*centre)), rng.randrange(1 << 30))
        reader.read(start)
        if mode in ("learned", "other light, learned"):
            reader.learn_background()  # the game starts: the board holds the start layout
        for i in range(frames_per_setup):
            if mode in ("each frame alone", "other light"):
                reader = BoardReader(board, calibration)
            light = (
                LIGHTS[(i + i // 5) % len(LIGHTS)]
                if mode.startswith("other light")
                else AS_CALIBRATED
            )
            kind = "hand" if i % 5 == 2 else "empty" if i % 10 == 9 else "ships"
            scene = random_scene(
                board,
                rng,
                ships=0 if kind == "empty" else None,
                cloud=kind == "hand" or rng.random() < 0.95,
                hand=kind == "hand",
            )
            reading = reader.read(shoot(scene, rng.randrange(1 << 30), light))
            figures.frames += 1
            if not reading.board_found:
                figures.not_found += 1
                continue
            if kind == "hand":
                figures.hands += 1
                figures.hands_flagged += reading.occluded
                if not reading.occluded:
                    figures.notes.append(f"hand missed under {light} light")
                continue
            figures.clear_frames += 1
            figures.false_hands += reading.occluded
            if reading.occluded:
                figures.notes.append(f"false hand under {light} light")
            truth = visible_truth(board, scene)
            right, extra = score(truth, reading)
            figures.ships += len(truth)
            figures.ships_right += right
            figures.extra += extra
    return figures


@dataclass
class CountFigures:
    """Token counts over a trial: places right per arrangement (every colour's count)."""

    right: Counter[str] = field(default_factory=Counter)
    places: Counter[str] = field(default_factory=Counter)

    def pct(self, *kinds: str) -> float:
        kinds = kinds or ARRANGEMENTS
        return (
            100.0 * sum(self.right[k] for k in kinds) / max(sum(self.places[k] for k in kinds), 1)
        )

    def line(self, name: str) -> str:
        parts = ", ".join(f"{k} {self.right[k]}/{self.places[k]}" for k in ARRANGEMENTS)
        return (
            f"{name}: places with one or two tokens counted right "
            f"{self.pct('one', 'side by side', 'overlapping'):.2f} % without a token "
            f"on top of another, {self.pct():.2f} % with ({parts})"
        )


def count_trial(
    board: Board, renderer: str, setups: int, frames_per_setup: int, seed: int
) -> CountFigures:
    """Calibrate under one light, then read tables of tokens in every arrangement
    (`token_scene`) under the others, each frame with a fresh reader; a place is right
    when every colour's likeliest count is its number of tokens (2: two or more)."""
    rng = random.Random(seed)
    figures = CountFigures()
    for k in range(setups):
        shoot = RENDERERS[renderer](board, rng)
        calibration = BoardReader(board).calibrate(
            shoot(Scene(start_ships(board)), rng.randrange(1 << 30))
        )
        for f in range(frames_per_setup):
            light = LIGHTS[(k + f) % len(LIGHTS)]
            scene, truth = token_scene(board, rng)
            evidence = (
                BoardReader(board, calibration)
                .read(shoot(scene, rng.randrange(1 << 30), light))
                .evidence
            )
            assert evidence is not None
            for n, (space, there) in enumerate(truth.items()):
                kind = ARRANGEMENTS[n % len(ARRANGEMENTS)]
                got = evidence.counts(evidence.index(space))
                figures.places[kind] += 1
                figures.right[kind] += all(got[c][0] == min(there[c], 2) for c in evidence.colors)
    return figures
