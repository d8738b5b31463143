"""Ships on other boards and on a learned board, and the colour codes that hand detection reads.

Frames are rendered from the simulated table: boards described differently from the
classic one (the centre dot off the diagonal, no land at all), a board whose printing
differs from its file once its look has been learned, hands and glare.
"""

from __future__ import annotations

import math
import tempfile
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from printing_trial import start_ships
from vision_helpers import TILTED, cloud_at, in_berth, on_space

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.sim.render import (
    CameraModel,
    Cover,
    Hand,
    Palette,
    Printing,
    Rose,
    Scene,
    ShipStyle,
    ShipToken,
    render,
)
from bermuda_hw.vision.colors import parse_calibration
from bermuda_hw.vision.reader import BoardReader, VisionSettings
from bermuda_hw.vision.ships import FAR_LAND, FAR_SEA, LABEL_MASK

Image = npt.NDArray[np.uint8]
Codes = npt.NDArray[np.uint8]

CLASSIC_CENTRE = "centre = [4, 4]"


def _classic_text() -> str:
    return (resources.files("bermuda_hw") / "rules" / "data" / "classic.toml").read_text("utf-8")


def _board(text: str) -> Board:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.toml"
        path.write_text(text, encoding="utf-8")
        return load_board(path)


def _placed(reader: BoardReader, frame: Image) -> list[tuple[str, str | None]]:
    reading = reader.read(frame)
    assert reading.board_found
    assert all(0.0 < s.confidence <= 1.0 for s in reading.ships)
    return sorted(((s.color, s.space) for s in reading.ships), key=lambda t: (t[0], t[1] or ""))


def _codes(reader: BoardReader, frame: Image) -> tuple[Codes, Image]:
    """The lookup-table code of every half-resolution pixel of the normalised board, as
    the reader hands them to hand detection, and the normalised image."""
    pose = reader.tracker.update(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    assert pose is not None
    norm = reader.rectify(frame, pose).norm
    return reader.ships.classifier.codes(norm.half, norm.sea_lab, norm.land_lab), norm.half


def _half(reader: BoardReader, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    size = (reader.layout.width_px // 2, reader.layout.height_px // 2)
    out: npt.NDArray[np.bool_] = cv2.resize(
        mask.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST
    ).astype(bool)
    return out


# ---------------------------------------------------------------- boards of other shapes


def test_the_centre_ring_is_ignored_where_the_board_puts_it() -> None:
    """On a board whose centre dot is one column west of the classic one (off the
    diagonal), the printed centre ring is no ship, and a ship beside the classic centre,
    now plain sea, is seen."""
    text = _classic_text()
    assert CLASSIC_CENTRE in text
    board = _board(text.replace(CLASSIC_CENTRE, "centre = [3, 4]"))
    assert board.grid.dot_mm(*board.grid.centre) == (210.0, 254.0)
    for camera in (CameraModel(), TILTED):
        assert _placed(BoardReader(board), render(board, Scene(), camera, seed=2)) == []
        ship = ShipToken("red", 262.0, 262.0, 45.0)
        frame = render(board, Scene((ship,)), camera, seed=2)
        reading = BoardReader(board).read(frame)
        assert [(s.color, s.space) for s in reading.ships] == [("red", None)]
        found = reading.ships[0]
        assert abs(found.x_mm - ship.x_mm) < 6.0 and abs(found.y_mm - ship.y_mm) < 6.0


def test_a_board_without_land_reads_ships_and_hands() -> None:
    """An owner's board of open sea (no land in its file): ships on spaces, in ports and
    off them are read, and a hand is still a hand."""
    text = _classic_text()
    board = _board(text[: text.index("[[land]]")])
    assert board.land == ()
    ships = (
        on_space(board, "S20", "red"),
        in_berth(board, "OIL", 1, "green"),
        ShipToken("yellow", 320.0, 364.0, 20.0),
    )
    reader = BoardReader(board)
    assert _placed(reader, render(board, Scene(ships), TILTED, seed=1)) == [
        ("green", "OIL"),
        ("red", "S20"),
        ("yellow", None),
    ]
    codes, _ = _codes(reader, render(board, Scene(ships), TILTED, seed=1))
    assert not (codes & FAR_LAND).any()  # no land: nothing is far from it
    hand = Hand(300.0, 260.0, "S", 100.0)
    assert BoardReader(board).read(render(board, Scene(ships, hand=hand), TILTED, seed=1)).occluded


EDGE_PORTS = {  # ports moved against the four edges, their outer berths 4 mm from them
    "berths = [[241.0, 49.0], [267.0, 49.0], [241.0, 75.0], [267.0, 75.0]]":  # LUMBER
    "berths = [[367.0, 4.0], [393.0, 4.0], [367.0, 30.0], [393.0, 30.0]]",
    "berths = [[49.0, 241.0], [75.0, 241.0], [49.0, 267.0], [75.0, 267.0]]":  # HOME
    "berths = [[4.0, 241.0], [30.0, 241.0], [4.0, 267.0], [30.0, 267.0]]",
    "berths = [[433.0, 105.0], [459.0, 105.0], [433.0, 131.0], [459.0, 131.0]]":  # OIL
    "berths = [[478.0, 241.0], [504.0, 241.0], [478.0, 267.0], [504.0, 267.0]]",
    "berths = [[417.0, 427.0], [443.0, 427.0], [417.0, 453.0], [443.0, 453.0]]":  # BANANAS
    "berths = [[367.0, 478.0], [393.0, 478.0], [367.0, 504.0], [393.0, 504.0]]",
}


def test_berths_at_the_edges_of_the_board() -> None:
    """A board whose ports lie against its four edges, LUMBER facing BANANAS and HOME
    facing OIL across the board: ships in the outermost berths, whose sample disks reach
    past the edge, are read in them, and an empty berth never borrows what lies at the
    opposite edge."""
    text = _classic_text()
    for old, new in EDGE_PORTS.items():
        assert old in text
        text = text.replace(old, new)
    board = _board(text)
    west_north = (in_berth(board, "LUMBER", 0, "red"), in_berth(board, "HOME", 0, "green"))
    x, y = board.ports["BANANAS"].berths[2]
    east_south = (in_berth(board, "OIL", 1, "yellow"), ShipToken("blue", x, y, 90.0))
    expected = {
        west_north: [("green", "HOME", 0), ("red", "LUMBER", 0)],
        east_south: [("blue", "BANANAS", 2), ("yellow", "OIL", 1)],
    }
    for camera in (CameraModel(), TILTED):
        assert _placed(BoardReader(board), render(board, Scene(), camera, seed=1)) == []
        for ships, places in expected.items():
            reading = BoardReader(board).read(render(board, Scene(ships), camera, seed=1))
            assert sorted((s.color, s.space, s.berth) for s in reading.ships) == places


def _edge_ports_board() -> Board:
    text = _classic_text()
    for old, new in EDGE_PORTS.items():
        text = text.replace(old, new)
    return _board(text)


def test_the_search_covers_the_sea_that_the_reader_measures(classic_board: Board) -> None:
    """At half resolution, every pixel that the lighting and hand detection take for the
    sea is searched for ships off their places, and no pixel of the land they watch is:
    the search's masks are sampled at the same pixels (on the classic board, one without
    land, one with its ports at the edges and one with its centre dot moved)."""
    text = _classic_text()
    boards = (
        classic_board,
        _board(text[: text.index("[[land]]")]),
        _edge_ports_board(),
        _board(text.replace(CLASSIC_CENTRE, "centre = [3, 4]")),
    )
    for board in boards:
        reader = BoardReader(board)
        searched = reader.ships.search_allowed
        sea = reader.occlusion.sea
        assert sea.shape == searched.shape and sea.sum() > 20_000
        assert np.array_equal(sea, reader.normaliser.sea_half > 0)
        assert not (sea & ~searched).any()
        assert not (reader.occlusion.land & searched).any()
        # the corner markers themselves are never searched
        markers = np.zeros(reader.layout.marker_zone.shape, np.uint8)
        for m in board.markers.corners:
            h = m.size_mm / 2
            cv2.rectangle(
                markers,
                (round(m.x_mm - h), round(m.y_mm - h)),
                (round(m.x_mm + h), round(m.y_mm + h)),
                1,
                -1,
            )
        assert not (_half(reader, markers > 0) & searched).any()


def test_a_finer_rectification_reads_the_same_ships_at_the_same_places(
    classic_board: Board,
) -> None:
    """A reader that rectifies the board at 2 pixels per millimetre instead of 1 reads the
    same ships, on and off the spaces, at the same positions in millimetres."""
    board = classic_board
    ships = (
        on_space(board, "S20", "red"),
        in_berth(board, "OIL", 1, "green"),
        ShipToken("blue", 320.0, 364.0, 20.0),
        on_space(board, "S05", "yellow"),
    )
    frame = render(board, Scene(ships), TILTED, seed=1)
    coarse = BoardReader(board).read(frame).ships
    fine = BoardReader(board, settings=VisionSettings(px_per_mm=2.0)).read(frame).ships
    assert sorted((s.color, s.space or "") for s in fine) == [
        ("blue", ""),
        ("green", "OIL"),
        ("red", "S20"),
        ("yellow", "S05"),
    ]
    for a, b in zip(
        sorted(coarse, key=lambda s: s.color), sorted(fine, key=lambda s: s.color), strict=True
    ):
        assert (a.color, a.space, a.berth) == (b.color, b.space, b.berth)
        assert math.dist((a.x_mm, a.y_mm), (b.x_mm, b.y_mm)) < 2.0


def _beside(board: Board, space_id: str, color: str, offset_mm: float) -> ShipToken:
    """A ship set down `offset_mm` to the side of a path space (across its heading)."""
    s = board.spaces[space_id]
    h = math.radians(s.heading_deg)
    return ShipToken(
        color, s.x_mm + offset_mm * math.cos(h), s.y_mm + offset_mm * math.sin(h), s.heading_deg
    )


def test_a_ship_set_down_beside_its_space_is_read_on_it(classic_board: Board) -> None:
    """13 mm beside its space a ship is beyond the sample disk, found by the search and
    put on the space, as sure as the search was; of two such ships by one space, one is on
    it and one is off."""
    board = classic_board
    for sid in ("S20", "S05", "S33"):
        ship = _beside(board, sid, "red", 13.0)
        reading = BoardReader(board).read(render(board, Scene((ship,)), TILTED, seed=1))
        assert [(s.color, s.space) for s in reading.ships] == [("red", sid)]
        found = reading.ships[0]
        assert math.dist((found.x_mm, found.y_mm), (ship.x_mm, ship.y_mm)) < 6.0
        # put on its space, it keeps the search's confidence: the blob of a 22 x 9 mm token
        # is below the 150 mm2 of a sure one
        assert 0.5 < found.confidence < 1.0
    pair = (_beside(board, "S20", "red", 13.0), _beside(board, "S20", "green", -13.0))
    reading = BoardReader(board).read(render(board, Scene(pair), TILTED, seed=1))
    assert sorted(s.color for s in reading.ships) == ["green", "red"]
    assert sorted((s.space or "") for s in reading.ships) == ["", "S20"]
    assert all(0.5 < s.confidence <= 1.0 for s in reading.ships)


def test_confidence_grows_with_the_ships_size(classic_board: Board) -> None:
    """Smaller tokens fill less of their space's sample disk, and smaller blobs off the
    spaces are less sure: the confidence grows with the token's size, up to 1."""
    board = classic_board
    on: list[float] = []
    off: list[float] = []
    for length_mm, beam_mm in ((14.0, 6.0), (18.0, 7.0), (22.0, 9.0), (30.0, 14.0)):
        palette = Palette(ship_style=ShipStyle(length_mm=length_mm, beam_mm=beam_mm, bow="round"))
        ships = (on_space(board, "S20", "red"), ShipToken("red", 320.0, 364.0, 30.0))
        reading = BoardReader(board).read(
            render(board, Scene(ships), TILTED, seed=1, palette=palette)
        )
        on += [s.confidence for s in reading.ships if s.space == "S20"]
        off += [s.confidence for s in reading.ships if s.space is None]
    assert len(on) == 4 and on[0] < on[1] < on[2] <= on[3] == 1.0
    assert on[0] > 0.3
    # The two smallest are below the size of a ship off the spaces.
    assert len(off) == 2 and 0.5 < off[0] < off[1] == 1.0


# ---------------------------------------------------------------- things that are no ship


def test_things_of_a_ships_colour_that_are_no_ship(classic_board: Board) -> None:
    """Off the places, a red stick longer than any ship, a small red bead and an orange
    token (between the red and the yellow ships) are not ships; a red ship is."""
    board = classic_board
    stick = Palette(ship_style=ShipStyle(length_mm=60.0, beam_mm=8.0, bow="square"))
    reader = BoardReader(board)
    assert (
        _placed(
            reader,
            render(
                board, Scene((ShipToken("red", 320.0, 364.0, 30.0),)), TILTED, seed=3, palette=stick
            ),
        )
        == []
    )
    bead = Cover(320.0, 364.0, 3.0, (40, 40, 200), 3.0)
    assert _placed(reader, render(board, Scene(covers=(bead,)), TILTED, seed=3)) == []
    colors = dict(Palette().ships)
    colors["red"] = (35, 120, 220)  # halfway between the red and the yellow plastic
    orange = Palette(ships=tuple(colors.items()))
    ships = (ShipToken("red", 320.0, 364.0, 30.0), on_space(board, "S20", "red"))
    assert _placed(reader, render(board, Scene(ships), TILTED, seed=3, palette=orange)) == []
    assert _placed(reader, render(board, Scene(ships), TILTED, seed=3)) == [
        ("red", None),
        ("red", "S20"),
    ]


def test_printed_spots_named_in_the_calibration_are_no_ships(classic_board: Board) -> None:
    """A red compass rose printed on the open sea is a red ship to a reader that does not
    know of it; named as a spot to ignore in the colour calibration file, it is none, and
    ships beside it are still seen."""
    board = classic_board
    palette = Palette(printing=Printing(roses=(Rose(320.0, 364.0, 12.0, (40, 40, 200)),)))
    calibration = parse_calibration(
        "[[ignore]]\nx_mm = 320.0\ny_mm = 364.0\nradius_mm = 16.0\n",
        "colors.toml",
        board.ship_colors,
    )
    ships = (on_space(board, "S20", "red"), ShipToken("red", 150.0, 300.0, 60.0))
    for camera in (CameraModel(), TILTED):
        frame = render(board, Scene(ships), camera, seed=2, palette=palette)
        assert _placed(BoardReader(board), frame) == [("red", None), ("red", None), ("red", "S20")]
        reading = BoardReader(board, calibration=calibration).read(frame)
        assert sorted((s.color, s.space or "") for s in reading.ships) == [
            ("red", ""),
            ("red", "S20"),
        ]
        off = next(s for s in reading.ships if s.space is None)
        assert math.dist((off.x_mm, off.y_mm), (150.0, 300.0)) < 6.0


def test_a_board_with_two_ship_colours_still_tells_them_apart() -> None:
    """On a board file with only yellow and red ships, a pixel counts for one of them only
    if it is clearly nearer to it than to the other: an orange token, halfway between
    them, is no ship; red and yellow ships are read."""
    text = _classic_text()
    four = 'ship_colors = ["blue", "yellow", "green", "red"]'
    assert four in text
    board = _board(text.replace(four, 'ship_colors = ["yellow", "red"]'))
    colors = dict(Palette().ships)
    colors["red"] = (35, 120, 220)  # halfway between the red and the yellow plastic
    orange = Palette(ships=tuple(colors.items()))
    ships = (
        ShipToken("red", 320.0, 364.0, 30.0),
        on_space(board, "S20", "red"),
        on_space(board, "S05", "yellow"),
    )
    for camera in (CameraModel(), TILTED):
        assert _placed(
            BoardReader(board), render(board, Scene(ships), camera, seed=3, palette=orange)
        ) == [("yellow", "S05")]
        assert _placed(BoardReader(board), render(board, Scene(ships), camera, seed=3)) == [
            ("red", None),
            ("red", "S20"),
            ("yellow", "S05"),
        ]


# ---------------------------------------------------------------- the codes hands are found by


def test_a_hands_pixels_are_far_from_the_sea_and_the_land_and_glare_is_neither(
    classic_board: Board,
) -> None:
    """The flags that hand detection reads: set where a hand lies over the sea or over
    the land, clear on the bare sea and land, clear on glare; ship labels unchanged."""
    board = classic_board
    reader = BoardReader(board)
    layout = reader.layout
    ship = on_space(board, "S20", "red")
    glare = Cover(330.0, 330.0, 35.0, (252, 252, 252), 0.0)
    bare = render(board, Scene((ship,), covers=(glare,)), CameraModel(), seed=1)
    # Over Florida (land, west) and the sea east of it.
    hand = Hand(150.0, 190.0, "W", 100.0)
    covered = render(board, Scene((ship,), hand=hand, covers=(glare,)), CameraModel(), seed=1)
    codes_bare, half_bare = _codes(reader, bare)
    codes_hand, half_hand = _codes(BoardReader(board), covered)
    arm = np.abs(half_hand.astype(np.int16) - half_bare.astype(np.int16)).sum(axis=2) > 90
    sea = _half(reader, layout.sea)
    land = _half(reader, layout.land)
    assert (arm & sea).sum() > 200 and (arm & land).sum() > 100

    def share(codes: Codes, where: npt.NDArray[np.bool_], flag: int) -> float:
        return float(((codes & flag) > 0)[where].mean())

    assert share(codes_hand, arm & sea, FAR_SEA) > 0.8
    # skin is near the land's colour, the sleeve far from it
    assert share(codes_hand, arm & land, FAR_LAND) > 0.2
    assert share(codes_bare, sea, FAR_SEA) < 0.05
    assert share(codes_bare, land, FAR_LAND) < 0.05
    s = 0.5 * layout.px_per_mm
    yy, xx = np.mgrid[0 : sea.shape[0], 0 : sea.shape[1]]
    bright = np.hypot(xx - glare.x_mm * s, yy - glare.y_mm * s) < 0.7 * glare.radius_mm * s
    assert share(codes_bare, bright, FAR_SEA | FAR_LAND) < 0.05
    # The flags never change a pixel's ship colour.
    x, y = round(ship.x_mm * s), round(ship.y_mm * s)
    red = board.ship_colors.index("red") + 1
    for codes in (codes_bare, codes_hand):
        around = codes[y - 3 : y + 4, x - 3 : x + 4] & LABEL_MASK
        assert (around == red).mean() > 0.5


# ---------------------------------------------------------------- the learned board


@pytest.fixture(scope="module")
def learned_rose_board(classic_board: Board) -> tuple[Board, Palette, BoardReader]:
    """A board printed with two yellow compass roses the file does not know of, one under
    a path space and one on the open sea, learned from the start layout."""
    board = classic_board
    s10 = board.spaces["S10"]
    roses = (
        Rose(s10.x_mm, s10.y_mm, 14.0, (40, 190, 225)),
        Rose(320.0, 364.0, 18.0, (40, 190, 225)),
    )
    palette = Palette(printing=Printing(roses=roses))
    reader = BoardReader(board)
    reader.learn_background(
        render(
            board, Scene(start_ships(board), cloud_at(board, 8, 8)), TILTED, seed=1, palette=palette
        )
    )
    return board, palette, reader


def test_a_learned_boards_printing_is_no_ship_on_a_space_or_off_it(
    learned_rose_board: tuple[Board, Palette, BoardReader],
) -> None:
    board, palette, reader = learned_rose_board
    far = cloud_at(board, 8, 8)
    assert (
        _placed(BoardReader(board), render(board, Scene((), far), TILTED, seed=2, palette=palette))
        != []
    )
    assert _placed(reader, render(board, Scene((), far), TILTED, seed=2, palette=palette)) == []
    ships = (
        on_space(board, "S10", "red"),
        ShipToken("blue", 320.0, 364.0, 60.0),
        on_space(board, "S30", "yellow"),
    )
    assert _placed(reader, render(board, Scene(ships, far), TILTED, seed=3, palette=palette)) == [
        ("blue", None),
        ("red", "S10"),
        ("yellow", "S30"),
    ]


def test_a_learned_board_still_sees_ships_in_the_colour_of_its_printing(
    learned_rose_board: tuple[Board, Palette, BoardReader],
) -> None:
    board, palette, reader = learned_rose_board
    ships = (
        on_space(board, "S10", "yellow"),
        ShipToken("yellow", 150.0, 300.0, 60.0),
        in_berth(board, "HOME", 2, "yellow"),
    )
    assert _placed(
        reader, render(board, Scene(ships, cloud_at(board, 8, 8)), TILTED, seed=4, palette=palette)
    ) == [("yellow", None), ("yellow", "HOME"), ("yellow", "S10")]


def test_a_learned_board_sees_a_ship_put_down_on_the_land(
    learned_rose_board: tuple[Board, Palette, BoardReader],
) -> None:
    """The board file's land is searched once its look is learned: a ship left on
    Florida is reported off the spaces (a reader that knows only the file searches the
    sea alone, and takes the unknown roses for ships)."""
    board, palette, reader = learned_rose_board
    frame = render(
        board,
        Scene((ShipToken("red", 30.0, 190.0, 0.0),), cloud_at(board, 8, 8)),
        TILTED,
        seed=5,
        palette=palette,
    )
    assert _placed(reader, frame) == [("red", None)]
    assert ("red", None) not in _placed(BoardReader(board), frame)


def test_ports_painted_in_a_ship_colour_read_with_the_board_file_alone(
    classic_board: Board,
) -> None:
    """Yellow-sand ports, not learned: each pixel in a port is judged against the paint
    measured around its berths, so the sand left between yellow and red ships in their
    berths is no ship off the berths; out on the sea the paint is no background, and a
    yellow ship there is found."""
    board = classic_board
    palette = Palette(port=(120, 225, 250))
    ships = (
        in_berth(board, "OIL", 1, "yellow"),
        in_berth(board, "HOME", 3, "yellow"),
        in_berth(board, "OIL", 2, "red"),
        ShipToken("yellow", 320.0, 364.0, 30.0),
    )
    for camera in (CameraModel(), TILTED):
        assert (
            _placed(BoardReader(board), render(board, Scene(), camera, seed=2, palette=palette))
            == []
        )
        assert _placed(
            BoardReader(board), render(board, Scene(ships), camera, seed=3, palette=palette)
        ) == [("red", "OIL"), ("yellow", None), ("yellow", "HOME"), ("yellow", "OIL")]


def test_a_learned_board_with_ports_painted_in_a_ship_colour(classic_board: Board) -> None:
    """Yellow-sand ports, learned: empty berths are no ships, a yellow ship in one is."""
    board = classic_board
    palette = Palette(port=(120, 225, 250))
    reader = BoardReader(board)
    reader.learn_background(
        render(board, Scene(start_ships(board)), TILTED, seed=1, palette=palette)
    )
    assert _placed(reader, render(board, Scene(), TILTED, seed=2, palette=palette)) == []
    ships = (
        in_berth(board, "OIL", 1, "yellow"),
        in_berth(board, "HOME", 3, "yellow"),
        in_berth(board, "OIL", 2, "red"),
    )
    assert _placed(reader, render(board, Scene(ships), TILTED, seed=3, palette=palette)) == [
        ("red", "OIL"),
        ("yellow", "HOME"),
        ("yellow", "OIL"),
    ]


def test_a_learned_board_with_golden_sand_ports(classic_board: Board) -> None:
    """Ports painted a golden sand a little darker than the yellow ships, learned: empty
    berths are no ships, and yellow ships in them (some found only off their berth's
    sample disk, by the search) are read. The learned board alone judges what is paint:
    judged against the ports' measured paint as well, yellow ships in OIL and LUMBER are
    lost, and those in HOME are read less surely."""
    board = classic_board
    palette = Palette(port=(60, 190, 235))
    reader = BoardReader(board)
    reader.learn_background(
        render(board, Scene(start_ships(board)), TILTED, seed=1, palette=palette)
    )
    scenes = {
        (
            in_berth(board, "OIL", 1, "yellow"),
            in_berth(board, "HOME", 3, "yellow"),
            in_berth(board, "OIL", 2, "red"),
        ): [("red", "OIL"), ("yellow", "HOME"), ("yellow", "OIL")],
        (
            in_berth(board, "LUMBER", 0, "yellow"),
            in_berth(board, "HOME", 2, "yellow"),
            in_berth(board, "OIL", 3, "yellow"),
        ): [("yellow", "HOME"), ("yellow", "LUMBER"), ("yellow", "OIL")],
    }
    for seed in (2, 3):
        assert _placed(reader, render(board, Scene(), TILTED, seed=seed, palette=palette)) == []
        for ships, places in scenes.items():
            reading = reader.read(render(board, Scene(ships), TILTED, seed=seed, palette=palette))
            assert sorted((s.color, s.space) for s in reading.ships) == places
            # standing squarely in its berth, a ship is read nearly as surely as on the sea
            assert all(s.confidence >= 0.9 for s in reading.ships if s.space == "HOME")
