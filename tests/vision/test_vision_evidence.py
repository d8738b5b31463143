"""Per-place evidence on rendered frames: colours, emptiness and what the cloud hides."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from printing_trial import RENDERERS, rim_band_places, start_ships
from vision_helpers import cloud_at, in_berth, on_space, random_camera

from bermuda_hw.controller.belief import fill_noise
from bermuda_hw.controller.putback import CONFIRM_OBSERVABILITY
from bermuda_hw.controller.rim import BAND_CONFIDENCE, BAND_LEARNED, RIM_Z
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cover import (
    RIM_BAND_MM,
    STAND_TOLERANCE_MM,
    hidden_circles,
    observability,
)
from bermuda_hw.sim.render import CloudState, Scene, ShipToken, render
from bermuda_hw.vision.evidence import combine
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import StabilitySettings, observations
from bermuda_hw.vision.types import BoardEvidence, FrameReading

Image = npt.NDArray[np.uint8]


@pytest.mark.parametrize("seed", [0, 3])
def test_each_place_is_most_likely_what_stands_on_it(classic_board: Board, seed: int) -> None:
    board = classic_board
    ships = [
        on_space(board, "S16", "blue"),
        on_space(board, "S03", "red"),
        in_berth(board, "SUGAR", 1, "yellow"),
        in_berth(board, "OIL", 0, "green"),
    ]
    camera, palette = random_camera(seed, board)
    frame = render(board, Scene(ships=tuple(ships)), camera, seed=seed, palette=palette)
    evidence = BoardReader(board).read(frame).evidence
    assert evidence is not None
    truth = {
        ("S16", None): "blue",
        ("S03", None): "red",
        ("SUGAR", 1): "yellow",
        ("OIL", 0): "green",
    }
    for i, place in enumerate(evidence.places):
        assert evidence.best_color(i) == truth.get(place), place
    s16 = evidence.index("S16")
    assert evidence.loglik(s16, ("blue",)) > evidence.loglik(s16, ()) + 3.0
    # two ships with blue on top explain a blue place as well as one blue ship
    assert evidence.loglik(s16, ("blue", "red")) == pytest.approx(
        evidence.loglik(s16, ("blue",)), abs=1e-6
    )
    assert evidence.loglik(s16, ("red",)) < evidence.loglik(s16, ("blue",)) - 3.0


def test_places_under_the_cloud_weigh_nothing(
    classic_board: Board, shoot: Callable[..., Image], read: Callable[[Image], FrameReading]
) -> None:
    board = classic_board
    cloud = cloud_at(board, *board.grid.centre)
    reading = read(shoot(Scene(cloud=cloud)))
    evidence = reading.evidence
    assert evidence is not None and reading.cloud is not None
    hidden = [p for i, p in enumerate(evidence.places) if evidence.observable[i] == 0.0]
    assert hidden and {p[0] for p in hidden} == reading.hidden_spaces
    for i, (space, _) in enumerate(evidence.places):
        if space in reading.hidden_spaces:
            assert evidence.observable[i] == 0.0
            assert evidence.loglik(i, ("blue",)) == evidence.loglik(i, ()) == 0.0


def test_the_rim_band_is_partly_observable(classic_board: Board) -> None:
    board = classic_board
    circles = hidden_circles(board, (300.0, 300.0))
    r = circles[0][2]
    assert observability(300.0 + r - 1.0, 300.0, circles) == 0.0
    assert 0.0 < observability(300.0 + r + RIM_BAND_MM / 2, 300.0, circles) < 1.0
    assert observability(300.0 + r + RIM_BAND_MM + 1.0, 300.0, circles) == 1.0
    # the camera hides more than the rules block, never less
    assert r > board.cloud.footprint_radius_mm
    assert math.isclose(
        hidden_circles(board, (0.0, 0.0), (5.0, 0.0), 1.2)[1][2],
        1.2 * 1.05 * board.cloud.footprint_radius_mm,
    )


def test_a_stable_run_averages_its_frames(
    classic_board: Board, shoot: Callable[..., Image]
) -> None:
    board = classic_board
    reader = BoardReader(board)
    frame = shoot(Scene(ships=(on_space(board, "S16", "blue"),)))
    readings = [reader.read(frame, timestamp_s=0.2 * k) for k in range(4)]
    stable = list(observations(readings, StabilitySettings(frames=3, min_time_s=0.3)))
    assert len(stable) == 1 and stable[0].evidence is not None
    assert stable[0].evidence.frames == 3
    one = readings[0].evidence
    assert one is not None
    both = combine([one, one])
    assert both.frames == 2 and np.allclose(both.fractions, one.fractions)
    assert both.reach is not None and one.reach is not None
    assert np.allclose(both.reach, one.reach)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_second_token_fills_more_of_a_spaces_wider_disk(classic_board: Board, seed: int) -> None:
    """The wider disk shows one token's colour alone, more with a second token set down
    beside it, about as much with the one token nudged; berths are not measured."""
    board = classic_board
    camera, palette = random_camera(seed, board)
    reader = BoardReader(board)
    space = board.spaces["S16"]
    ux, uy = math.cos(math.radians(space.heading_deg)), math.sin(math.radians(space.heading_deg))

    def reach(*offsets_mm: float) -> float:
        ships = tuple(
            ShipToken("blue", space.x_mm + d * ux, space.y_mm + d * uy, space.heading_deg)
            for d in offsets_mm
        )
        frame = render(
            board,
            Scene(ships=(*ships, in_berth(board, "OIL", 0, "blue"))),
            camera,
            seed=seed,
            palette=palette,
        )
        evidence = reader.read(frame).evidence
        assert evidence is not None and evidence.reach is not None
        blue = evidence.colors.index("blue")
        assert evidence.reach[evidence.index("OIL", 0), blue] == 0.0
        red = evidence.colors.index("red")
        assert evidence.reach[evidence.index("S16"), red] == 0.0
        return float(evidence.reach[evidence.index("S16"), blue])

    one = reach(0.0)
    assert 0.18 <= one <= 0.4
    assert reach(0.0, 6.0) >= 1.4 * one
    assert reach(3.0) == pytest.approx(one, rel=0.2)


@pytest.mark.parametrize("renderer", list(RENDERERS))
def test_a_token_at_the_clouds_rim_is_measured_apart(classic_board: Board, renderer: str) -> None:
    """A place the cloud's model hides beyond its footprint, where a legal move may land:
    the evidence counts it as hidden, and the colour of a token whose edge shows beside
    the cloud's body is measured apart (`rim`); an empty one shows none, and a place under
    the footprint is not measured at all."""
    board = classic_board
    rng = random.Random(11)
    shoot = RENDERERS[renderer](board, rng)
    reader = BoardReader(board, BoardReader(board).calibrate(shoot(Scene(start_ships(board)), 1)))
    cloud = cloud_at(board, *board.grid.centre)
    empty = reader.read(shoot(Scene(cloud=cloud), 2))
    evidence = empty.evidence
    assert evidence is not None and evidence.rim is not None and empty.cloud is not None
    centre = (cloud.x_mm, cloud.y_mm)
    footprint = board.cloud.footprint_radius_mm
    rim = [
        s
        for s in sorted(empty.hidden_spaces)
        if s not in board.ports and math.dist(board.spaces[s].position, centre) > footprint
    ]
    under = [
        s
        for s in sorted(empty.hidden_spaces)
        if s not in board.ports and math.dist(board.spaces[s].position, centre) < footprint - 10
    ]
    assert rim and under
    threshold = RIM_Z * fill_noise(evidence)
    for space in rim:  # measured, and empty
        assert float(evidence.rim[evidence.index(space)].max()) <= threshold, space
    for space in under:  # not measured
        assert np.isnan(evidence.rim[evidence.index(space)]).all(), space
    berths = [i for i, (_, berth) in enumerate(evidence.places) if berth is not None]
    assert np.isnan(evidence.rim[berths]).all()  # path spaces only
    edge = max(rim, key=lambda s: math.dist(board.spaces[s].position, centre))
    ships = (on_space(board, edge, "blue"), on_space(board, under[0], "red"))
    shown = reader.read(shoot(Scene(ships=ships, cloud=cloud), 3)).evidence
    assert shown is not None and shown.rim is not None
    i, j = shown.index(edge), shown.index(under[0])
    blue, red = shown.colors.index("blue"), shown.colors.index("red")
    assert shown.rim[i, blue] > RIM_Z * fill_noise(shown)
    assert shown.observable[i] == 0.0 and not shown.fractions[i].any()
    assert shown.loglik(i, ("blue",)) == shown.loglik(i, ()) == 0.0
    assert np.isnan(shown.rim[j, red]) and not shown.fractions[j].any()
    others = shown.rim[[k for k in range(len(shown.places)) if k != i], blue]
    assert not np.nan_to_num(others).any()


def test_the_rim_is_beyond_the_footprint_around_the_clouds_dot(
    classic_board: Board, shoot: Callable[..., Image]
) -> None:
    """The rules block the spaces within the footprint around the cloud's dot: a cloud set
    down a little off its dot leaves the rim where the rules put it, not around where the
    cloud was measured."""
    board = classic_board
    footprint = board.cloud.footprint_radius_mm
    # a dot with a path space just beyond the footprint, the cloud 3 mm off it towards it
    for col, row in board.grid.dots():
        if board.grid.is_outside(col, row):
            continue
        x, y = board.grid.dot_mm(col, row)
        edge = [
            s
            for s, p in board.spaces.items()
            if s not in board.ports and footprint < math.dist(p.position, (x, y)) < footprint + 2
        ]
        if edge:
            break
    else:
        pytest.fail("no dot with a path space just beyond its footprint")
    px, py = board.spaces[edge[0]].position
    d = math.dist((px, py), (x, y))
    moved = CloudState(x + 3.0 * (px - x) / d, y + 3.0 * (py - y) / d, 0.0)
    reading = BoardReader(board).read(shoot(Scene(cloud=moved)))
    evidence = reading.evidence
    assert evidence is not None and evidence.rim is not None and reading.cloud is not None
    assert (reading.cloud.col, reading.cloud.row) == (col, row)
    assert edge[0] in reading.hidden_spaces
    assert not np.isnan(evidence.rim[evidence.index(edge[0])]).any()


@pytest.mark.parametrize("renderer", list(RENDERERS))
def test_a_token_in_the_rim_band_reads_on_a_learned_disk_and_the_printing_does_not(
    classic_board: Board, renderer: str
) -> None:
    """The path spaces of the cloud's rim band, seen in part: after the calibration the
    reader has learned their disks' look (`learned`); under a warmer light than the
    calibration's, an empty one reads no ship and a token on one reads sure there, on
    its place (what `controller.rim.band_shows` relies on)."""
    board = classic_board
    rng = random.Random(5)
    shoot = RENDERERS[renderer](board, rng)
    reader = BoardReader(board, BoardReader(board).calibrate(shoot(Scene(start_ships(board)), 1)))
    for dot in sorted(board.grid.dots(), key=lambda d: (d[1], d[0])):
        if board.grid.is_outside(*dot):
            continue
        cloud = cloud_at(board, *dot)
        empty = reader.read(shoot(Scene(start_ships(board), cloud=cloud), 2, "warmer"))
        evidence = empty.evidence
        assert evidence is not None and evidence.learned is not None
        band = rim_band_places(board, evidence, dot)
        if any(
            math.dist(board.spaces[a].position, board.spaces[b].position) > 50
            for a in band
            for b in band
        ):
            break
    else:
        raise AssertionError("no cloud pose leaves two places apart in the rim band")
    for space in band:
        assert evidence.learned[evidence.index(space)] >= BAND_LEARNED, space
        assert not any(s.space == space for s in empty.ships), space
    first = band[0]
    second = next(
        s for s in band if math.dist(board.spaces[s].position, board.spaces[first].position) > 50
    )
    ships = (*start_ships(board), on_space(board, first, "blue"), on_space(board, second, "red"))
    shown = reader.read(shoot(Scene(ships=ships, cloud=cloud), 3, "warmer"))
    for space, color in ((first, "blue"), (second, "red")):
        x, y = board.spaces[space].position
        assert any(
            s.color == color
            and s.confidence >= BAND_CONFIDENCE
            and math.dist((s.x_mm, s.y_mm), (x, y)) <= STAND_TOLERANCE_MM
            for s in shown.ships
            if s.space == space
        ), (space, shown.ships)


def test_a_run_is_as_little_learned_as_its_least_learned_frame() -> None:
    """`combine`: a place's learned share over a stable run is its smallest in any frame;
    one frame that did not measure it (NaN) leaves it unmeasured, and a frame without the
    share at all leaves the run without it."""
    places = (("S01", None), ("S02", None), ("S03", None))
    zero = np.zeros((3, 1))

    def frame(learned: list[float] | None) -> BoardEvidence:
        shares = None if learned is None else np.array(learned)
        return BoardEvidence(places, ("blue",), zero, np.ones(3), np.ones(3), learned=shares)

    run = combine([frame([0.97, math.nan, 0.99]), frame([0.99, 0.96, 0.90])])
    assert run.learned is not None
    assert run.learned[0] == 0.97 and math.isnan(run.learned[1]) and run.learned[2] == 0.90
    assert combine([frame([1.0, 1.0, 1.0]), frame(None)]).learned is None


def test_a_disk_the_reader_never_saw_is_not_learned(classic_board: Board) -> None:
    """Calibrated with the cloud on the board, the reader has not learned the look of what
    the cloud covered: a place of the rim band there (S19 beside the cloud at dot (6, 7))
    is too little learned for the band to be read (BAND_LEARNED), one clear of it (S21)
    is learned; the places not seen in part are not measured."""
    board = classic_board
    rng = random.Random(5)
    shoot = RENDERERS["project renderer"](board, rng)
    cloud = cloud_at(board, 6, 7)
    start = Scene(start_ships(board), cloud=cloud)
    reader = BoardReader(board, BoardReader(board).calibrate(shoot(start, 1)))
    evidence = reader.read(shoot(start, 2)).evidence
    assert evidence is not None and evidence.learned is not None
    s19, s21 = evidence.index("S19"), evidence.index("S21")
    assert 0.0 < evidence.observable[s19] < CONFIRM_OBSERVABILITY
    assert evidence.learned[s19] < BAND_LEARNED <= evidence.learned[s21]
    clear = evidence.observable == 1.0
    assert clear.any() and np.isnan(evidence.learned[clear]).all()
