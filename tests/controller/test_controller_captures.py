"""Captures from places the cloud covers: the camera's guess is provisional, checked when
the cloud has left the place, and corrected from the cloud phase if the board contradicts
it; a game those captures would end ends only once they are checked."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from table_helpers import set_out

from bermuda_hw.controller.consequences import Provisional, provisional_moves
from bermuda_hw.controller.corrections import CaptureDoubt, CorrectedCaptures
from bermuda_hw.controller.provisional_checks import correct_captures
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import blocked_spaces, plan_spin, swept_ships
from bermuda_hw.rules.events import Spun
from bermuda_hw.rules.game import Game, Phase, ShipStatus
from bermuda_hw.rules.record import record, replay, to_dict

MakeTable = Callable[..., Any]


def _last_ship_under_the_exit(table: Any) -> tuple[str, str]:
    """The cloud phase of round 1, with the first player's last ship on a space that the
    seeded spin sweeps on its way off the board and covers at the outside dot."""
    c = table.controller
    game: Game = c.game
    board: Board = table.board
    color = game.order[0]
    preview = game.copy()
    preview.set_turn(color, Phase.CLOUD)
    spin = next(e.spin for e in preview.cloud_phase(None, capture=()) if isinstance(e, Spun))
    path = plan_spin(board.grid, game.pose, spin, board.cloud)
    assert path.leaves_board, f"seed {game.seed}: {spin} stays on the board"
    spaces = {s: p.position for s, p in board.spaces.items() if s not in board.ports}
    start = blocked_spaces(board, game.pose)
    place = sorted(
        set(swept_ships(board, path, spaces, -3.0)) & blocked_spaces(board, path.end) - start
    )[0]
    ship = f"{color}-1"
    for s in game.ships(color):
        game.set_ship(s.id, None)
    game.set_ship(ship, place)
    game.set_turn(color, Phase.CLOUD)
    assert c._commit()
    set_out(table)
    return ship, place


def test_a_capture_the_board_contradicts_is_corrected_before_the_game_ends(
    make_table: MakeTable,
) -> None:
    table = make_table(with_players=False, seed=3)
    c = table.controller
    ship, place = _last_ship_under_the_exit(table)
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=80)
    table.press()
    # the spin takes the ship (the camera saw it on the magnets' track, then lost it under
    # the cloud at the outside dot): its colour has lost every ship, but the game does not
    # end before the captures are checked
    table.run_until(lambda: table.mode() is Mode.SETUP and c.game.is_over(), limit=600)
    assert c.game.ship(ship).status is ShipStatus.OUT
    assert c.status.outcome is None
    assert c.status.provisional == ("the captures of round 1",)
    cloud = next(e for e in reversed(c.game.journal) if "cloud" in e)
    assert cloud["captured"] == [ship] and cloud["provisional"] == [place]
    # the magnets did not hold it: it is on its space, in view once the cloud is back
    table.world.remove(ship)
    table.world.place_ship(ship, *table.board.spaces[place].position)
    table.run_until(lambda: not c.game.is_over() and table.mode() is Mode.READY, limit=200)
    assert c.game.ship(ship).location == place
    assert c.status.outcome is None and c.status.provisional == ()
    assert any(f"the magnets left {ship} on {place}" in line for line in table.log)
    cloud = next(e for e in reversed(c.game.journal) if "cloud" in e)
    assert cloud["captured"] == []
    stored = table.journal.load(table.board)
    assert stored is not None and to_dict(stored[1]) == to_dict(c.game)
    assert table.journal.stored(c.game_id).finished_utc is None


def test_captures_the_board_confirms_end_the_game(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=3)
    c = table.controller
    ship, place = _last_ship_under_the_exit(table)
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=80)
    table.press()
    table.run_until(lambda: table.mode() is Mode.OVER, limit=800)
    assert c.game.ship(ship).status is ShipStatus.OUT and c.game.ships_at(place) == []
    assert any("confirmed: the captures of round 1" in line for line in table.log)
    assert c.status.outcome is not None and c.status.provisional == ()


def test_provisional_captures_are_checked_again_after_a_restart() -> None:
    game = Game.new(2, seed=5)
    rounds: list[int] = []
    for _ in range(3):
        game.set_turn(game.order[0], Phase.CLOUD)
        game.cloud_phase(None, capture=())
        game.journal[-1] = {**game.journal[-1], "provisional": [f"S{10 + len(rounds)}"]}
        rounds.append(len(game.journal) - 1)
    again = replay(record(game))
    assert [e.get("provisional") for e in again.journal if "cloud" in e] == [
        ["S10"],
        ["S11"],
        ["S12"],
    ]
    items = provisional_moves(again)
    # the last two cloud phases: the one before the last is checked once the last one has
    # moved the cloud off its places
    assert [(p.count, p.places, p.captures) for p in items] == [
        (rounds[1], ("S11",), True),
        (rounds[2], ("S12",), True),
    ]


# --- a move out of sight and a misread elsewhere ------------------------------------------


def _move_out_of_sight_and_a_stray(table: Any) -> tuple[Any, str, str, str]:
    """The active player's ship moved into a place the cloud's rim hides, and another
    player's ship put down on a free space: (move, other colour, stray space, its ship)."""
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    game: Game = c.game
    observation = c.last_observation
    assert observation is not None
    hidden = observation.hidden_spaces
    found = next(
        (
            (m, d)
            for d in range(1, 7)
            for m in game.legal_moves(d)
            if m.end in hidden
            and m.end not in game.blocked
            and m.start not in hidden
            and not game.ships_at(m.end)
        ),
        None,
    )
    if found is None:
        # bring one of the active player's ships next to a place the rim hides
        target = sorted(s for s in hidden if s not in game.blocked and s not in table.board.ports)[
            0
        ]
        start = sorted(
            n
            for n in table.board.neighbours(target)
            if n not in hidden and n not in table.board.ports
        )[0]
        ship = game.ships(game.active)[0].id
        game.set_ship(ship, start)
        game.set_turn(game.active)
        assert c._commit()
        set_out(table)
        table.run_until(lambda: table.mode() is Mode.READY, limit=80)
        found = next(
            (
                (m, d)
                for d in range(1, 7)
                for m in game.legal_moves(d)
                if m.end == target and m.ship == ship
            ),
            None,
        )
    assert found is not None
    move, _die = found
    other = next(col for col in game.players if col != game.active)
    stray = next(
        s
        for s in sorted(table.board.spaces)
        if s not in table.board.ports
        and s not in hidden
        and not game.ships_at(s)
        and all(m.end != s for m in game.legal_moves(_die))
    )
    spare = next(s.id for s in game.ships(other) if s.location is not None)
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, *table.board.spaces[move.end].position)
    table.world.remove(spare)
    table.world.place_ship(spare, *table.board.spaces[stray].position)
    return move, other, stray, spare


def test_a_move_out_of_sight_stays_while_a_stray_token_is_fixed(make_table: MakeTable) -> None:
    """A move into a place the cloud's rim hides, with a stray token elsewhere: the fix
    names only the stray (the players must not undo a real move), and the move is taken,
    provisionally, once the stray is gone."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    game: Game = c.game
    move, other, stray, spare = _move_out_of_sight_and_a_stray(table)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    fix = c.status.fix
    assert fix is not None
    assert (other, stray) in fix.extra
    assert all(p[0] != game.active for p in (*fix.missing, *fix.extra)), fix
    assert f"looks like {move}" in c.status.message
    assert c.status.waiting == str(move)
    # the stray goes back where the game has it: the move is taken, out of sight
    table.world.remove(spare)
    table.world.place_ship(spare, *game.ship_positions()[spare])
    table.run_until(lambda: any(e.get("move") == str(move) for e in c.game.journal), limit=80)
    entry = next(e for e in c.game.journal if e.get("move") == str(move))
    assert entry.get("provisional") == [move.end]


def _fix_fails_three_times(table: Any, spare: str, stray: str) -> None:
    """Each attempt at the fix lifts the stray token and puts it down on the same space."""
    x_mm, y_mm = table.board.spaces[stray].position
    for _ in range(3):
        table.world.remove(spare)
        table.steps(6)
        table.world.place_ship(spare, x_mm, y_mm)
        table.steps(6)


def test_accepting_the_board_keeps_the_move_out_of_sight(make_table: MakeTable) -> None:
    """A long press while a move out of sight waits for a stray to be fixed: the move is
    made as a move (its die, its consequence, provisional), and only the stray becomes a
    hand edit; the move's ship is not taken out of the game."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    move, _other, stray, spare = _move_out_of_sight_and_a_stray(table)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    assert not c.accept_board()  # not before the fix has been asked for a few times
    _fix_fails_three_times(table, spare, stray)
    assert c.status.fix_attempts >= 3
    assert f"looks like {move}" in c.status.message
    assert c.accept_board()
    entry = next(e for e in c.game.journal if e.get("move") == str(move))
    assert entry.get("provisional") == [move.end]
    assert c.game.ship(move.ship).location == move.end
    assert c.game.ship(spare).location == stray
    assert c.status.fix is None and c.status.waiting is None
    # the move is still checked once the cloud uncovers its place
    assert c.status.provisional == (str(move),)


def test_a_long_press_never_makes_a_move_computed_for_another_game(make_table: MakeTable) -> None:
    """The game changes while a move out of sight waits (here a hand edit): a long press
    then takes no move that was worked out for the game as it was."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    move, other, _stray, _spare = _move_out_of_sight_and_a_stray(table)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    assert c.status.waiting == str(move)
    game: Game = c.game
    ship = next(s for s in game.ships(other) if s.location is not None)
    game.set_ship(ship.id, ship.location)
    assert c._commit()
    c.status.fix_attempts = 3
    assert c.accept_board()
    assert not any(e.get("move") == str(move) for e in c.game.journal)
    assert c.status.waiting is None


def test_accepting_the_board_asks_for_the_ship_a_move_out_of_sight_bumps(
    make_table: MakeTable,
) -> None:
    """A long press while a move out of sight waits, where that move bumps a ship the
    players have not put back yet: the bumped ship goes back to its port in the game and
    is asked for; it is neither taken out of the game nor moved by a hand edit."""
    table = make_table(with_players=False, seed=1)
    c = table.controller
    game: Game = c.game
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    observation = c.last_observation
    assert observation is not None
    hidden = observation.hidden_spaces
    board: Board = table.board
    # an opponent's ship on a place the rim hides, the active player's ship beside it
    target = sorted(s for s in hidden if s not in game.blocked and s not in board.ports)[0]
    start = sorted(n for n in board.neighbours(target) if n not in hidden and n not in board.ports)[
        0
    ]
    other = next(col for col in game.players if col != game.active)
    ship, bumped = game.ships(game.active)[0].id, game.ships(other)[0].id
    game.set_ship(ship, start)
    game.set_ship(bumped, target)
    game.set_turn(game.active)
    assert c._commit()
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    move = next(
        m for d in range(1, 7) for m in game.legal_moves(d) if m.ship == ship and m.end == target
    )
    port = game.ship(bumped).previous_port
    # the move is made; the bumped ship is lifted off and not yet put back; a stray token
    # of the other colour stands on a free space
    stray = next(
        s
        for s in sorted(board.spaces)
        if s not in board.ports and s not in hidden and not game.ships_at(s) and s != start
    )
    spare = next(s.id for s in game.ships(other) if s.location is not None and s.id != bumped)
    table.world.remove(ship)
    table.world.place_ship(ship, *board.spaces[target].position)
    table.world.remove(bumped)
    table.world.remove(spare)
    table.world.place_ship(spare, *board.spaces[stray].position)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    _fix_fails_three_times(table, spare, stray)
    assert c.status.fix_attempts >= 3
    assert c.status.waiting == str(move)
    assert c.accept_board()
    assert any(e.get("move") == str(move) for e in c.game.journal)
    assert c.game.ship(ship).location == target
    assert c.game.ship(bumped).location == port
    assert c.game.ship(spare).location == stray
    # after the edits too, the bumped ship goes back before any other move is taken
    going_back = c._turn.bumped
    assert going_back is not None and going_back.ships == (bumped,)
    moves = sum("move" in e for e in c.game.journal)
    table.steps(6)
    assert sum("move" in e for e in c.game.journal) == moves
    fix = c.status.fix
    assert fix is not None and (other, port) in fix.missing, c.status.message
    # once it is put back, the game goes on
    table.world.place_ship(bumped, *game.ship_positions()[bumped])
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert c.game.ship(bumped).location == port


class _Over:
    """A corrected game that still ends (another colour has lost every ship)."""

    def __init__(self) -> None:
        self.journal: list[dict[str, object]] = [{}, {}]
        self.ship_ids: tuple[str, ...] = ()

    def is_over(self) -> bool:
        return True

    def outcome(self) -> str:
        return "red wins"


def test_captures_corrected_at_the_end_with_more_to_check_look_again() -> None:
    """Two cloud phases' captures still to be checked when the game ends, and the first one
    corrected: the corrected game still ends, so the other captures are checked next, on a
    fresh observation (the board did not change, and the stabiliser reports a board once),
    the table told so (whatever it was asked before). Without that look the table waited
    for ever in "checking the cloud's captures"."""
    calls: list[str] = []

    class Session:
        captures_unchecked = True
        provisional_moves = ()

        def __init__(self) -> None:
            self.provisional: list[object] = []

        def replace_item(self, item: object, by: object) -> None:
            calls.append("item replaced")

        def correct_captures(self, item: object, corrected: object) -> bool:
            return True

    table = SimpleNamespace(
        session=Session(),
        status=Status(),
        checks=SimpleNamespace(end_putback=lambda: calls.append("end put-back")),
        rig=SimpleNamespace(forget=lambda: calls.append("forget")),
        set_mode=lambda *a, **k: calls.append("set mode"),
        announce_over=lambda: calls.append("over"),
    )
    corrected = CorrectedCaptures(_Over(), frozenset(), ("the magnets left red-2 on S7",))  # type: ignore[arg-type]
    correct_captures(table, None, corrected)  # type: ignore[arg-type]
    assert calls == ["item replaced", "end put-back", "forget", "set mode"]
    assert table.status.outcome == "red wins"
    table.session.captures_unchecked = False
    calls.clear()
    correct_captures(table, None, corrected)  # type: ignore[arg-type]
    assert calls == ["item replaced", "end put-back", "over"]


def test_the_daemon_asks_before_a_pass_that_rests_on_a_capture(
    make_table: MakeTable, mocker: Any
) -> None:
    """`Controller.pass_turn` (a press, the page, a computer seat) asks the session first
    whether the pass rests on a capture under the cloud: if so, the table is asked and
    nothing is journalled; else the pass is taken as before."""
    table = make_table(with_players=False, seed=3)
    c = table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=200)
    color = c.game.active
    ship = c.game.ships(color)[0]
    assert ship.location is not None
    item = Provisional(len(c.game.journal) - 1, "the captures of round 1", (ship.location,), True)
    doubt = CaptureDoubt(item, ((ship.id, ship.location),), frozenset({ship.id}))
    rests = mocker.patch.object(c.session, "capture_behind_pass", return_value=doubt)
    count = len(c.game.journal)
    said = c.pass_turn()
    assert said.startswith("asked first:") and rests.called
    assert table.mode() is Mode.ASK and len(c.game.journal) == count
    question = c.status.question
    assert question is not None and f"did the magnets take {ship.id}" in question.text
    assert c.checks.turn.capture == (doubt, mocker.ANY, True)


def test_the_daemon_asks_at_the_games_end_before_it_is_announced(
    make_table: MakeTable, mocker: Any
) -> None:
    """A stable board once the game has ended: the daemon hands it to the end's check
    (`Answers.end_board`), which asks about a capture the outcome hangs on before the game
    is announced over; with none, it is announced."""
    table = make_table(with_players=False, seed=3)
    c = table.controller
    ship, place = _last_ship_under_the_exit(table)
    item = Provisional(len(c.game.journal), "the captures of round 1", (place,), True)
    doubt = CaptureDoubt(item, ((ship, place),), frozenset({ship}))
    hangs = mocker.patch.object(c.session, "end_doubts", return_value=[doubt])
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=80)
    table.press()
    table.run_until(lambda: c.game.is_over() and table.mode() is Mode.ASK, limit=600)
    assert hangs.called and c.status.outcome is None
    question = c.status.question
    assert question is not None and f"did the magnets take {ship} from {place}?" in question.text
