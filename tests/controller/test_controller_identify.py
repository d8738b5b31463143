"""Differences, their words, passes and capture decisions on readings of one ship per place."""

from __future__ import annotations

from collections.abc import Iterable

from bermuda_hw.controller.daemon import captured_ships, taken_by_track
from bermuda_hw.controller.identify import difference, explain, pass_die
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, Spin
from bermuda_hw.rules.events import Swept
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, ShipToken, render
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.types import BoardObservation, ShipReading


def observation(board: Board, places: Iterable[tuple[str, str | None]],
                hidden: frozenset[str] = frozenset()) -> BoardObservation:
    ships = []
    for color, space in places:
        x_mm, y_mm = board.spaces[space].position if space else (250.0, 250.0)
        ships.append(ShipReading(color, space, x_mm, y_mm))
    return BoardObservation(tuple(ships), None, 0.0, 3, hidden)


def placement(game: Game) -> list[tuple[str, str | None]]:
    return [(s.color, s.location) for s in game.ships() if s.location is not None]


def moved(places: list[tuple[str, str | None]], color: str, start: str,
          end: str | None) -> list[tuple[str, str | None]]:
    out = list(places)
    out.remove((color, start))
    out.append((color, end))
    return out


def test_unchanged_board_has_no_difference(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    assert not difference(game, observation(board, placement(game)))


def test_illegal_move_is_explained(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="blue")
    reachable = {m.end for d in range(1, 7) for m in game.legal_moves(d)
                 if m.start == "SUGAR"}
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
        board: Board) -> None:
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
            x_mm, y_mm = (s.x_mm, s.y_mm) if ship.location not in board.ports else \
                board.ports[ship.location].berths[0]
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
    after = observation(board, [p for p in placement(game) if p[1] != "LUMBER"],
                        hidden=frozenset({"LUMBER"}))
    assert captured_ships(game, swept, after, taken, seen) & {"blue-4", "yellow-4"} == {
        "blue-4"}
    # without the camera's word from before the spin, every swept ship there is taken
    assert {"blue-4", "yellow-4"} <= captured_ships(game, swept, after)
