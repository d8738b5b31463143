"""The simulated players look before they act on a fix: a fix the table already shows as
the game has it (the camera misread a place) leaves the tokens alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from bermuda_hw.controller.status import Status
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.sim.players import NUDGE_AFTER, SimulatedPlayers
from bermuda_hw.sim.world import World


@dataclass
class _View:
    board: Board
    game: Game
    status: Status = field(default_factory=Status)


def _table(board: Board) -> tuple[Game, World, SimulatedPlayers]:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    for sid, (x, y) in game.ship_positions().items():
        world.place_ship(sid, x, y)
    players = SimulatedPlayers(_View(board, game), world, cast(Any, None), None)
    return game, world, players


def test_a_misread_fix_moves_no_token(board: Board) -> None:
    game, world, players = _table(board)
    yellow, blue = game.players
    port = game.ship(f"{yellow}-1").location
    assert port is not None and game.ship(f"{blue}-1").location == port
    before = dict(world.ship_positions())
    # the camera read the yellow token in the port as a blue one
    players._fix(((yellow, port),), ((blue, port),))
    assert dict(world.ship_positions()) == before
    assert players.actions == []


def test_a_ship_asked_for_again_where_it_stands_is_straightened(board: Board) -> None:
    game, world, players = _table(board)
    yellow = game.players[0]
    place = game.ship(f"{yellow}-1").location
    assert place is not None
    before = dict(world.ship_positions())
    players._fix(((yellow, place),), ())  # asked once: the camera may yet see it
    assert dict(world.ship_positions()) == before and players.actions == []
    players.controller.status.fix_attempts = NUDGE_AFTER  # asked again and again
    players._fix(((yellow, place),), ())
    assert players.actions == [f"straighten: {yellow}-1 on {place} (the table misses it)"]
    assert world.ship_positions().keys() == before.keys()
    # set down again on its own place, turned anew; no other token moved
    assert world.heading_of(f"{yellow}-1") is not None
    assert {k: v for k, v in world.ship_positions().items() if k != f"{yellow}-1"} == {
        k: v for k, v in before.items() if k != f"{yellow}-1"
    }


def test_a_true_fix_is_made(board: Board) -> None:
    game, world, players = _table(board)
    yellow, blue = game.players
    port = game.ship(f"{yellow}-1").location
    assert port is not None
    world.remove(f"{yellow}-1")
    stray = next(s for s in sorted(board.spaces) if s not in board.ports)
    world.place_ship(f"{blue}-2", *board.spaces[stray].position)
    players._fix(((yellow, port), (blue, game.ship(f"{blue}-2").location)), ((blue, stray),))
    assert f"{yellow}-1" in world.ship_positions()
    assert any(a.startswith(f"fix: {blue}-2 to") for a in players.actions), players.actions


def _moved_out_of_port(game: Game, world: World, players: SimulatedPlayers) -> tuple[str, str]:
    """The active player moved a ship out of its port on the table; the controller has not
    taken the move yet. (colour, port)."""
    color = game.active
    move = next(m for m in game.legal_moves(2) if m.ship.startswith(color))
    port = game.ship(move.ship).location
    assert port is not None and port in game.board.ports
    world.place_ship(move.ship, *game.board.spaces[move.end].position)
    players._made = (len(game.journal), move, 2)
    players.controller.status.waiting = str(move)
    return color, port


def test_a_fix_beside_a_waiting_move_counts_the_move(board: Board) -> None:
    """The controller waits on the player's move (it went out of sight) and names a misread
    in the port the move left: the players count their move and touch no token (they must
    not bring the moved ship back)."""
    game, world, players = _table(board)
    color, port = _moved_out_of_port(game, world, players)
    other = next(c for c in game.players if c != color)
    before = dict(world.ship_positions())
    # a token of the mover's colour left in the port was read as the other colour
    players._fix(((color, port),), ((other, port),))
    assert dict(world.ship_positions()) == before
    assert players.actions == []


def test_a_fix_that_names_the_move_itself_is_made(board: Board) -> None:
    """When the controller did not take the move at all (no move waits), a fix that names
    the moved ship is done as asked: the token goes back to its port."""
    game, world, players = _table(board)
    color, port = _moved_out_of_port(game, world, players)
    players.controller.status.waiting = None
    made = players._made
    assert made is not None
    move = made[1]
    players._fix(((color, port),), ((color, move.end),))
    assert world.ship_positions()[move.ship] != board.spaces[move.end].position
    assert any(a.startswith(f"fix: {move.ship} to {port}") for a in players.actions), (
        players.actions
    )


def test_the_controller_may_name_another_ship_with_the_same_consequence(board: Board) -> None:
    """The controller names the move it waits on by one ship of the group that does the
    same; the players count theirs all the same."""
    game, world, players = _table(board)
    first = game.legal_moves(2)[0]
    # a second ship of the mover's colour in the same port
    second = next(s for s in game.ships(game.active) if s.id != first.ship)
    game.set_ship(second.id, first.start)
    world.place_ship(second.id, *game.ship_positions()[second.id])
    color, port = _moved_out_of_port(game, world, players)
    made = players._made
    assert made is not None and made[1] == first
    twin = next(
        (
            m
            for m in game.legal_moves(2)
            if m.ship != made[1].ship
            and m.ship.startswith(color)
            and m.start == made[1].start
            and m.end == made[1].end
        ),
        None,
    )
    assert twin is not None, "the start layout has two ships of a colour in a port"
    players.controller.status.waiting = str(twin)
    other = next(c for c in game.players if c != color)
    before = dict(world.ship_positions())
    players._fix(((color, port),), ((other, port),))
    assert dict(world.ship_positions()) == before


def test_told_to_leave_a_ship_landed_on_the_players_leave_it(board: Board) -> None:
    """With the virtual die, told with the roll to leave a ship they land on at a space, the
    players leave it beside theirs (to be put back when asked); told nothing, these players
    (who never wait on their own) put it back at once."""
    from synthetic import set_dock_or_bump

    from bermuda_hw.rules.game import GameOptions
    from bermuda_hw.sim.truth import place_of

    left: dict[bool, int] = {True: 0, False: 0}
    for seed in range(40):
        game = Game.new(
            2, seed=1, board=board, first_player="yellow", options=GameOptions(die="virtual")
        )
        _, z = set_dock_or_bump(game)
        world = World(board)
        for sid, (px, py) in game.ship_positions().items():
            world.place_ship(sid, px, py)
        told = seed % 2 == 0
        view = _View(board, game, Status(die=1, hold=(z,) if told else ()))
        players = SimulatedPlayers(
            view, world, cast(Any, None), None, seed=seed, hand_chance=0.0, late_putback_chance=0.0
        )
        players._turn()
        made = players._made
        assert made is not None
        if made[1].end != z:
            continue  # the dock: nothing landed on
        stays = place_of(board, world.ship_positions()["yellow-2"]) == z
        assert stays == told, (seed, players.actions)
        left[told] += 1
    assert left[True] and left[False]


def test_a_ship_the_waiting_move_bumped_is_put_in_its_port_when_asked(board: Board) -> None:
    """The controller waits on the player's move (its landing space is out of sight) and asks
    for the ship that move bumped in its port: the players take it from the landing space,
    where it still stands beside their mover (the game before the move has it there)."""
    game, world, players = _table(board)
    color = game.active
    other = next(c for c in game.players if c != color)
    move = next(
        m
        for m in game.legal_moves(2)
        if m.ship.startswith(color) and m.end is not None and m.end not in board.ports
    )
    assert move.end is not None
    bumped = f"{other}-1"
    game.set_ship(bumped, move.end)
    game.set_turn(color)
    world.place_ship(bumped, *board.spaces[move.end].position)
    after = game.copy()
    after.set_die(2)
    after.push(move)
    port = after.ship(bumped).location
    assert port is not None and port in board.ports
    world.place_ship(move.ship, *board.spaces[move.end].position)
    players._made = (len(game.journal), move, 2)
    players.controller.status.waiting = str(move)
    players._fix(((other, port),), ())
    assert f"fix: {bumped} to {port}" in players.actions, players.actions
    assert players._place_of(world.ship_positions()[bumped]) == port
