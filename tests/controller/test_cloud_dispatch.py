"""The cloud's phase, carried out: the spin (MOVING, then AFTER_SPIN), a fault on the way, the
captures journalled once the cloud is seen where the plan has it, a wrong letter turned first
(a stand-in for the controller and the mover; synthetic observations, no frame)."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from parts_table import BOARD, Table
from synthetic import observe

from bermuda_hw.controller import rim as rim_module
from bermuda_hw.controller.belief import fill_noise
from bermuda_hw.controller.cloud_dispatch import finish_spin, spin
from bermuda_hw.controller.consequences import Provisional, entry_index, provisional_moves
from bermuda_hw.controller.rim import (
    BAND_CONFIDENCE,
    BAND_LEARNED,
    RIM_Z,
    _bumped_off,
    band_shows,
    rim_shows,
)
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.events import Bumped
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation, CloudReading, ShipReading


class Mover:
    """The cloud mover's spin and turns, recorded; `fails` is raised by a spin."""

    def __init__(self, fails: Exception | None = None) -> None:
        self.fails = fails
        self.calls: list[Any] = []

    def execute_spin(self, spin: object) -> None:
        self.calls.append("spin")
        if self.fails is not None:
            raise self.fails

    def assume_letter(self, letter: int) -> None:
        self.calls.append(("assume letter", letter))

    def turn_to(self, letter: int) -> None:
        self.calls.append(("turn to", letter))


def _at_the_cloud_phase(tmp_path: Path, mover: Mover) -> Table:
    table = Table(tmp_path, players=3, seed=7)
    rng = random.Random(7)
    game = table.game
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    table.saved(table.session.commit())
    table.spinner = Spinner(mover, table.rig, table.say)  # type: ignore[arg-type]
    table.status.mode = Mode.SPIN
    return table


def _seen(table: Table, letter: int | None = None) -> BoardObservation:
    """The board after the spin, the cloud at the plan's dot showing `letter` (the plan's)."""
    pending = table.spinner.pending
    assert pending is not None
    observation = observe(BOARD, {p: list(c) for p, c in contents(table.game).items()})
    col, row = pending.end
    x, y = BOARD.grid.dot_mm(col, row)
    shown = pending.spin.letter if letter is None else letter
    return replace(observation, cloud=CloudReading(col, row, shown, x, y, 0.0))


def test_a_spin_moves_the_cloud_then_looks_for_captures(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    assert mover.calls == ["spin"]
    assert [mode for mode, _ in table.modes] == [Mode.MOVING, Mode.AFTER_SPIN]
    assert table.modes[0][1] == f"spin: {table.status.last_spin}"
    assert table.spinner.pending is not None and table.rig.calls[-1] == "forget"


def test_a_spin_that_faults_is_a_fault(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover(HardwareError("the e-stop button")))
    spin(table)
    assert table.faults == ["the e-stop button"] and table.status.mode is Mode.FAULT
    assert table.spinner.pending is None


def test_the_cloud_where_the_plan_has_it_journals_the_captures(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover())
    spin(table)
    journal = len(table.game.journal)
    finish_spin(table, _seen(table))
    assert table.spinner.pending is None
    assert len(table.game.journal) > journal and table.status.seq == len(table.game.journal)
    assert len(table.journalled()) == len(table.game.journal)
    assert table.game.phase is Phase.SHIPS or table.game.is_over()
    assert any(line.startswith("totals: ") for line in table.lines)
    if not table.game.is_over():
        assert table.status.mode is Mode.SETUP
        assert table.status.message == f"round {table.game.round}: checking the board"


def test_a_wrong_letter_is_turned_before_anything_is_decided(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    pending = table.spinner.pending
    assert pending is not None
    journal = len(table.game.journal)
    wrong = (pending.spin.letter + 1) % 8
    finish_spin(table, _seen(table, wrong))
    assert mover.calls[-1] == ("turn to", pending.spin.letter)
    assert len(table.game.journal) == journal and table.status.mode is Mode.AFTER_SPIN
    assert table.rig.calls[-1] == "forget" and table.spinner.pending is not None


def _unseen_landing(tmp_path: Path, mover: Mover) -> tuple[Table, Provisional]:
    """At the cloud phase, the round's last move taken provisionally (its landing out of
    sight), as the session rebuilds it from the journal after a restart
    (`provisional_moves`: from before the move's roll), the last board hiding it."""
    for seed in range(1, 60):
        table = Table(tmp_path / str(seed), players=3, seed=seed)
        rng = random.Random(seed)
        game = table.game
        while game.phase is not Phase.CLOUD:
            game.roll_die()
            move = rng.choice(game.legal_moves())
            last = game.active == game.players[-1]
            game.push(move, provisional=(move.end,) if last and not move.is_pass else ())
        provisional = provisional_moves(game)
        if not provisional:
            continue
        table.saved(table.session.commit())
        table.session.provisional = provisional
        item = provisional[0]
        table.last_observation = _board(table, hidden=item.places)
        table.spinner = Spinner(mover, table.rig, table.say)  # type: ignore[arg-type]
        table.status.mode = Mode.SPIN
        return table, item
    raise AssertionError("no seed's last player moves in the first round")


def _board(table: Table, hidden: tuple[str, ...] = ()) -> BoardObservation:
    """The board as the game has it, `hidden` under the cloud."""
    places = {p: list(c) for p, c in contents(table.game).items()}
    return observe(BOARD, places, hidden=hidden)


def _answer(table: Table, option: int) -> None:
    table.asking.give(option)  # as the page gives it; presses count the same way
    table.answers.answer_step()


def test_a_spin_while_a_ship_stands_on_a_landing_never_seen_asks_first(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    move = Move.parse(item.move)
    spin(table)
    question = table.status.question
    assert mover.calls == [] and table.status.mode is Mode.ASK and question is not None
    assert question.text.startswith(f"{move.color}, before the spin: is {move.ship} on {move.end}?")
    assert "sweep" not in question.text  # nothing said of where the cloud goes
    assert question.moves[0] == (item.move,) and question.options[1:] == (NONE_OF_THESE, NOT_YET)
    assert table.session.provisional == [item]


def test_a_landing_the_last_board_shows_is_no_question(tmp_path: Path) -> None:
    mover = Mover()
    table, _ = _unseen_landing(tmp_path, mover)
    table.last_observation = _board(table)
    spin(table)
    assert mover.calls == ["spin"] and table.status.question is None


def test_yes_keeps_the_move_and_the_checked_board_lets_the_spin_go(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    journal = len(table.game.journal)
    spin(table)
    _answer(table, 1)
    assert f"confirmed by the table: {item.move}" in table.lines
    assert table.session.provisional == [] and table.status.mode is Mode.SPIN
    assert len(table.game.journal) == journal and mover.calls == []
    spin(table)
    assert mover.calls == ["spin"] and table.status.mode is Mode.AFTER_SPIN


def test_none_of_these_takes_the_game_back_to_before_the_move(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    assert "roll" in table.game.journal[item.count]  # (after a restart: its roll with it)
    spin(table)
    _answer(table, 2)
    assert len(table.game.journal) == item.count and mover.calls == []
    assert table.game.phase is Phase.SHIPS and table.status.mode is Mode.SETUP
    assert any(
        line.startswith(f"{item.move} was not made (the table says so)") for line in table.lines
    )
    assert len(table.journalled()) == item.count  # the journal holds the game as rewound


def test_not_yet_leaves_the_spin_to_a_later_press_that_asks_again(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    spin(table)
    _answer(table, 3)
    assert table.status.mode is Mode.SPIN and table.session.provisional == [item]
    spin(table)
    assert mover.calls == [] and table.status.mode is Mode.ASK


def test_an_answer_given_before_the_question_is_no_answer_to_it(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    journal = len(table.game.journal)
    table.asking.give(2)  # left from an earlier question
    spin(table)
    table.answers.answer_step()
    assert table.status.mode is Mode.ASK and table.status.question is not None
    assert len(table.game.journal) == journal and table.session.provisional == [item]


def test_an_answer_out_of_range_leaves_the_question_standing(tmp_path: Path) -> None:
    mover = Mover()
    table, _ = _unseen_landing(tmp_path, mover)
    spin(table)
    _answer(table, 4)
    assert table.lines[-1] == "there is no answer 4: press 1 to 3 times"
    assert table.status.mode is Mode.ASK and table.status.question is not None


def test_a_board_that_settles_meanwhile_leaves_the_question_unless_it_shows_the_landing(
    tmp_path: Path,
) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    spin(table)
    question = table.status.question
    table.answers.landing_board(_board(table, hidden=item.places))
    assert table.status.mode is Mode.ASK and table.status.question is question
    table.answers.landing_board(_board(table))  # the landing in view, the ship on it
    assert f"confirmed: {item.move}" in table.lines
    assert table.status.question is None and table.status.mode is Mode.SPIN
    spin(table)
    assert mover.calls == ["spin"]


def test_the_question_goes_once_the_board_takes_the_game_back(tmp_path: Path) -> None:
    """Asked about the landing, the board then shows the landing without the ship: the
    game goes back to before the move, and the question with the state it was about."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    spin(table)
    places = {p: list(c) for p, c in contents(table.game).items()}
    end = Move.parse(item.move).end
    places[end] = [c for c in places[end] if c != Move.parse(item.move).color]
    table.answers.landing_board(observe(BOARD, {p: c for p, c in places.items() if c}))
    assert table.status.question is None and table.status.mode is Mode.SETUP
    assert len(table.game.journal) == item.count


def test_a_move_of_an_earlier_round_is_not_asked_about(tmp_path: Path) -> None:
    """A move kept to check since an earlier round (its landing was seen before that
    spin, another of its places not) is checked by the board, never asked about after
    a spin the table has watched: taking it back would replay that spin."""
    table, item = _unseen_landing(tmp_path, Mover())
    later = Provisional(item.count, item.move, item.places)
    table.game.journal.append({"cloud": True})  # a cloud phase after the move
    assert table.session.unseen_landing(table.last_observation) is None
    table.session.provisional = [later]
    table.game.journal.pop()
    assert table.session.unseen_landing(table.last_observation) == later


def test_a_landing_seen_ends_the_question_though_another_place_stays_out_of_sight(
    tmp_path: Path,
) -> None:
    """The move also sent a ship to a port the cloud hides: once the board shows the ship
    on its landing, the question is answered; the move stays to be checked there."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    port = next(p for p in BOARD.ports if p not in item.places)
    both = replace(item, places=(*item.places, port))
    table.session.provisional = [both]
    table.last_observation = _board(table, hidden=both.places)
    spin(table)
    assert table.status.mode is Mode.ASK
    table.last_observation = _board(table, hidden=(port,))  # as the loop keeps it
    table.answers.landing_board(table.last_observation)
    assert table.status.question is None and table.status.mode is Mode.SPIN
    assert table.session.provisional == [both]
    spin(table)
    assert mover.calls == ["spin"]


def _at_rim(
    table: Table, item: Provisional, fill: float, color: str | None = None
) -> BoardObservation:
    """The board as the game has it, the move's landing hidden to the cloud's model, and
    `fill` of `color` (the mover's) measured on the landing's disk at the cloud's rim."""
    seen = _board(table, hidden=item.places)
    evidence = seen.evidence
    assert evidence is not None
    move = Move.parse(item.move)
    rim = np.full_like(evidence.fractions, np.nan)  # nothing else measured at the rim
    rim[evidence.index(move.end)] = 0.0
    rim[evidence.index(move.end), evidence.colors.index(color or move.color)] = fill
    return replace(seen, evidence=replace(evidence, rim=rim))


def test_a_landing_whose_ship_shows_at_the_clouds_rim_is_no_question(tmp_path: Path) -> None:
    """The mover's token seen beside the cloud's body, on a landing the cloud's model
    hides: the move is confirmed (a settled row, not a move), and the spin goes."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    journal = len(table.game.journal)
    table.last_observation = _at_rim(table, item, 0.35)
    spin(table)
    assert table.status.question is None and mover.calls == ["spin"]
    assert table.session.provisional == []
    assert f"seen at the cloud's rim: {item.move}" in table.lines
    assert len(table.game.journal) == journal
    moved = entry_index(table.game, item)
    assert "move" in table.game.journal[moved]
    assert table.session.journal.settled(table.session.game_id) == {moved}


@pytest.mark.parametrize("other_color", [False, True])
def test_a_rim_showing_no_more_than_an_empty_place_or_another_colour_is_asked_about(
    tmp_path: Path, other_color: bool
) -> None:
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    move = Move.parse(item.move)
    if other_color:
        color = next(c for c in BOARD.ship_colors if c != move.color)
        seen = _at_rim(table, item, 0.35, color)
    else:
        seen = _at_rim(table, item, 0.0)
        assert seen.evidence is not None
        noise = fill_noise(seen.evidence)
        seen = _at_rim(table, item, 0.95 * RIM_Z * noise)  # an empty place's fill at its most
    _asked_before_the_spin(table, mover, item, seen)


def _asked_before_the_spin(
    table: Table, mover: Mover, item: Provisional, seen: BoardObservation
) -> None:
    """A press of spin on the board `seen` asks about `item` first; the cloud stays."""
    table.last_observation = seen
    spin(table)
    assert mover.calls == [] and table.status.mode is Mode.ASK
    assert table.session.provisional == [item]


def test_the_rim_says_nothing_where_the_game_has_another_ship_of_the_colour(
    tmp_path: Path,
) -> None:
    """Another ship of the mover's colour on the landing would show the colour there too."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    game = table.game
    seen = _at_rim(table, item, 0.35)
    assert seen.evidence is not None
    assert rim_shows(game, seen.evidence, move)
    other = next(
        s for s in game.ships() if s.color == move.color and s.id != move.ship and s.location
    )
    game.set_ship(other.id, move.end)
    assert not rim_shows(game, seen.evidence, move)
    assert not rim_shows(game, replace(seen.evidence, rim=None), move)


def test_the_rim_is_looked_at_once_at_the_press_not_while_the_question_stands(
    tmp_path: Path,
) -> None:
    """Each stable board is a new chance of noise passing the rim's test: the rim is
    judged once, at the press, and a question asked stays for the table to answer."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    spin(table)
    question = table.status.question
    assert table.status.mode is Mode.ASK and question is not None
    table.answers.landing_board(_at_rim(table, item, 0.35))
    assert table.status.mode is Mode.ASK and table.status.question is question
    assert table.session.provisional == [item]


def test_the_status_drops_a_move_confirmed_at_the_rim(tmp_path: Path) -> None:
    table, item = _unseen_landing(tmp_path, Mover())
    table.status.provisional = table.session.provisional_moves
    assert table.status.provisional == (item.move,)
    table.last_observation = _at_rim(table, item, 0.35)
    spin(table)
    assert table.status.provisional == ()


@pytest.mark.parametrize(
    ("where", "fill"),
    [
        ("its start port", None),
        ("a path space", None),
        ("a path space at the rim", 0.35),
        ("a path space at the rim", 0.05),  # under the threshold: the colour does not show
    ],
)
def test_another_ship_of_the_colour_unseen_blocks_the_rim_unless_carried_or_shown(
    tmp_path: Path, where: str, fill: float | None
) -> None:
    """A ship of the mover's colour on a path space the camera does not see whole (knocked,
    moved out of sight) may still stand on the landing, unless the rim shows its colour
    there; one in a port it does not see whole that it did not come to by a bump (it
    started there) was carried there. Those two leave the rim to decide."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    game = table.game
    other = next(
        s
        for s in game.ships()
        if s.color == move.color and s.id != move.ship and s.location in BOARD.ports
    )
    port = other.location
    assert port is not None and not any(
        "move" in e and Move.parse(e["move"]).ship == other.id for e in game.journal
    )
    if where != "its start port":
        game.set_ship(other.id, _far_free_space(game, move))
    seen = _at_rim(table, item, 0.35)
    assert seen.evidence is not None and rim_shows(game, seen.evidence, move)
    observable = seen.evidence.observable.copy()
    for i, (place, _) in enumerate(seen.evidence.places):
        if place == game.ship(other.id).location:
            observable[i] = 0.5
    rim = seen.evidence.rim
    assert rim is not None
    if fill is not None:
        i = seen.evidence.index(str(game.ship(other.id).location))
        rim = rim.copy()
        rim[i] = 0.0
        rim[i, seen.evidence.colors.index(move.color)] = fill
    unseen = replace(seen.evidence, observable=observable, rim=rim)
    shows = where == "its start port" or (fill is not None and fill > 0.3)
    assert rim_shows(game, unseen, move) is shows


def _far_free_space(game: Game, move: Move) -> str:
    """A path space no ship stands on, far from the landing of `move` (out of its reach)."""
    return next(
        s
        for s in BOARD.spaces
        if s not in BOARD.ports
        and not any(x.location == s for x in game.ships())
        and math.dist(BOARD.spaces[s].position, BOARD.spaces[str(move.end)].position) > 60
    )


def test_a_ship_bumped_off_a_space_may_stand_there_until_it_moves_again() -> None:
    """`_bumped_off`: a ship's last change of place a bump off the space (another ship
    landed there), not a move of its own nor its start."""
    rng = random.Random(3)
    game = Game.new(2, seed=3, board=BOARD)
    while True:
        assert not game.is_over()
        if game.phase is Phase.CLOUD:
            game.cloud_phase(None)
            continue
        game.roll_die()
        events = game.push(rng.choice(game.legal_moves()))
        bumps = [e for e in events if isinstance(e, Bumped)]
        if bumps:
            break
    bump = bumps[0]
    assert _bumped_off(game, bump.ship, bump.space)
    assert not _bumped_off(game, bump.ship, next(s for s in BOARD.spaces if s != bump.space))
    still = next(
        s
        for s in game.ships()
        if s.location in BOARD.ports
        and not any("move" in e and Move.parse(e["move"]).ship == s.id for e in game.journal)
    )
    assert not _bumped_off(game, still.id, bump.space)  # it started in its port
    by_hand = game.copy()  # set on the space and back to its port by hand: carried there
    by_hand.set_ship(bump.ship, bump.space)
    by_hand.set_ship(bump.ship, bump.port)
    assert not _bumped_off(by_hand, bump.ship, bump.space)
    while game.ship(bump.ship).location == bump.port:
        if game.phase is Phase.CLOUD:
            game.cloud_phase(None)
            continue
        game.roll_die()
        moves = game.legal_moves()
        own = [m for m in moves if m.ship == bump.ship]
        game.push(own[0] if own else rng.choice(moves))
    assert not _bumped_off(game, bump.ship, bump.space)  # it moved on by itself
    assert not _bumped_off(game, bump.ship, bump.port)  # off its port by its own move


def test_the_rim_must_stand_out_from_the_other_path_spaces_measured_there(
    tmp_path: Path,
) -> None:
    """Another path space measured at the rim, where the game has no ship of the colour,
    shows half as much of it or more: the cloud (its paint, its shadow) may be what shows.
    A place not measured there (NaN) is no comparison; nor is the landing unmeasured."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    game = table.game
    holding = {s.location for s in game.ships() if s.color == move.color}
    elsewhere = next(
        s for s in BOARD.spaces if s not in BOARD.ports and s not in holding and s != move.end
    )
    seen = _board(table, hidden=(*item.places, elsewhere))
    evidence = seen.evidence
    assert evidence is not None
    c = evidence.colors.index(move.color)
    rim = np.full_like(evidence.fractions, np.nan)
    rim[evidence.index(move.end), c] = 0.35
    assert rim_shows(game, replace(evidence, rim=rim), move)
    rim[evidence.index(elsewhere), c] = 0.1
    assert rim_shows(game, replace(evidence, rim=rim), move)
    rim[evidence.index(elsewhere), c] = 0.2
    assert not rim_shows(game, replace(evidence, rim=rim), move)
    rim[evidence.index(elsewhere), c] = np.nan
    rim[evidence.index(move.end), c] = np.nan
    assert not rim_shows(game, replace(evidence, rim=rim), move)


def test_the_rim_says_nothing_where_a_ship_of_the_colour_stands_within_reach() -> None:
    """A ship of the mover's colour on a place whose token may reach the landing's disk:
    on the classic board, S07 lies 28 mm from a berth of LUMBER, where every colour
    starts with a ship."""
    game = Game.new(2, seed=1, board=BOARD)
    color = game.active
    lumber = [s for s in game.ships() if s.color == color and s.location == "LUMBER"]
    mover = next(s for s in game.ships() if s.color == color and s.location != "LUMBER")
    assert lumber
    assert min(math.dist(BOARD.spaces["S07"].position, b) for b in BOARD.ports["LUMBER"].berths) < (
        rim_module.RIM_CLEAR_MM
    )
    game.set_ship(mover.id, "S07")
    places = {p: list(c) for p, c in contents(game).items()}
    evidence = observe(BOARD, places, hidden=("S07",)).evidence
    assert evidence is not None
    rim = np.full_like(evidence.fractions, np.nan)
    rim[evidence.index("S07"), evidence.colors.index(color)] = 0.35
    move = Move.parse(f"{mover.id} S08-S07")
    assert not rim_shows(game, replace(evidence, rim=rim), move)
    for ship in lumber:  # those ships elsewhere, far from S07: the rim tells
        game.set_ship(ship.id, "S20")
    places = {p: list(c) for p, c in contents(game).items()}
    evidence = observe(BOARD, places, hidden=("S07",)).evidence
    assert evidence is not None
    assert rim_shows(game, replace(evidence, rim=rim), move)


@pytest.mark.parametrize("bumped", [False, True])
def test_a_port_seen_in_part_may_hide_a_ship_of_the_colour_bumped_off_the_landing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bumped: bool
) -> None:
    """A port with one berth in view and the others under the cloud: a ship of the mover's
    colour the game has there may stand anywhere, the landing too, if a bump off the
    landing sent it there (`_bumped_off`: a person may not have carried it back); not if
    it was carried there."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    game = table.game
    seen = _at_rim(table, item, 0.35)
    evidence = seen.evidence
    assert evidence is not None and rim_shows(game, evidence, move)
    other = next(
        s
        for s in game.ships()
        if s.color == move.color and s.id != move.ship and s.location in BOARD.ports
    )
    assert other.location is not None
    observable = evidence.observable.copy()
    berths = evidence.berths(other.location)
    observable[berths] = 0.0
    observable[berths[0]] = 1.0
    asked: list[tuple[str, str]] = []

    def bumped_off(game: Game, ship: str, space: str) -> bool:
        asked.append((ship, space))
        return bumped

    monkeypatch.setattr(rim_module, "_bumped_off", bumped_off)
    assert rim_shows(game, replace(evidence, observable=observable), move) is not bumped
    assert (other.id, move.end) in asked


def test_the_rim_says_nothing_beside_a_space_out_of_sight_and_unmeasured() -> None:
    """S10 and S11 lie 28.7 mm apart: the mover set down a space short, on S10 under the
    cloud, may reach S11's disk; where S10 is measured at the rim too, the two compare."""
    game = Game.new(2, seed=1, board=BOARD)
    color = game.active
    mine = [s for s in game.ships() if s.color == color]
    mover = mine[0]
    for ship, far in zip(mine[1:], ("S20", "S21", "S22"), strict=False):
        game.set_ship(ship.id, far)
    game.set_ship(mover.id, "S11")
    assert math.dist(BOARD.spaces["S10"].position, BOARD.spaces["S11"].position) < (
        rim_module.RIM_CLEAR_MM
    )
    places = {p: list(c) for p, c in contents(game).items()}
    evidence = observe(BOARD, places, hidden=("S10", "S11")).evidence
    assert evidence is not None
    c = evidence.colors.index(color)
    rim = np.full_like(evidence.fractions, np.nan)
    rim[evidence.index("S11"), c] = 0.35
    move = Move.parse(f"{mover.id} S12-S11")
    assert not rim_shows(game, replace(evidence, rim=rim), move)
    rim[evidence.index("S10"), c] = 0.0  # S10 measured at the rim: empty
    assert rim_shows(game, replace(evidence, rim=rim), move)


def _in_band(
    table: Table, item: Provisional, reading: ShipReading | None, seen: float = 0.4
) -> BoardObservation:
    """The board as the game has it, the move's landing seen in part (`seen` of it in view:
    the cloud's rim band), and `reading` the ship vision reads there (none: no ship)."""
    move = Move.parse(item.move)
    board = observe(
        BOARD, {p: list(c) for p, c in contents(table.game).items()}, partly={move.end: seen}
    )
    ships = tuple(s for s in board.ships if s.space != move.end)
    return replace(board, ships=ships + ((reading,) if reading is not None else ()))


def _reading(item: Provisional, **changes: Any) -> ShipReading:
    """A ship of the mover's colour read on the move's landing, as sure as vision reads a
    token standing there in the cloud's rim band."""
    move = Move.parse(item.move)
    x, y = BOARD.spaces[move.end].position
    return replace(ShipReading(move.color, move.end, x + 2.0, y - 1.0, 0.95), **changes)


def test_a_landing_seen_in_part_whose_ship_reads_there_is_no_question(tmp_path: Path) -> None:
    """The mover's token read on a landing the cloud's rim band shows in part: the move is
    confirmed (a settled row), and the spin goes without a question."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    table.last_observation = _in_band(table, item, _reading(item))
    spin(table)
    assert table.status.question is None and mover.calls == ["spin"]
    assert table.session.provisional == []
    assert f"seen at the cloud's rim: {item.move}" in table.lines
    moved = entry_index(table.game, item)
    assert table.session.journal.settled(table.session.game_id) == {moved}


@pytest.mark.parametrize(
    "what",
    [
        "no ship",
        "not sure enough",
        "off the space",
        "another colour",
        "hidden",
        "unlearned",
        "learned unmeasured",
    ],
)
def test_a_landing_in_the_band_without_a_sure_reading_of_the_mover_is_asked_about(
    tmp_path: Path, what: str
) -> None:
    """Nothing is confirmed in the band by less than a sure reading of the mover's colour
    on the landing: none, one under BAND_CONFIDENCE (a token set down between places, by
    the cloud), one farther than a token standing on the space may be from its centre,
    another colour's, a ship carried over from an earlier board as hidden, or one on a
    disk whose look the reader has not learned (its printing may read as a token) or
    whose learned share a frame of the run did not measure."""
    mover = Mover()
    table, item = _unseen_landing(tmp_path, mover)
    move = Move.parse(item.move)
    x, y = BOARD.spaces[move.end].position
    other = next(c for c in BOARD.ship_colors if c != move.color)
    reading: ShipReading | None = {
        "no ship": None,
        "not sure enough": _reading(item, confidence=BAND_CONFIDENCE - 0.05),
        "off the space": _reading(item, x_mm=x + 9.0, y_mm=y),
        "another colour": _reading(item, color=other),
        "hidden": _reading(item, hidden=True),
        "unlearned": _reading(item),
        "learned unmeasured": _reading(item),
    }[what]
    seen = _in_band(table, item, reading)
    assert seen.evidence is not None and seen.evidence.learned is not None
    if what in ("unlearned", "learned unmeasured"):
        learned = seen.evidence.learned.copy()
        learned[seen.evidence.index(move.end)] = (
            BAND_LEARNED - 0.05 if what == "unlearned" else math.nan
        )
        seen = replace(seen, evidence=replace(seen.evidence, learned=learned))
        assert seen.evidence is not None
    assert not band_shows(table.game, seen, seen.evidence, move)
    _asked_before_the_spin(table, mover, item, seen)


def test_the_band_is_a_place_seen_in_part_not_one_seen_well_nor_one_hidden(
    tmp_path: Path,
) -> None:
    """A landing seen well is the board's to confirm (`check_provisional`), one hidden
    whole the rim's (`rim_shows`): the band reads neither."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    for seen, shows in ((0.4, True), (0.95, False), (0.0, False)):
        board = _in_band(table, item, _reading(item), seen=seen)
        assert board.evidence is not None
        assert band_shows(table.game, board, board.evidence, move) is shows


@pytest.mark.parametrize("shown", ["nothing", "its colour", "another colour", "hidden"])
def test_another_ship_of_the_colour_out_of_sight_blocks_the_band_unless_read_where_it_is(
    tmp_path: Path, shown: str
) -> None:
    """A ship of the mover's colour on a path space the camera does not see whole (knocked,
    moved out of sight) may be the token read on the landing, unless vision reads a ship
    of that colour where the game has it; one the game has on the landing always may."""
    table, item = _unseen_landing(tmp_path, Mover())
    move = Move.parse(item.move)
    game = table.game
    other = next(s for s in game.ships() if s.color == move.color and s.id != move.ship)
    space = _far_free_space(game, move)
    game.set_ship(other.id, space)
    seen = _in_band(table, item, _reading(item))
    evidence = seen.evidence
    assert evidence is not None and band_shows(game, seen, evidence, move)
    observable = evidence.observable.copy()
    observable[evidence.index(space)] = 0.5
    ships = tuple(s for s in seen.ships if s.space != space)
    x, y = BOARD.spaces[space].position
    other_color = next(c for c in BOARD.ship_colors if c != move.color)
    ships += {
        "nothing": (),
        "its colour": (ShipReading(move.color, space, x, y, 0.5),),
        "another colour": (ShipReading(other_color, space, x, y, 0.5),),
        "hidden": (ShipReading(move.color, space, x, y, 0.5, hidden=True),),
    }[shown]
    seen = replace(seen, ships=ships, evidence=replace(evidence, observable=observable))
    assert seen.evidence is not None
    assert band_shows(game, seen, seen.evidence, move) is (shown == "its colour")
    game.set_ship(other.id, str(move.end))  # the game has it on the landing: whose token?
    assert not band_shows(game, seen, seen.evidence, move)


def test_the_band_says_nothing_where_a_ship_of_the_colour_stands_within_reach() -> None:
    """On the classic board S07 lies 28 mm from a berth of LUMBER, where every colour
    starts with a ship: a token of it set down carelessly toward S07 (or one more in a
    full port) may read on S07 as surely as the mover's would, as at the rim."""
    game = Game.new(2, seed=1, board=BOARD)
    color = game.active
    lumber = [s for s in game.ships() if s.color == color and s.location == "LUMBER"]
    mover = next(s for s in game.ships() if s.color == color and s.location != "LUMBER")
    assert lumber
    game.set_ship(mover.id, "S07")
    move = Move.parse(f"{mover.id} S08-S07")
    seen = observe(BOARD, {p: list(c) for p, c in contents(game).items()}, partly={"S07": 0.3})
    assert seen.evidence is not None
    assert not band_shows(game, seen, seen.evidence, move)
    for ship in lumber:  # those ships elsewhere, far from S07: the reading tells
        game.set_ship(ship.id, "S20")
    seen = observe(BOARD, {p: list(c) for p, c in contents(game).items()}, partly={"S07": 0.3})
    assert seen.evidence is not None
    assert band_shows(game, seen, seen.evidence, move)
