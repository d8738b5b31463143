"""Differences, their words, passes and capture decisions on readings of one ship per place."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest

from bermuda_hw.controller.consequences import captured_ships, taken_by_track
from bermuda_hw.controller.identify import Difference, difference, explain, pass_die
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.cloud import CloudPose, Spin
from bermuda_hw.rules.events import Swept
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, ShipToken, render
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.types import BoardObservation, ShipReading


def observation(
    board: Board, places: Iterable[tuple[str, str | None]], hidden: frozenset[str] = frozenset()
) -> BoardObservation:
    ships = []
    for color, space in places:
        x_mm, y_mm = board.spaces[space].position if space else (250.0, 250.0)
        ships.append(ShipReading(color, space, x_mm, y_mm))
    return BoardObservation(tuple(ships), None, 0.0, 3, hidden)


def placement(game: Game) -> list[tuple[str, str | None]]:
    return [(s.color, s.location) for s in game.ships() if s.location is not None]


def moved(
    places: list[tuple[str, str | None]], color: str, start: str, end: str | None
) -> list[tuple[str, str | None]]:
    out = list(places)
    out.remove((color, start))
    out.append((color, end))
    return out


def test_unchanged_board_has_no_difference(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    assert not difference(game, observation(board, placement(game)))


def test_illegal_move_is_explained(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    reachable = {m.end for d in range(1, 7) for m in game.legal_moves(d) if m.start == "SUGAR"}
    far = next(s for s in board.spaces if s not in reachable and s not in board.ports)
    seen = observation(board, moved(placement(game), "blue", "SUGAR", far))
    message = explain(game, difference(game, seen))
    assert "SUGAR" in message and far in message
    assert "not a legal move" in message


def test_wrong_player_is_named(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    move = next(m for m in _moves_of(game, "yellow"))
    seen = observation(board, moved(placement(game), "yellow", move.start, move.end))
    message = explain(game, difference(game, seen))
    assert "blue's turn" in message and "yellow" in message


def test_two_ships_moved_at_once(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    a = game.legal_moves(1)[0]
    b = next(m for m in game.legal_moves(2) if m.start != a.start)
    places = moved(moved(placement(game), "blue", a.start, a.end), "blue", b.start, b.end)
    assert "more than one ship" in explain(game, difference(game, observation(board, places)))


def test_places_under_the_cloud_are_not_compared(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    places = [p for p in placement(game) if p[1] != "OIL"]
    assert not difference(game, observation(board, places, frozenset({"OIL"})))


def test_pass_only_when_some_die_leaves_no_move(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    assert pass_die(game) is None
    for ship in game.ships("blue"):
        game.set_ship(ship.id, None)
    game.set_ship("blue-1", "SUGAR")
    # the cloud over every exit of the sugar port
    exits = board.neighbours("SUGAR")
    for col, row in board.grid.dots():
        game.set_cloud(CloudPose(col, row, 0))
        if exits <= game.blocked:
            break
    game.set_turn("blue")
    if exits <= game.blocked:
        die = pass_die(game)
        assert die is not None and game.legal_moves(die) == [Move.pass_turn("blue")]


def test_captured_are_the_swept_ships_no_longer_seen(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    game.set_turn(game.order[0], Phase.CLOUD)
    places = placement(game)
    # two ships swept: one vanished (captured), one still seen (survived)
    gone, stays = "blue-2", "yellow-3"
    loc = game.ship(gone).location
    assert loc is not None
    places.remove(("blue", loc))
    result = captured_ships(game, frozenset({gone, stays}), observation(board, places))
    assert result == frozenset({gone})


def test_captured_counts_per_place(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    game.set_ship("blue-1", "S05")
    game.set_ship("blue-2", "S05")
    places = placement(game)
    places.remove(("blue", "S05"))
    result = captured_ships(game, frozenset({"blue-1", "blue-2"}), observation(board, places))
    assert len(result) == 1 and result <= {"blue-1", "blue-2"}


def _moves_of(game: Game, color: str) -> list[Move]:
    other = game.copy()
    other.set_turn(color)
    return [m for d in range(1, 7) for m in other.legal_moves(d) if not m.is_pass]


def test_a_port_the_cloud_covers_after_the_spin_loses_only_the_ships_on_its_track(
    board: Board,
) -> None:
    """Two ships at LUMBER, yellow on berth 0 and blue on berth 1 (not the seat order); the
    spin's magnets pass berths 1 and 3 and the cloud ends over the port: the camera saw
    before the spin which token stood where."""
    game = Game.new(2, seed=1, board=board)
    assert sorted(game.ships_at("LUMBER")) == ["blue-4", "yellow-4"]
    game.set_turn(game.order[0], Phase.CLOUD)
    berths = board.ports["LUMBER"].berths
    tokens = [ShipToken("blue", *berths[1], 0.0), ShipToken("yellow", *berths[0], 0.0)]
    for ship in game.ships():
        if ship.location is not None and ship.location != "LUMBER":
            s = board.spaces[ship.location]
            x_mm, y_mm = (
                (s.x_mm, s.y_mm)
                if ship.location not in board.ports
                else board.ports[ship.location].berths[0]
            )
            if all(t.x_mm != x_mm or t.y_mm != y_mm for t in tokens):
                tokens.append(ShipToken(ship.color, x_mm, y_mm, 0.0))
    x_mm, y_mm = board.grid.dot_mm(*board.grid.centre)
    scene = Scene(ships=tuple(tokens), cloud=CloudState(x_mm, y_mm, 0.0))
    camera = CameraModel(width_px=640, height_px=480, focal_px=575.0)
    reading = BoardReader(board).read(render(board, scene, camera))
    before = BoardObservation(tuple(reading.ships), None, 0.0, 3)
    assert {(s.color, s.space) for s in before.ships} >= {("blue", "LUMBER"), ("yellow", "LUMBER")}
    spin = Spin.parse("E 4 N")
    events = game.copy().cloud_phase(spin, capture=())
    swept = next(frozenset(e.ships) for e in events if isinstance(e, Swept))
    assert {"blue-4", "yellow-4"} <= swept  # the rules: either may stand on a berth passed
    taken, seen = taken_by_track(game, spin, before)
    assert taken[("blue", "LUMBER")] == 1 and taken[("yellow", "LUMBER")] == 0
    after = observation(
        board, [p for p in placement(game) if p[1] != "LUMBER"], hidden=frozenset({"LUMBER"})
    )
    assert captured_ships(game, swept, after, taken, seen) & {"blue-4", "yellow-4"} == {"blue-4"}
    # without the camera's word from before the spin, every swept ship there is taken
    assert {"blue-4", "yellow-4"} <= captured_ships(game, swept, after)


# A ship in a port's berth lies next to a space: the camera reads it in both sampling disks,
# once as the port and once as the space, at (nearly) one position.
BERTH = (83.0, 433.0)  # a berth of SUGAR, 30 mm from S26


def _read_twice(
    board: Board, game: Game, ship: str, near: str, offset_mm: tuple[float, float] = (3.0, 4.0)
) -> list[ShipReading]:
    """Every ship read at its place, and `ship` (in SUGAR's berth) also read as `near`."""
    readings = []
    for color, space in placement(game):
        x_mm, y_mm = board.spaces[space].position if space else (250.0, 250.0)
        readings.append(ShipReading(color, space, x_mm, y_mm))
    color = game.ship(ship).color
    readings.remove(next(r for r in readings if r.color == color and r.space == "SUGAR"))
    readings.append(ShipReading(color, "SUGAR", *BERTH))
    readings.append(ShipReading(color, near, BERTH[0] + offset_mm[0], BERTH[1] + offset_mm[1]))
    return readings


def _seen(readings: list[ShipReading], hidden: frozenset[str] = frozenset()) -> BoardObservation:
    return BoardObservation(tuple(readings), None, 0.0, 3, hidden)


def test_a_ship_read_twice_is_one_ship(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    assert not difference(game, _seen(_read_twice(board, game, "blue-1", "S26")))


def test_two_readings_16_mm_apart_are_two_ships(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    for offset in ((16.0, 0.0), (0.0, 16.0), (30.0, 1.0)):
        diff = difference(game, _seen(_read_twice(board, game, "blue-1", "S26", offset)))
        assert diff.missing == () and diff.extra == (("blue", "S26"),), offset


def test_a_double_reading_beside_ships_on_that_space(board: Board) -> None:
    # two blue ships really on S26 and a third, in SUGAR's berth, also read as S26
    game = Game.new(2, seed=1, board=board, first_player="blue")
    game.set_ship("blue-2", "S26")
    game.set_ship("blue-3", "S26")
    readings = _read_twice(board, game, "blue-1", "S26")
    assert Counter((r.color, r.space) for r in readings)[("blue", "S26")] == 3
    assert not difference(game, _seen(readings))


def test_a_reading_under_the_cloud_is_not_a_double(board: Board) -> None:
    # a ship known hidden under the cloud never pairs with the one it lies next to
    game = Game.new(2, seed=1, board=board, first_player="blue")
    readings = _read_twice(board, game, "blue-1", "S26")
    hidden = [
        ShipReading(r.color, r.space, r.x_mm, r.y_mm, hidden=True) if r.space == "S26" else r
        for r in readings
    ]
    diff = difference(game, _seen(hidden))
    assert diff.extra == (("blue", "S26"),)


def test_the_words_for_a_ship_in_the_wrong_place(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    places = moved(placement(game), "blue", "SUGAR", "S05")
    diff = difference(game, observation(board, places))
    assert diff.describe() == "the blue ship at S05 belongs at SUGAR"
    off = difference(game, observation(board, moved(placement(game), "blue", "SUGAR", None)))
    assert off.describe() == "the blue ship off every space belongs at SUGAR"


def test_the_words_for_missing_and_extra_ships(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    places = placement(game)
    places.remove(("blue", "SUGAR"))
    places += [("yellow", "S05"), ("yellow", None)]
    diff = difference(game, observation(board, places))
    assert diff.missing == (("blue", "SUGAR"),)
    assert diff.extra == (("yellow", None), ("yellow", "S05"))
    assert diff.describe() == (
        "a blue ship is missing at SUGAR; a yellow ship off every space "
        "should not be there; a yellow ship at S05 should not be there"
    )
    assert explain(game, diff).startswith("it is blue's turn, but yellow ships changed: ")
    only_extra = difference(game, observation(board, [*placement(game), ("blue", "S05")]))
    assert only_extra and not only_extra.missing


def test_two_other_players_are_named_together(board: Board) -> None:
    game = Game.new(3, seed=1, board=board, first_player="blue")
    places = moved(moved(placement(game), "yellow", "SUGAR", "S26"), "green", "OIL", "S12")
    message = explain(game, difference(game, observation(board, places)))
    assert message == (
        "it is blue's turn, but green and yellow ships changed: "
        "the green ship at S12 belongs at OIL; "
        "the yellow ship at S26 belongs at SUGAR"
    )


def test_illegal_move_words_name_the_port_rule_only_for_ports(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    far = explain(
        game, difference(game, observation(board, moved(placement(game), "blue", "SUGAR", "S05")))
    )
    assert far == "blue ship SUGAR -> S05 is not a legal move with any die: put it back"
    port = explain(
        game, difference(game, observation(board, moved(placement(game), "blue", "SUGAR", "OIL")))
    )
    assert port == (
        "blue ship SUGAR -> OIL is not a legal move with any die (a port takes "
        "fewer than 2 ships, and at most 2 of one player): put it back"
    )
    off = explain(
        game, difference(game, observation(board, moved(placement(game), "blue", "SUGAR", None)))
    )
    assert off == "a blue ship left SUGAR and is off every space: put it on a space"


def test_one_ship_gone_and_two_new_is_described_not_called_a_move(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    places = [*moved(placement(game), "blue", "SUGAR", "S05"), ("blue", "S20")]
    diff = difference(game, observation(board, places))
    assert (len(diff.missing), len(diff.extra)) == (1, 2)
    assert explain(game, diff) == diff.describe()
    two = [*moved(placement(game), "blue", "SUGAR", "S05")]
    two.remove(("blue", "OIL"))
    diff = difference(game, observation(board, two))
    assert (len(diff.missing), len(diff.extra)) == (2, 1)
    assert explain(game, diff) == diff.describe()


def test_the_pass_die_is_the_lowest_and_only_when_no_move_is_left(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    for ship in game.ships("blue"):
        game.set_ship(ship.id, None)
    # one ship at the end of a lane: a single legal move for most dice, never a pass
    game.set_ship("blue-1", "S31")
    game.set_turn("blue")
    assert [len(game.legal_moves(d)) for d in range(2, 7)] == [1] * 5
    assert pass_die(game) is None
    # one ship in SUGAR with the cloud over both of its exits: every die passes
    game.set_ship("blue-1", "SUGAR")
    game.set_cloud(CloudPose(0, 8, 0))
    game.set_turn("blue")
    assert board.neighbours("SUGAR") <= game.blocked
    assert pass_die(game) == 1
    game.set_turn("blue", Phase.CLOUD)
    assert pass_die(game) is None


@pytest.mark.parametrize("space_first", [False, True])
def test_a_double_reading_beside_a_real_extra_ship(board: Board, space_first: bool) -> None:
    # the camera lists its readings in any order; a yellow ship really off every space
    game = Game.new(2, seed=1, board=board, first_player="blue")
    readings = _read_twice(board, game, "blue-1", "S26")
    if space_first:
        readings[-2], readings[-1] = readings[-1], readings[-2]
    readings.append(ShipReading("yellow", None, 250.0, 250.0))
    diff = difference(game, _seen(readings))
    assert diff == Difference((), (("yellow", None),))


def test_a_port_with_more_ships_than_berths_shows_one_per_berth(board: Board) -> None:
    """A ship bumped back into a port whose berths are all taken stands beside another: the
    camera sees one ship per berth there, and the board still matches the game; a ship
    missing from a port with a free berth is still missing."""
    from referee_helpers import Camera

    game = Game.new(4, seed=9, board=board)
    port = "BANANAS"
    berths = len(board.ports[port].berths)
    on_board = [s for s in game.ships() if s.location is not None and s.location != port]
    source = on_board[0].location
    assert source is not None and source in board.ports
    for ship in on_board[: berths + 1 - len(game.ships_at(port))]:
        game.set_ship(ship.id, port)
    assert len(game.ships_at(port)) == berths + 1
    camera = Camera(board)
    seen = camera.game(game)
    assert not difference(game, seen)
    # the ship bumped back not yet in the port, still beside the ship that bumped it
    places = {p: list(c) for p, c in contents(game).items()}
    bumped = places[port].pop()
    landing = next(
        s
        for s in sorted(board.spaces)
        if s not in board.ports and s not in places and s not in game.blocked
    )
    places[landing] = [bumped]
    seen = camera.game(game, places)
    diff = difference(game, seen)
    assert diff.missing == ((bumped, port),) and diff.extra == ((bumped, landing),)
    # a ship gone from the port it left, which now has a free berth: missing
    places = {p: list(c) for p, c in contents(game).items()}
    gone = places[source].pop()
    seen = camera.game(game, places)
    assert difference(game, seen).missing == ((gone, source),)


def test_a_move_of_the_right_count_against_another_rule_is_explained_in_the_rules_words(
    board: Board,
) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    assert "S34" in game.blocked  # under the cloud at the start
    under = difference(game, observation(board, moved(placement(game), "blue", "OIL", "S34")))
    assert explain(game, under, frozenset({4})) == (
        "blue: OIL to S34: S34 is under the cloud; no walk enters or crosses it (ruling 6): "
        "put the ship back on OIL"
    )
    # the die unknown: the count a die can show, and the rule that forbids it
    full = difference(game, observation(board, moved(placement(game), "blue", "OIL", "LUMBER")))
    assert explain(game, full) == (
        "blue ship OIL -> LUMBER: LUMBER is full: 2 ships for 2 players (ruling 4): put it back"
    )
    # a wrong count is still named as such
    assert explain(game, under, frozenset({3})).startswith("blue: OIL to S34 is 4 spaces; the die")
