"""The simulated table behaves as a real one: stacking order, tokens side by side, no ship
back from out of the game, players doing the fix they are asked for, truth and invariant."""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import set_dock_or_bump

from bermuda_hw.controller.identify import Difference
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.planning.route import _edge, clear_route
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, swept_ships
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.record import record as game_record
from bermuda_hw.sim.players import SimulatedPlayers
from bermuda_hw.sim.render import CameraModel, render
from bermuda_hw.sim.scene import WorldScene, scene_of
from bermuda_hw.sim.session import GameReport
from bermuda_hw.sim.truth import (
    InvariantWatch,
    TrueMove,
    TruthLog,
    compare_moves,
    place_of,
    table_differences,
)
from bermuda_hw.sim.world import World
from bermuda_hw.vision.reader import BoardReader

_BOARD = load_board()


@dataclass
class View:
    """What simulated players read of a controller: its board, game and status."""

    board: Board
    game: Game | None
    status: Status = field(default_factory=Status)


class Pin:
    def __init__(self) -> None:
        self.presses = 0

    def drive_low(self) -> None:
        self.presses += 1

    def drive_high(self) -> None:
        pass


def _players(board: Board, game: Game, world: World, **options: object) -> SimulatedPlayers:
    view = View(board, game)
    players = SimulatedPlayers(
        view, world, WorldScene(world, board), Pin(), seed=3, hand_chance=0.0, **options
    )  # type: ignore[arg-type]
    return players


def _set_up(board: Board, game: Game, world: World) -> None:
    for sid, (x_mm, y_mm) in game.ship_positions().items():
        world.place_ship(sid, x_mm, y_mm)
    world.set_carriage(*board.grid.dot_mm(*board.grid.centre))


def test_the_ship_put_down_last_is_the_one_seen_on_top(board: Board) -> None:
    world = World(board)
    world.set_carriage(*board.grid.dot_mm(0, 0))
    space = board.spaces["S16"]
    world.place_ship("blue-2", space.x_mm + 1.0, space.y_mm)
    world.place_ship("yellow-1", space.x_mm, space.y_mm)
    world.place_ship("blue-2", space.x_mm + 1.0, space.y_mm + 0.5)  # moved again: on top now
    scene = scene_of(world, board)
    assert [t.color for t in scene.ships] == ["yellow", "blue"]
    reading = BoardReader(board).read(
        render(board, scene, CameraModel(width_px=640, focal_px=575.0, height_px=480))
    )
    assert [(s.color, s.space) for s in reading.ships] == [("blue", "S16")]


def test_a_token_is_put_down_beside_another_never_on_it(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    players = _players(board, game, world)
    space = board.spaces["S16"]
    world.place_ship("blue-1", space.x_mm, space.y_mm)
    for _ in range(20):
        spot = players._spot("S16", "yellow-1")
        assert math.dist(spot, space.position) >= 5.0
        assert place_of(board, spot) == "S16"
    # a full port: beside its last berth, still in the port
    port = board.ports["SUGAR"]
    for i, berth in enumerate(port.berths):
        world.place_ship(f"red-{i + 1}", *berth)
    spot = players._spot("SUGAR", "yellow-2")
    assert min(math.dist(spot, b) for b in port.berths) >= 5.0
    assert place_of(board, spot) == "SUGAR"


def test_a_ship_out_of_the_game_never_comes_back(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    players = _players(board, game, world)
    # blue-1 went out with the cloud at an outside dot: the players took it out
    world.set_carriage(*board.grid.dot_mm(0, 4))
    world.place_ship("blue-1", *world.magnets_mm()[0])
    assert "blue-1" in world.carried
    players._empty_cloud_at_edge()
    game.set_ship("blue-1", None, "SUGAR", status=ShipStatus.OUT)
    assert "blue-1" not in world.ship_positions()
    # the camera misses a blue ship: the fix must not bring blue-1 back
    world.remove("blue-2")
    assert players._spare_token("blue") == "blue-2"
    world.place_ship("blue-2", *board.ports["OIL"].berths[0])
    assert players._spare_token("blue") is None


def test_players_do_the_fix_they_are_asked_for_not_undo_their_move(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    players = _players(board, game, world, pause_frames=0)
    view = players.controller
    assert isinstance(view, View)
    start = world.ship_positions()["blue-1"]
    start_place = place_of(board, start)
    assert start_place is not None
    # the player's move: blue-1 to S23; the controller took another and asks for S24
    players._undo = {"blue-1": start}
    players._undo_seq = view.status.seq
    world.place_ship("blue-1", *board.spaces["S23"].position)
    game.set_ship("blue-1", "S24")  # the move the controller took
    view.status.mode = Mode.FIX
    view.status.fix = Difference(missing=(("blue", "S24"),), extra=(("blue", "S23"),))
    players.tick()
    assert place_of(board, world.ship_positions()["blue-1"]) == "S24"


def test_true_moves_are_compared_with_the_committed_consequence(
    board: Board, tmp_path: object
) -> None:
    game = Game.new(2, seed=4, board=board)
    record = game.copy()
    moves = game.legal_moves(4)
    docking = [m for m in moves if m.end in board.ports]
    truth = docking[0] if docking else moves[0]
    log = TruthLog()
    from bermuda_hw.sim.truth import true_move

    log.record(true_move(game, truth, 4))
    other = next(m for m in game.legal_moves(1) if m.end != truth.end)
    record.set_die(1)
    record.push(other)
    checks = compare_moves(game_record(record), log.moves, board)
    assert len(checks) == 1 and checks[0].wrong
    assert "ships" in checks[0].wrong
    same = game.copy()
    same.set_die(4)
    same.push(truth)
    assert not compare_moves(game_record(same), log.moves, board)[0].wrong
    assert TrueMove.from_json(log.moves[0].to_json()) == log.moves[0]


def test_a_move_named_by_a_wrong_answer_is_counted_apart(board: Board) -> None:
    """A player who presses a wrong answer names a move they did not make. Where the true
    move leaves the same board (a dock against an own ship bumped back into that port), the
    committed move is still wrong, marked as taken on that answer and counted apart from
    the referee's own wrong moves. An answer naming another move, another player's answer,
    or a true move the board tells apart (the referee could have checked it) excuses
    nothing."""
    from bermuda_hw.sim.truth import TrueAct, true_move

    game = Game.new(2, seed=4, board=board)
    x, z = set_dock_or_bump(game)
    dock, bump = Move("yellow-1", (x, "SUGAR")), Move("yellow-1", (x, z))
    other = next(m for m in game.legal_moves(2) if m.ship == "yellow-2")
    committed = game.copy()
    committed.set_die(1)
    committed.push(bump)
    act = TrueAct(1.0, 0, "yellow", "answer", "pressed 2 for 1: did you roll 1 or 2-6?")
    for truth, named, player, excused in (
        (dock, bump, "yellow", True),
        (dock, dock, "yellow", False),  # the answer named another move
        (dock, bump, "blue", False),  # another player's answer
        (other, bump, "yellow", False),  # the board tells the two apart
    ):
        log = TruthLog()
        log.record(true_move(game, truth, 1 if truth == dock else 2))
        acts = [dataclasses.replace(act, color=player, moves=(str(named),))]
        check = compare_moves(game_record(committed), log.moves, board, acts)[0]
        assert check.wrong and check.answered_wrong is excused, (truth, named, player)
        report = GameReport(2, 4, checks=[check])
        counted = (len(report.wrong), len(report.on_wrong_answer))
        assert counted == ((0, 1) if excused else (1, 0))


def test_the_table_invariant_sees_a_token_where_the_game_has_none(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    world.set_carriage(*board.grid.dot_mm(0, 0))
    assert table_differences(world, game) is None
    world.place_ship("blue-1", *board.spaces["S16"].position)
    diff = table_differences(world, game)
    assert diff is not None and ("blue", "S16") in diff.only_on_table
    # under the cloud, the camera cannot see it: not compared
    world.set_carriage(*board.spaces["S16"].position)
    assert ("blue", "S16") not in (
        table_differences(world, game) or diff
    ).only_on_table or pytest.fail("a hidden place was compared")


def test_the_table_invariant_is_not_checked_while_a_move_is_under_way(board: Board) -> None:
    """After a "not yet" the table waits in READY with a ship off its place: a move under
    way, not a settled board; once the controller settles again, it is checked."""
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    world.set_carriage(*board.grid.dot_mm(0, 0))
    world.place_ship("blue-1", *board.spaces["S16"].position)
    view = View(board, game, Status(mode=Mode.READY, seq=5, unfinished=True))
    watch = InvariantWatch(view, world)
    watch.check()
    assert watch.violations == [] and watch.checked == 0
    view.status.unfinished = False
    watch.check()
    assert len(watch.violations) == 1 and ("blue", "S16") in watch.violations[0].only_on_table


def test_the_table_invariant_leaves_out_what_the_cloud_body_hides(board: Board) -> None:
    """The cloud's body overhangs its footprint: a token just outside the footprint but
    under the body is as hidden from the camera as one under the footprint; one clear of
    the body is compared."""
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    x_mm, y_mm = board.spaces["S16"].position
    radius = board.cloud.footprint_radius_mm
    world.place_ship("blue-1", x_mm, y_mm)
    camera = CameraModel()
    for side in (1.0, -1.0):
        world.set_carriage(x_mm + side * radius * 1.04, y_mm)
        diff = table_differences(world, game, camera=camera)
        assert diff is None or ("blue", "S16") not in diff.only_on_table
        world.set_carriage(x_mm + side * radius * 1.6, y_mm)
        diff = table_differences(world, game, camera=camera)
        assert diff is not None and ("blue", "S16") in diff.only_on_table

    # the raised body's image is shifted away from the camera: a token just beyond the
    # body, on the far side from the camera, is hidden from it
    far = max(
        board.spaces.values(),
        key=lambda sp: (
            math.dist(sp.position, (camera.x_mm, camera.y_mm)) if sp.id not in board.ports else 0.0
        ),
    )
    px, py = far.position
    away = math.dist(far.position, (camera.x_mm, camera.y_mm))
    ux, uy = (px - camera.x_mm) / away, (py - camera.y_mm) / away
    reach = radius * 1.08 + 2.0
    world.place_ship("blue-1", px, py)
    world.set_carriage(px - ux * reach, py - uy * reach)
    bare = table_differences(world, game)
    assert bare is not None and ("blue", far.id) in bare.only_on_table
    seen = table_differences(world, game, camera=camera)
    assert seen is None or ("blue", far.id) not in seen.only_on_table


def test_the_cloud_returns_to_the_centre_clear_of_the_ships(make_table: Any) -> None:
    """The rules set the cloud back on the centre without a sweep: the rig's drag keeps
    its magnets clear of the ships (here a straight drag would pick up the one on S32)."""
    table = make_table(players=2, seed=1, with_players=False)
    board, world, mover = table.board, table.world, table.mover
    game = table.controller.game
    mover.goto_dot(0, 4)
    mover.turn_to(2)
    space = board.spaces["S32"]
    game.set_ship("blue-1", "S32", "SUGAR")
    world.place_ship("blue-1", *space.position)
    assert not world.carried
    table.controller.rig.place_cloud(game)
    assert mover.pose() == game.pose
    assert not world.carried
    assert place_of(board, world.ship_positions()["blue-1"]) == "S32"


@settings(max_examples=15, deadline=None)
@given(
    spaces=st.lists(st.sampled_from(sorted(_BOARD.spaces)), min_size=0, max_size=12, unique=True),
    col=st.sampled_from([0, 8]),
    row=st.integers(0, 8),
    letter=st.integers(0, 7),
    servo=st.booleans(),
)
def test_a_route_ends_at_its_goal_and_a_clear_one_sweeps_nothing(
    spaces: list[str], col: int, row: int, letter: int, servo: bool
) -> None:
    board = _BOARD
    ships = {
        f"s{i}": board.spaces[s].position for i, s in enumerate(spaces) if s not in board.ports
    }
    start, goal = CloudPose(col, row, letter), CloudPose(4, 4, 0)
    route = clear_route(board, start, goal, ships, clockwise_only=not servo)
    assert route.poses[0] == start and route.poses[-1] == goal
    passed: set[str] = set()
    for a, b in itertools.pairwise(route.poses):
        if a.letter != b.letter:  # an eighth turn on the spot: a servo never crosses H-A
            assert (a.col, a.row) == (b.col, b.row)
            if servo:
                assert abs(b.letter - a.letter) == 1
                a, b = min(a, b, key=lambda p: p.letter), max(a, b, key=lambda p: p.letter)
            else:
                assert b.letter == (a.letter + 1) % 8
        passed |= swept_ships(board, _edge(board, a, b), ships)
    if route.clear:
        assert not passed
    else:
        assert passed <= set(route.swept)


def test_the_route_modules_examples_run() -> None:
    import doctest

    import bermuda_hw.planning.route as route

    result = doctest.testmod(route)
    assert result.attempted > 0 and result.failed == 0


def test_asked_for_a_missing_ship_the_players_bring_back_the_one_they_moved(board: Board) -> None:
    """4 players, seed 3, round 4: green moved OIL -> S35 (in the cloud's rim, not seen);
    asked for "a green ship missing at OIL", the player puts that token back, not one the
    cloud's magnets picked up on their way back to the centre."""
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    _set_up(board, game, world)
    players = _players(board, game, world, pause_frames=0)
    view = players.controller
    assert isinstance(view, View)
    mover = next(s for s in game.ships("blue") if s.location == "OIL")
    spare = next(s.id for s in game.ships("blue") if s.id != mover.id)
    world.place_ship(mover.id, *board.spaces["S35"].position)
    world.place_ship(spare, *world.magnets_mm()[0])  # in the cloud, still carried
    assert spare in world.carried
    view.status.mode = Mode.FIX
    view.status.fix = Difference(missing=(("blue", "OIL"),))
    players.tick()
    assert place_of(board, world.ship_positions()[mover.id]) == "OIL"
    assert spare in world.carried


def _forced_pass(board: Board) -> tuple[Game, int]:
    """Blue's only ship on S11 with the cloud over S10 and a full OIL port: no move."""
    game = Game.new(2, seed=1, board=board, first_player="blue")
    for ship in game.ships():
        game.set_ship(ship.id, None)
    game.set_ship("yellow-1", "OIL")
    game.set_ship("yellow-2", "OIL")
    game.set_ship("blue-1", "S11")
    game.set_cloud(CloudPose(6, 1, 0))
    game.set_turn("blue")
    assert game.legal_moves(3) == [Move.pass_turn("blue")]
    return game, 3


def test_a_pass_the_rolled_die_forces_needs_no_true_move(board: Board) -> None:
    """With the virtual die, a roll that leaves no move passes at the press that rolled it,
    before any player could make a move: that pass is right; a pass the die does not force,
    with no move made from the position, is not."""
    game, _die = _forced_pass(board)
    forced = game.copy()
    forced.roll_die()  # every value leaves blue no move
    forced.push(Move.pass_turn(game.active))
    assert compare_moves(game_record(forced), [], board)[-1].wrong == ""
    # the same pass with the die rolled at the table: a player passed, and none recorded it
    told = game.copy()
    told.set_die(3)
    told.push(Move.pass_turn(game.active))
    assert (
        compare_moves(game_record(told), [], board)[-1].wrong == "no true move from this position"
    )
    unforced = Game.new(2, seed=1, board=board)
    unforced.set_die(3)
    unforced.push(unforced.legal_moves(3)[0])
    assert (
        compare_moves(game_record(unforced), [], board)[-1].wrong
        == "no true move from this position"
    )
