"""Where a ship is read: on its place or beside it, alone among hidden places, after things of
its colour that are no ship, and snapped to the one free place or berth it stands by."""

from __future__ import annotations

import dataclasses
import math
import random

import cv2
import numpy as np
import numpy.typing as npt
from independent_render import OtherLook, render_other
from vision_helpers import TILTED, on_space

from bermuda_hw.geometry import axis_gap_deg
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import Cover, Scene, ShipToken, render
from bermuda_hw.vision.reader import BoardReader, Rectified

Image = npt.NDArray[np.uint8]


def _rectified(reader: BoardReader, frame: Image) -> Rectified:
    pose = reader.tracker.update(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    assert pose is not None
    return reader.rectify(frame, pose)


def _beside(board: Board, space_id: str, color: str, offset_mm: float) -> ShipToken:
    """A ship on a space, moved sideways (across its heading) by `offset_mm`."""
    s = board.spaces[space_id]
    h = math.radians(s.heading_deg)
    return ShipToken(
        color, s.x_mm - offset_mm * math.sin(h), s.y_mm + offset_mm * math.cos(h), s.heading_deg
    )


def test_a_ship_is_read_where_its_token_stands_on_its_place(classic_board: Board) -> None:
    """A token set down 4 mm to either side of its space, within the sample disk: the
    reading's position (the centre of its colour's pixels) follows the token across the
    space; every confidence is given to three decimals."""
    board = classic_board
    for sid in ("S20", "S05", "S33"):
        found = []
        for offset in (4.0, -4.0):
            ship = _beside(board, sid, "yellow", offset)
            reading = BoardReader(board).read(render(board, Scene((ship,)), TILTED, seed=2))
            assert [(s.color, s.space) for s in reading.ships] == [("yellow", sid)]
            found.append(reading.ships[0])
            assert round(found[-1].confidence, 3) == found[-1].confidence
        h = math.radians(board.spaces[sid].heading_deg)
        across = (found[0].x_mm - found[1].x_mm) * -math.sin(h) + (
            found[0].y_mm - found[1].y_mm
        ) * math.cos(h)
        assert 2.0 < across < 11.0, (sid, across)
    off = BoardReader(board).read(
        render(board, Scene((ShipToken("red", 320.0, 364.0, 30.0),)), TILTED, seed=2)
    )
    assert [s.space for s in off.ships] == [None]
    assert round(off.ships[0].confidence, 3) == off.ships[0].confidence


def test_the_one_place_in_view_is_read(classic_board: Board) -> None:
    """Every place but one skipped (hidden): that one place is still read."""
    board = classic_board
    reader = BoardReader(board)
    layout = reader.layout
    index = next(i for i, p in enumerate(layout.places) if p.space == "S20")
    frame = render(board, Scene((_beside(board, "S20", "green", 0.0),)), TILTED, seed=2)
    rect = _rectified(reader, frame)
    skip = np.ones(len(layout.places), bool)
    skip[index] = False
    hits = reader.ships.sample_places(rect.rect, rect.norm, skip)
    assert [(h.place, reader.ships.names[h.color]) for h in hits] == [(index, "green")]
    skip[index] = True
    assert reader.ships.sample_places(rect.rect, rect.norm, skip) == []


def test_a_ship_after_things_of_its_colour_that_are_no_ship(classic_board: Board) -> None:
    """The search looks at every blob of a colour: a red bead too small for a ship, or a
    red stroke longer than any ship, found before a red ship (above it on the board), does
    not hide the ship."""
    board = classic_board
    reader = BoardReader(board)
    ship = ShipToken("red", 320.0, 364.0, 30.0)
    bead = Cover(320.0, 300.0, 3.5, (40, 40, 200), 3.0)
    frame = render(board, Scene((ship,), covers=(bead,)), TILTED, seed=3)
    assert [(s.color, s.space) for s in reader.read(frame).ships] == [("red", None)]
    rect = _rectified(BoardReader(board), frame)
    finder = reader.ships
    codes = finder.classifier.codes(rect.norm.half, rect.norm.sea_lab, rect.norm.land_lab)
    labels = finder.half_labels(rect.norm, codes)
    red = finder.names.index("red")
    found = finder.search(labels, [], [])
    assert [
        (c, round(x), round(y))
        for c, x, y, _ in found
        if math.dist((x, y), (ship.x_mm, ship.y_mm)) < 6.0
    ] != []
    # above the ship on the sea: a red stroke 60 mm long and 8 mm wide, or a red bead 6 mm
    # wide (labelled as a red ship would be)
    s = reader.layout.px_per_mm / 2
    stroke, bead = labels.copy(), labels.copy()
    cv2.line(
        stroke,
        (round(290 * s), round(290 * s)),
        (round(350 * s), round(290 * s)),
        red,
        round(8 * s),
    )
    cv2.circle(bead, (round(320 * s), round(290 * s)), round(3 * s), red, cv2.FILLED)
    for painted in (stroke, bead):
        assert (painted == red).sum() > (labels == red).sum()
        blobs = finder.search(painted, [], [])
        near = [b for b in blobs if math.dist((b[1], b[2]), (ship.x_mm, ship.y_mm)) < 6.0]
        assert len(near) == 1 and near[0][0] == red
        assert all(b[2] > 320.0 for b in blobs)  # the stroke or the bead is no ship


def test_blobs_snap_to_a_free_place_once_and_keep_its_berth(classic_board: Board) -> None:
    """Two blobs by one free space: the first found is put on it, the other stays off the
    spaces; a blob by a free berth of a port is put in that berth."""
    board = classic_board
    finder = BoardReader(board).ships
    space = board.spaces["S20"]
    blobs = [(0, space.x_mm + 10.0, space.y_mm, 1.0), (1, space.x_mm - 11.0, space.y_mm, 1.0)]
    readings = finder.readings([], blobs)
    assert [(r.color, r.space) for r in readings] == [
        (finder.names[0], "S20"),
        (finder.names[1], None),
    ]
    port = board.ports["OIL"]
    x, y = port.berths[2]
    (reading,) = finder.readings([], [(2, x + 4.0, y - 3.0, 0.8)])
    assert (reading.space, reading.berth) == ("OIL", 2)
    assert (reading.x_mm, reading.y_mm, reading.confidence) == (x + 4.0, y - 3.0, 0.8)


def test_a_tokens_axis_follows_the_token_as_it_is_turned(classic_board: Board) -> None:
    """A ship's axis is the line its token lies along on its place: turned on its space by
    30 or 75 degrees, the reading turns by as much (within 10: the place's disk clips the
    token, and its deck shows another colour); the same token shot again reads within 2
    degrees of itself. Its position and axis are what tell a token left
    alone from another set down in its place (`controller.moved`)."""
    board = classic_board
    reader = BoardReader(board)
    for sid in ("S20", "S05", "S33"):
        h = board.spaces[sid].heading_deg
        axes = []
        for turn, seed in ((0.0, 2), (0.0, 3), (30.0, 2), (75.0, 2)):
            token = on_space(board, sid, "green")
            ship = ShipToken(token.color, token.x_mm, token.y_mm, h + turn)
            reading = reader.read(render(board, Scene((ship,)), TILTED, seed=seed))
            [found] = reading.ships
            assert found.space == sid and found.axis_deg is not None
            assert 0.0 <= found.axis_deg < 180.0
            axes.append(found.axis_deg)
        assert axis_gap_deg(axes[0], axes[1]) < 2.0, sid
        for turned, turn in ((axes[2], 30.0), (axes[3], 75.0)):
            assert abs(axis_gap_deg(turned, axes[0]) - turn) < 10.0, (sid, turn)


def test_a_round_token_has_no_axis(classic_board: Board) -> None:
    """The second renderer's tokens: its boat hulls read an axis that turns with them; its
    round pegs show no length, and read no axis (their position alone is followed)."""
    board = classic_board
    base = OtherLook.random(random.Random(5), board)
    for hull in ("boat", "peg"):
        look = dataclasses.replace(base, hull=hull)
        axes = []
        for turn in (0.0, 60.0):
            h = board.spaces["S20"].heading_deg + turn
            token = on_space(board, "S20", "red")
            scene = Scene((ShipToken(token.color, token.x_mm, token.y_mm, h),))
            reading = BoardReader(board).read(render_other(board, scene, look, 1))
            [found] = [s for s in reading.ships if s.space == "S20"]
            axes.append(found.axis_deg)
        if hull == "peg":
            assert axes == [None, None]
        else:
            assert axes[0] is not None and axes[1] is not None
            assert abs(axis_gap_deg(axes[0], axes[1]) - 60.0) < 6.0
