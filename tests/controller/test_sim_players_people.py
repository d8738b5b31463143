"""Simulated players who behave like people: each behaviour of a style happens at its rate
with the player's seeded random source, is reproduced from the seed, and shows where the
controller can see it (the world's tokens, the rendered frames, the button presses); the
truth log says what the players truly did."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import pytest

from bermuda_hw.config import Config, load_config
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CaptureDoubt
from bermuda_hw.controller.identify import Difference
from bermuda_hw.controller.questions import capture_question, landing_question
from bermuda_hw.controller.status import Mode, Question, Status
from bermuda_hw.errors import ConfigError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.record import record
from bermuda_hw.sim.players import (
    AIM_SD_MM,
    OBEDIENT,
    PEOPLE,
    PlayerStyle,
    SimulatedPlayers,
    styles_for,
)
from bermuda_hw.sim.render import CameraModel, render
from bermuda_hw.sim.scene import WorldScene
from bermuda_hw.sim.truth import TrueMove, compare_moves, place_of
from bermuda_hw.sim.world import World
from bermuda_hw.vision.reader import BoardReader

QUIET = PlayerStyle(name="quiet", hand_chance=0.0, late_putback_chance=0.0)


@dataclass
class _View:
    board: Board
    game: Game
    status: Status = field(default_factory=lambda: Status(mode=Mode.READY))


class _Button:
    """The spin button's pin: counts the presses a player makes."""

    def __init__(self) -> None:
        self.presses = 0

    def drive_low(self) -> None:
        self.presses += 1

    def drive_high(self) -> None:
        pass


class _Clock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


@dataclass
class _Table:
    game: Game
    world: World
    scene: WorldScene
    players: SimulatedPlayers
    button: _Button
    clock: _Clock


def _table(board: Board, style: PlayerStyle, seed: int = 1, game: Game | None = None) -> _Table:
    game = game if game is not None else Game.new(2, seed=1, board=board)
    world = World(board)
    for sid, (x, y) in game.ship_positions().items():
        world.place_ship(sid, x, y)
    scene = WorldScene(world, board)
    button, clock = _Button(), _Clock()
    players = SimulatedPlayers(
        _View(board, game), world, scene, cast(Any, button), seed=seed, style=style, clock=clock
    )
    return _Table(game, world, scene, players, button, clock)


def _moved(t: _Table) -> TrueMove | None:
    """The move the active player truly made in this table's one turn (None: a pass)."""
    moves = [m for m in t.players.truth.moves if m.ship is not None]
    return moves[-1] if moves else None


# --- styles ---------------------------------------------------------------------------


def test_a_style_with_a_chance_out_of_range_is_named() -> None:
    with pytest.raises(ConfigError, match=r"style shaky\.hold_chance: must be a chance"):
        PlayerStyle(name="shaky", hold_chance=1.5)
    with pytest.raises(ConfigError, match=r"style shaky\.hold_s: must be a range"):
        PlayerStyle(name="shaky", hold_s=(30.0, 0.0))


def test_styles_are_given_per_player_and_mixed() -> None:
    colors = ("yellow", "blue", "green", "red")
    assert set(styles_for("people", colors).values()) == {PEOPLE}
    mixed = styles_for("mixed", colors)
    assert [mixed[c] for c in colors] == [PEOPLE, OBEDIENT, PEOPLE, OBEDIENT]
    assert styles_for("obedient+people", colors)["blue"] == PEOPLE
    with pytest.raises(ConfigError, match="no player style 'careless'"):
        styles_for("careless", colors)


def test_obedient_players_do_nothing_of_the_people(board: Board) -> None:
    for seed in range(30):
        t = _table(board, replace(OBEDIENT, hand_chance=0.0), seed)
        t.players._turn()
        moved = _moved(t)
        assert t.players.truth.acts == []
        if moved is None:
            continue
        assert moved.legal
        assert t.players._holding is None
        point = t.world.ship_positions()[moved.ship or ""]
        assert place_of(board, point) == moved.end
        if moved.end in board.spaces and moved.end not in board.ports:
            # set squarely on its space, as a hand sets a token it aims there (AIM_SD_MM)
            assert math.dist(point, board.spaces[moved.end].position) < 6 * AIM_SD_MM


# --- each behaviour at its rate ---------------------------------------------------------


def _held(t: _Table) -> bool:
    return any(a.kind == "hold" for a in t.players.truth.acts)


def _off_centre(t: _Table) -> bool:
    return any(a.kind == "off centre" for a in t.players.truth.acts)


def _lingered(t: _Table) -> bool:
    return t.scene.hand is not None and any(a.kind == "linger" for a in t.players.truth.acts)


def _second_hand(t: _Table) -> bool:
    return t.scene.other_hand is not None


def _miscounted(t: _Table) -> bool:
    moved = _moved(t)
    return moved is not None and not moved.legal and moved.illegal.startswith("miscount")


BEHAVIOURS: dict[str, Callable[[_Table], bool]] = {
    "hold_chance": _held,
    "off_centre_chance": _off_centre,
    "linger_chance": _lingered,
    "second_hand_chance": _second_hand,
    "miscount_chance": _miscounted,
}


@pytest.mark.parametrize("rate", sorted(BEHAVIOURS))
def test_each_behaviour_happens_at_its_rate(board: Board, rate: str) -> None:
    n, p = 160, 0.3
    style = replace(QUIET, **{rate: p})  # type: ignore[arg-type]
    seen = 0
    for seed in range(n):
        t = _table(board, style, seed)
        t.players._turn()
        for other, happened in BEHAVIOURS.items():
            if other != rate:
                assert not happened(t), (rate, other, seed)
        seen += BEHAVIOURS[rate](t)
    sd = math.sqrt(n * p * (1 - p))
    assert abs(seen - n * p) <= 4 * sd, (rate, seen)


def test_a_style_is_reproduced_from_the_seed(board: Board) -> None:
    def play(seed: int) -> list[str]:
        t = _table(board, PEOPLE, seed)
        for _ in range(6):
            t.players._turn()
            t.clock.now_s += 40.0
            t.players.tick()
        return t.players.actions

    assert play(3) == play(3)
    assert play(3) != play(4)


# --- what the controller can see -------------------------------------------------------


def _colours_read(board: Board, t: _Table) -> Counter[str]:
    camera = CameraModel(width_px=640, height_px=480, focal_px=575.0)
    reading = BoardReader(board).read(render(board, t.scene(), camera))
    return Counter(s.color for s in reading.ships if not s.hidden)


def test_a_held_ship_is_off_the_table_for_its_hold_time(board: Board) -> None:
    t = _table(board, replace(QUIET, hold_chance=1.0, hold_s=(12.0, 12.0)))
    color = t.game.active
    before = _colours_read(board, t)
    t.players._turn()
    held = t.players._holding
    assert held is not None
    assert held.token not in t.world.ship_positions()
    assert _colours_read(board, t)[color] == before[color] - 1
    t.clock.now_s = 11.9
    t.players.tick()
    assert held.token not in t.world.ship_positions() and t.players.truth.moves == []
    t.clock.now_s = 12.0
    t.players.tick()
    assert t.players._holding is None
    assert place_of(board, t.world.ship_positions()[held.token]) == held.move.end
    assert _colours_read(board, t)[color] == before[color]
    # the truth: the move made from the position the ship was lifted at
    assert t.players.truth.moves[-1].seq == held.made_from
    assert t.players.truth.moves[-1].move == str(held.move)


def test_an_off_centre_token_lands_2_to_6_mm_off_at_any_heading(board: Board) -> None:
    distances, headings = [], []
    for seed in range(40):
        t = _table(board, replace(QUIET, off_centre_chance=1.0), seed)
        t.players._turn()
        moved = _moved(t)
        if moved is None or moved.end in board.ports:
            continue
        point = t.world.ship_positions()[moved.ship or ""]
        distances.append(math.dist(point, board.spaces[moved.end or ""].position))
        headings.append(t.world.heading_of(moved.ship or ""))
        assert place_of(board, point) == moved.end
    assert len(distances) >= 10
    assert all(2.0 - 1e-9 <= d <= 6.0 + 1e-9 for d in distances)
    assert max(distances) - min(distances) > 2.0
    assert all(h is not None for h in headings)
    assert (
        max(h for h in headings if h is not None) - min(h for h in headings if h is not None)
        > 180.0
    )


def test_a_miscount_moves_the_wrong_number_of_spaces_and_the_truth_says_so(board: Board) -> None:
    t = _table(board, replace(QUIET, miscount_chance=1.0), 2)
    t.players._turn()
    moved = _moved(t)
    assert moved is not None and not moved.legal
    from bermuda_hw.rules.moves import Move

    move = Move.parse(moved.move)
    assert move.steps in (moved.die - 1, moved.die + 1)
    assert move not in t.game.legal_moves(moved.die)
    assert moved.illegal.startswith("miscount: ") and str(moved.die) in moved.illegal
    assert place_of(board, t.world.ship_positions()[move.ship]) == move.end
    # the player moves again from the same position with the same roll, legally
    t.players.world.place_ship(move.ship, *t.game.ship_positions()[move.ship])
    t.players._turn()
    again = t.players.truth.moves[-1]
    assert again.legal and again.die == moved.die and again.seq == moved.seq


def test_an_illegal_move_into_a_full_port_is_offered(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    color = game.active
    other = next(c for c in game.players if c != color)
    port = next(
        p
        for p in board.ports
        if p != game.ship(f"{color}-1").location
        and p != game.ship(f"{other}-1").location
        and board.ports[p].product != "home"
    )
    game.set_ship(f"{other}-1", port)
    game.set_ship(f"{other}-2", port)
    near = next(s for s in sorted(board.adjacency[port]) if s not in board.ports)
    game.set_ship(f"{color}-1", near)
    t = _table(board, QUIET, game=game)
    walks = t.players._illegal_walks(game, 1, "full port")
    into = [m for m in walks if m.end == port]
    assert into and all(m not in game.legal_moves(1) for m in into)


def test_an_illegal_move_under_the_cloud_ends_on_a_blocked_space(board: Board) -> None:
    found = 0
    for seed in range(40):
        t = _table(board, replace(QUIET, under_cloud_chance=1.0), seed)
        t.players._turn()
        moved = _moved(t)
        if moved is not None and not moved.legal:
            assert moved.illegal.startswith("under the cloud")
            assert moved.end in t.game.blocked
            found += 1
    assert found


# --- the truth and the bench's counts ---------------------------------------------------


def test_an_illegal_move_journalled_as_legal_is_counted_apart(board: Board) -> None:
    # the virtual die: the referee knew the roll, so a miscount taken as legal is its error
    game = Game.new(2, seed=1, board=board, options=GameOptions(die="virtual"))
    die = game.roll_die()
    t = _table(board, replace(QUIET, miscount_chance=1.0), 2, game=game)
    t.players.controller.status.die = die
    t.players._turn()
    moved = _moved(t)
    assert moved is not None and not moved.legal and moved.die == die
    game.push(game.legal_moves(die)[0])  # the referee took it as a legal move
    check = compare_moves(record(game), t.players.truth.moves, board)[0]
    assert check.illegal_as_legal and check.wrong.startswith("an illegal move")
    assert not check.illegal_for_an_unseen_die
    # the table's die, never seen: the miscounted walk is the legal move of another roll
    t = _table(board, replace(QUIET, miscount_chance=1.0), 2)
    t.players._turn()
    moved = _moved(t)
    assert moved is not None and not moved.legal
    game = t.game
    before = game.copy()
    game.set_die(moved.die)
    game.push(game.legal_moves(moved.die)[0])
    check = compare_moves(record(game), t.players.truth.moves, board)[0]
    other_roll = any(Move.parse(moved.move) in before.legal_moves(d) for d in range(1, 7))
    assert other_roll  # a walk one space short or long is another roll's move here
    assert check.illegal_for_an_unseen_die and not check.illegal_as_legal
    # corrected: the player made a legal move after the illegal one; the journal has it
    t2 = _table(board, replace(QUIET, miscount_chance=1.0), 2)
    t2.players._turn()
    first = _moved(t2)
    assert first is not None
    t2.world.place_ship(first.ship or "", *t2.game.ship_positions()[first.ship or ""])
    t2.players._turn()
    legal = t2.players.truth.moves[-1]
    assert legal.legal
    t2.game.set_die(legal.die)
    t2.game.push(legal.move)
    check = compare_moves(record(t2.game), t2.players.truth.moves, board)[0]
    assert not check.illegal_as_legal and check.wrong == ""


# --- instructions and questions -------------------------------------------------------


@pytest.mark.parametrize("patience_s", [0.0, 10.0])
def test_a_ship_set_down_after_a_hold_waits_for_the_table_to_look(
    board: Board, patience_s: float
) -> None:
    """The table said "finish your move" while the ship was in hand. A person who then
    sets it down waits for the table to read the board before following what it still
    shows; a player with no patience follows the stale request and takes the move back."""
    t = _table(board, replace(QUIET, hold_chance=1.0, hold_s=(5.0, 5.0), patience_s=patience_s))
    t.players._turn()
    held = t.players._holding
    assert held is not None
    status = t.players.controller.status
    status.mode = Mode.FIX
    status.message = "finish your move"
    status.fix = Difference(missing=((held.move.color, held.move.start),))
    for k in range(1, 60):  # the table has not read a new board yet
        t.clock.now_s = 0.1 * k
        t.players.tick()
    where = place_of(board, t.world.ship_positions()[held.token])
    assert where == (held.move.start if patience_s == 0.0 else held.move.end)
    if patience_s:
        status.observations += 1  # the table read the board: what it still shows is meant
        for k in range(60, 70):
            t.clock.now_s = 0.1 * k
            t.players.tick()
        assert place_of(board, t.world.ship_positions()[held.token]) == held.move.start


def test_an_ignored_instruction_is_followed_once_its_time_is_over(board: Board) -> None:
    t = _table(board, replace(QUIET, ignore_chance=1.0, ignore_s=(20.0, 20.0)))
    t.players.controller.status.message = "put the ship back"
    assert t.players._ignored("put back")
    t.clock.now_s = 19.9
    assert t.players._ignored("put back")
    t.clock.now_s = 20.0
    assert not t.players._ignored("put back")
    assert [a.kind for a in t.players.truth.acts] == ["ignore"]


def _landed_on_own_ship(
    board: Board,
    style: PlayerStyle,
    stood: dict[str, tuple[float, float, float | None]] | None = None,
) -> tuple[_Table, Game, str]:
    """Yellow, told a 1 by the virtual die, moves onto its own ship on z (`synthetic.
    set_dock_or_bump`), with the first seed whose player lands there rather than docks;
    `stood` is given where each token stood before the move, and its heading."""
    from synthetic import set_dock_or_bump

    from bermuda_hw.rules.game import GameOptions

    for seed in range(40):
        game = Game.new(
            2, seed=1, board=board, first_player="yellow", options=GameOptions(die="virtual")
        )
        _, z = set_dock_or_bump(game)
        t = _table(board, style, seed, game=game)
        t.players.controller.status.die = 1
        if stood is not None:
            stood.clear()
            for sid, (x, y) in t.world.ship_positions().items():
                stood[sid] = (x, y, t.world.heading_of(sid))
        t.players._turn()
        made = t.players._made
        assert made is not None
        if made[1].end == z:
            return t, game, z
    pytest.fail("no seed landed on the ship")


def test_a_half_followed_put_back_holds_the_bumped_ship_before_it_goes_to_port(
    board: Board,
) -> None:
    style = replace(QUIET, late_putback_chance=1.0, follow_s=(5.0, 5.0))
    t, game, z = _landed_on_own_ship(board, style)
    assert place_of(board, t.world.ship_positions()["yellow-2"]) == z  # left for the ask
    t.players._put_back_bumped(later=True)
    assert "yellow-2" not in t.world.ship_positions()
    t.clock.now_s = 4.9
    t.players.tick()
    assert "yellow-2" not in t.world.ship_positions()
    t.clock.now_s = 5.0
    t.players.tick()
    port = game.ship("yellow-2").previous_port
    assert place_of(board, t.world.ship_positions()["yellow-2"]) == port
    assert [a.kind for a in t.players.truth.acts] == ["half-follow"]


@pytest.mark.parametrize("first", [True, False])
def test_a_bumped_ship_put_back_at_once_may_go_before_the_mover_is_set_down(
    board: Board, first: bool
) -> None:
    """A player who knows a bumped ship goes back may lift it off first and then set their
    own ship down on the space, aimed at its centre: the board a token never touched would
    leave, if the bumped ship stood there too. Otherwise the mover is set down beside it
    and it goes back from there."""
    style = replace(QUIET, putback_first_chance=1.0 if first else 0.0)
    t, game, z = _landed_on_own_ship(board, style)
    positions = t.world.ship_positions()
    assert place_of(board, positions["yellow-2"]) == game.ship("yellow-2").previous_port
    centre = board.spaces[z].position
    kinds = [a.kind for a in t.players.truth.acts]
    if first:
        # aimed at the centre: it lands within a hand's scatter of it (AIM_SD_MM)
        assert math.dist(positions["yellow-1"], centre) < 6 * AIM_SD_MM
        assert kinds == ["put back first"]
    else:
        assert math.dist(positions["yellow-1"], centre) >= 5.0 and kinds == []


def test_a_player_putting_back_an_own_ship_may_lift_the_mover_instead(board: Board) -> None:
    """The mover set down beside the player's own ship, one of the two alike tokens goes
    back to the port at once: the mover, by mistake. The ship landed on then stands where it
    stood, turned as it stood (the board a dock leaves), and the act is recorded."""
    style = replace(QUIET, swap_chance=1.0)
    stood: dict[str, tuple[float, float, float | None]] = {}
    t, game, z = _landed_on_own_ship(board, style, stood)
    assert place_of(board, (stood["yellow-2"][0], stood["yellow-2"][1])) == z
    positions = t.world.ship_positions()
    x, y, heading = stood["yellow-2"]
    assert positions["yellow-1"] == (x, y) and t.world.heading_of("yellow-1") == heading
    assert place_of(board, positions["yellow-2"]) == game.ship("yellow-2").previous_port
    assert [a.kind for a in t.players.truth.acts] == ["swap"]
    # the truth is the bump the player made, whatever the board shows
    moved = _moved(t)
    assert moved is not None and moved.end == z and moved.bumps == ("yellow-2",)


def _asked(t: _Table) -> Question:
    question = Question(
        "yellow: did you roll 2 or 3?",
        ("2", "3"),
        (frozenset({2}), frozenset({3})),
        (("yellow-1 S26-S27-S28",), ("yellow-1 S26-S27-S28-S29",)),
        "yellow",
    )
    t.players._roll = 3
    t.players.controller.status.mode = Mode.ASK
    t.players.controller.status.question = question
    return question


def test_a_late_answer_is_pressed_after_its_delay(board: Board) -> None:
    t = _table(board, replace(QUIET, late_answer_chance=1.0, late_answer_s=(5.0, 5.0)))
    _asked(t)
    t.players.tick()
    assert t.button.presses == 0
    t.clock.now_s = 5.0
    t.players._next_frame = 0
    t.players.tick()
    assert t.button.presses == 2


def test_a_question_never_answered_gets_no_press_until_it_is_asked_again(board: Board) -> None:
    t = _table(board, replace(QUIET, no_answer_chance=1.0))
    _asked(t)
    for _ in range(20):
        t.clock.now_s += 5.0
        t.players.tick()
    assert t.button.presses == 0
    assert [a.kind for a in t.players.truth.acts] == ["no answer"]
    t.players.styles = {c: QUIET for c in t.game.players}
    _asked(t)  # asked again
    t.players._next_frame = 0
    t.players.tick()
    assert t.button.presses == 2


def test_a_wrong_option_is_pressed_and_the_truth_says_so(board: Board) -> None:
    t = _table(board, replace(QUIET, wrong_answer_chance=1.0))
    _asked(t)
    t.players.tick()
    assert t.button.presses == 1
    act = t.players.truth.acts[-1]
    # the moves the option pressed names, to tell a move taken on a wrong answer
    assert act.detail.startswith("pressed 1 for 2") and act.moves == ("yellow-1 S26-S27-S28",)


@pytest.mark.parametrize("there", [True, False])
def test_before_the_spin_the_players_say_whether_a_ship_stands_on_its_landing(
    board: Board, there: bool
) -> None:
    """Asked before the spin about a move of the round (whoever made it), the players
    look: yes if a token of its colour stands on the landing, else none of these, and
    nothing of theirs is taken back (the table says what to set back)."""
    game = Game.new(2, seed=1, board=board)
    rng = random.Random(1)
    moves: list[Move] = []
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        move = rng.choice(game.legal_moves())
        game.push(move)
        moves.append(move)
    made = next(m for m in moves if not m.is_pass)
    t = _table(board, QUIET, game=game)
    if not there:
        t.world.remove(next(s for s in t.world.ship_positions() if s == made.ship))
    t.players.controller.status.mode = Mode.ASK
    t.players.controller.status.question = landing_question(Provisional(0, str(made), (made.end,)))
    t.players.tick()
    assert t.button.presses == (1 if there else 2)
    assert not any("move taken back" in a for a in t.players.actions)


@pytest.mark.parametrize("there", [True, False])
def test_asked_about_captures_under_the_cloud_the_players_count_the_tokens_there(
    board: Board, there: bool
) -> None:
    """Asked which ships the cloud took where the camera cannot see, the players look: a
    token of the ship's colour still on its place is a ship left there (whichever of the
    alike tokens it is), none is a ship taken."""
    game = Game.new(2, seed=1, board=board)
    ship = next(s for s in game.ships() if s.location is not None)
    assert ship.location is not None
    others = [s for s in game.ships(ship.color) if s.location == ship.location and s.id != ship.id]
    t = _table(board, QUIET, game=game)
    if not there:
        t.world.remove(ship.id)
    doubt = CaptureDoubt(
        Provisional(0, "the captures of round 1", (ship.location,), True),
        ((ship.id, ship.location),),
        frozenset({ship.id}),
    )
    question, _ = capture_question(doubt, ship.color)
    t.players.controller.status.mode = Mode.ASK
    t.players.controller.status.question = question
    t.players.tick()
    # 1: the cloud holds it; 2: it stands there (the others of its colour there counted)
    assert t.button.presses == (2 if there else 1), others
    assert not any("move taken back" in a for a in t.players.actions)


# --- a whole game -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim_config() -> Config:
    from bermuda_hw.sim.session import simulate_config

    return simulate_config(load_config(None))


@pytest.mark.slow
def test_a_whole_game_with_people_runs_to_its_end(
    board: Board, sim_config: Config, table_dir: Path
) -> None:
    from bermuda_hw.rules.game import GameOptions
    from bermuda_hw.sim.session import play_game

    # the first to $150,000 wins: seed 6 is a whole game of 10 rounds (20 moves, 5 holds,
    # 5 lingering hands), a third of the frames of seed 1 to the rules' $350,000
    report = play_game(
        board,
        sim_config,
        table_dir,
        players=2,
        seed=6,
        style="people",
        options=GameOptions(die="virtual", target_usd=150_000),
    )
    assert report.finished or report.stalled, report.log[-20:]
    assert report.moves >= 10
    assert report.acts.get("hold", 0) > 0 and report.acts.get("linger", 0) > 0


def test_after_a_fault_the_players_clear_the_way_named_and_press_spin(board: Board) -> None:
    """A homing refused for ships in the cloud's way: the players read the message, lift
    the ships it names off the board, press spin; a fault that stays gets another press
    only after they have read it again."""
    t = _table(board, QUIET)
    status = t.players.controller.status
    first, second = sorted(t.world.ship_positions())[:2]
    x_mm, y_mm = t.world.ship_positions()[second]
    seen = f"the {second.split('-')[0]} ship at ({x_mm:.0f}, {y_mm:.0f}) mm"
    status.mode = Mode.FAULT
    status.message = (
        f"fault, motors stopped: before homing: every way from the cloud to the "
        f"home corner passes near {first}, {seen}. Clear the way from the "
        "cloud to the home corner (north-west), or clear the board, then press "
        "spin"
    )
    t.players.tick()
    t.clock.now_s = 4.9
    t.players.tick()
    assert t.button.presses == 0 and first in t.world.ship_positions()
    t.clock.now_s = 5.0
    t.players.tick()
    assert t.button.presses == 1
    assert first not in t.world.ship_positions() and second not in t.world.ship_positions()
    t.clock.now_s = 9.0
    t.players.tick()
    assert t.button.presses == 1
    t.clock.now_s = 10.0
    t.players.tick()
    assert t.button.presses == 2


def test_in_a_fault_the_players_act_on_the_clock_without_frames(board: Board) -> None:
    """The controller reads no frame in a fault; the table's clock moving on lets the
    players act (a fault of the camera would otherwise leave them waiting forever)."""
    from bermuda_hw.sim.clock import VirtualClock

    game = Game.new(2, seed=1, board=board)
    world = World(board)
    for sid, (x, y) in game.ship_positions().items():
        world.place_ship(sid, x, y)
    clock, button = VirtualClock(), _Button()
    view = _View(board, game, Status(mode=Mode.FAULT, message="fault: camera; press spin"))
    players = SimulatedPlayers(
        view, world, WorldScene(world, board), cast(Any, button), style=QUIET, clock=clock.monotonic
    )
    clock.listeners.append(players.on_clock)
    for _ in range(60):
        clock.sleep(0.1)
    assert button.presses == 1
    view.status.mode = Mode.MOVING  # homing: the clock runs, the players keep off
    for _ in range(100):
        clock.sleep(0.1)
    assert button.presses == 1


def test_a_new_game_brings_the_ships_an_earlier_game_lost_back(board: Board) -> None:
    t = _table(board, QUIET)
    color = t.game.players[0]
    lost = f"{color}-1"
    t.game.journal.append({"roll": 3})
    t.players._know()
    t.world.remove(lost)  # taken out of the cloud at an outside dot
    t.players.out_of_game.add(lost)
    assert t.players._spare_token(color) is None
    t.players.controller.game = Game.new(2, seed=2, board=board)  # a new game, no journal
    assert t.players._spare_token(color) == lost


@pytest.mark.parametrize("presses_spin", [True, False])
def test_players_told_to_leave_the_spin_to_the_page_never_press_it(
    board: Board, presses_spin: bool
) -> None:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    for sid, (x, y) in game.ship_positions().items():
        world.place_ship(sid, x, y)
    clock, button = _Clock(), _Button()
    view = _View(board, game, Status(mode=Mode.SPIN, message="press spin"))
    players = SimulatedPlayers(
        view,
        world,
        WorldScene(world, board),
        cast(Any, button),
        style=QUIET,
        clock=clock,
        presses_spin=presses_spin,
    )
    for k in range(40):
        clock.now_s = 0.1 * k
        players.tick()
    assert (button.presses > 0) is presses_spin


def _asked_back(t: _Table) -> tuple[str, str]:
    """The table asks for a ship back in its port (which the camera cannot see), the landing
    still reading it beside the mover on S05; returns (the ship, its port)."""
    ship = t.game.ships("blue")[0]
    assert ship.location is not None
    status = t.players.controller.status
    status.mode = Mode.FIX
    status.fix = Difference((("blue", ship.location),), (("blue", "S05"),))
    status.back_unseen = True
    status.message = "fix the board: ...; if it is back there already, press spin"
    return ship.id, ship.location


def test_a_ship_back_where_the_camera_cannot_see_is_said_with_a_press(board: Board) -> None:
    t = _table(board, QUIET)
    ship, port = _asked_back(t)
    t.players.tick()
    assert t.button.presses == 1
    assert place_of(board, t.world.ship_positions()[ship]) == port


def test_a_ship_still_beside_the_mover_is_put_back_not_pressed_for(board: Board) -> None:
    t = _table(board, QUIET)
    ship, port = _asked_back(t)
    t.world.place_ship(ship, board.spaces["S05"].x_mm, board.spaces["S05"].y_mm)
    t.players.tick()
    assert t.button.presses == 0
    assert place_of(board, t.world.ship_positions()[ship]) == port
