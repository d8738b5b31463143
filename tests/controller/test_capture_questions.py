"""Captures under the cloud that the game cannot go on without: a pass that rests on a
ship the camera guessed taken, and a game's end, ask the table which ships the magnets
took; the answer confirms the captures or corrects them from that cloud phase, and
nothing is taken without one (a stand-in for the controller; synthetic observations,
no frame)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parts_table import BOARD, Table
from synthetic import observe

from bermuda_hw.controller import cloud_phase
from bermuda_hw.controller.cloud_phase import Captures
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import (
    CaptureDoubt,
    CorrectedCaptures,
    Unplayable,
    capture_doubts,
    captures_told,
    outcome_hangs_on,
)
from bermuda_hw.controller.identify import Difference
from bermuda_hw.controller.journal import JournalWriteError
from bermuda_hw.controller.provisional_checks import rewind_captures
from bermuda_hw.controller.questions import UNDER_THE_CLOUD, capture_question
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.cloud import SpinPath, blocked_spaces, plan_spin, swept_ships
from bermuda_hw.rules.events import Spun
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.record import played_on, rewound
from bermuda_hw.vision.types import BoardObservation


def _swept(game: Game) -> frozenset[str]:
    """The ships the game's next cloud phase sweeps (previewed on a copy: the same spin)."""
    return cloud_phase.plan_spin(game, None).swept


def _first_spin(game: Game) -> SpinPath:
    """The path of the spin the game's first cloud phase draws (on a copy)."""
    preview = game.copy()
    preview.set_turn(game.order[0], Phase.CLOUD)
    spin = next(e.spin for e in preview.cloud_phase(None, capture=()) if isinstance(e, Spun))
    return plan_spin(BOARD.grid, game.pose, spin, BOARD.cloud)


def _played_to_the_cloud(players: int, seed: int) -> Game:
    """A game played at random to its first cloud phase."""
    game = Game.new(players, seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    return game


def _at_the_cloud_phase(tmp_path: Path, seed: int) -> tuple[Table, random.Random]:
    """A 2-player game with the virtual die, played at random to its first cloud phase, and
    the random source that played it."""
    table = Table(tmp_path / str(seed), players=2, seed=seed, options=GameOptions(die="virtual"))
    game = table.game
    rng = random.Random(seed)
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    return table, rng


def _last_ship_taken(
    tmp_path: Path, *, taken: bool = True, keep: bool = False
) -> tuple[Table, str, str]:
    """A game with the virtual die whose cloud phase took, provisionally, a player's last
    ship from a path space the cloud then covered (`taken` False: left it there), and that
    player now to move: (table, ship, space). `keep`: the player keeps one more ship, in
    its port. The first seed whose cloud phase sweeps a ship on a path space."""
    for seed in range(1, 80):
        table, rng = _at_the_cloud_phase(tmp_path, seed)
        game = table.game
        on_path = [
            s
            for s in sorted(_swept(game))
            if game.ship(s).location not in BOARD.ports and game.ship(s).location is not None
        ]
        if not on_path:
            continue
        ship = on_path[0]
        color = game.ship(ship).color
        others = [o.id for o in game.ships(color) if o.id != ship]
        for other in others:
            game.set_ship(other, None)
        if keep:
            game.set_ship(others[0], BOARD.home_port.id)
        if ship not in _swept(game):
            continue
        space = game.ship(ship).location
        assert space is not None
        game.set_turn(game.active, Phase.CLOUD)
        table.saved(table.session.commit())
        captured = frozenset({ship}) if taken else frozenset()
        assert table.session.cloud_phase(Captures(captured, (space,))) is not None
        while game is table.game and table.game.active != color:
            current = table.game
            current.roll_die()
            current.push(rng.choice(current.legal_moves()))
            table.saved(table.session.commit())
        if table.game.active != color or table.game.phase is not Phase.SHIPS:
            continue
        table.status.mode = Mode.READY
        return table, ship, space
    pytest.fail("no seed's first cloud phase sweeps a ship on a path space")


def _covered(table: Table, space: str, standing: str | None = None) -> BoardObservation:
    """The board as the game has it, `space` under the cloud (with `standing`'s token
    there, unseen)."""
    seen = {p: list(c) for p, c in contents(table.game).items()}
    if standing is not None:
        seen.setdefault(space, []).append(table.game.ship(standing).color)
    return observe(BOARD, seen, hidden=[space])


def _answer(table: Table, option: int) -> None:
    table.asking.give(option)
    table.answers.answer_step()


def test_a_pass_that_rests_on_a_capture_under_the_cloud_is_asked_first(tmp_path: Path) -> None:
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    journal = len(table.game.journal)
    table.seats.roll()  # the virtual die: no ship of theirs on the board, so no move
    question = table.status.question
    assert table.status.mode is Mode.ASK and question is not None
    color = table.game.active
    assert question.text.startswith(
        f"{color}, {UNDER_THE_CLOUD}: did the magnets take {ship} from {space}?"
    )
    assert question.options == (
        f"the magnets took {ship}",
        f"{ship} still stands on {space}",
        NONE_OF_THESE,
        NOT_YET,
    )
    assert question.text.endswith(f"The camera cannot see {space} whole")
    # the roll is journalled; the pass is not
    assert len(table.game.journal) == journal + 1 and "roll" in table.game.journal[-1]


def test_no_corrects_the_capture_and_the_player_moves_the_ship(tmp_path: Path) -> None:
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    die = table.game.die
    _answer(table, 2)
    game = table.game
    assert game.ship(ship).location == space and game.die == die
    assert not any("move" in e and Move.parse(e["move"]).is_pass for e in game.journal[-2:])
    assert any(f"the magnets left {ship} on {space}" in line for line in table.lines)
    cloud = next(e for e in reversed(game.journal) if "cloud" in e)
    assert cloud["captured"] == [] and "provisional" not in cloud
    assert table.session.provisional == []
    assert [dict(e) for e in game.journal] == table.journalled()


def test_yes_confirms_the_capture_and_the_pass_follows(tmp_path: Path) -> None:
    table, _, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space)
    table.seats.roll()
    color = table.game.active
    (item,) = table.session.provisional
    _answer(table, 1)  # the pass asked about follows at once
    assert f"confirmed by the table: {item.move}" in table.lines
    assert table.session.provisional == []
    passed = [e for e in table.game.journal if e.get("move") == str(Move.pass_turn(color))]
    assert passed and table.game.active != color


@pytest.mark.parametrize("option", [3, 4])
def test_none_of_these_and_not_yet_take_nothing_and_the_question_stands(
    tmp_path: Path, option: int
) -> None:
    """The game cannot go on without the answer: the question is put again (a page or a
    player sees it anew), and nothing is taken meanwhile."""
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    journal = [dict(e) for e in table.game.journal]
    item = table.session.provisional[0]
    asked = table.status.question
    _answer(table, option)
    again = table.status.question
    assert [dict(e) for e in table.game.journal] == journal
    assert table.session.provisional == [item] and table.status.mode is Mode.ASK
    assert again is not None and again is not asked and again == asked
    assert "nothing is taken" in table.lines[-1]
    _answer(table, 2)  # then the answer: the ship stands there
    assert table.game.ship(ship).location == space


def test_a_pass_refused_anyway_is_not_asked_about(tmp_path: Path) -> None:
    """With another ship of theirs to move, the player has no pass whatever the cloud
    took: the pass is refused, with no question."""
    table, ship, space = _last_ship_taken(tmp_path, keep=True)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    assert table.game.die is not None
    assert table.game.legal_moves(table.game.die) != [Move.pass_turn(table.game.active)]
    assert not table.answers.capture_before_pass()
    assert table.status.question is None
    with pytest.raises(ActionRefused):
        table.pass_turn()


def test_a_pass_claimed_where_the_game_left_the_ship_asks_whether_it_was_taken(
    tmp_path: Path,
) -> None:
    """The converse: the game has the magnets leave the player's last ship under the
    cloud, so the die gives it a move; a press to pass asks the table, and "taken" lets
    the pass go."""
    table, ship, space = _last_ship_taken(tmp_path, taken=False)
    table.last_observation = _covered(table, space)
    table.seats.roll()
    color = table.game.active
    assert table.status.question is None and table.game.ship(ship).location == space
    table.seats.roll()  # a press once rolled: the player says there is nothing to move
    question = table.status.question
    assert table.status.mode is Mode.ASK and question is not None
    assert question.options[:2] == (f"{ship} still stands on {space}", f"the magnets took {ship}")
    _answer(table, 2)
    assert table.game.ship(ship).location is None
    assert any(f"the magnets took {ship} from {space}" in line for line in table.lines)
    table.seats.roll()
    assert any(e.get("move") == str(Move.pass_turn(color)) for e in table.game.journal)


def test_a_question_left_without_an_answer_is_not_answered_by_the_next_one(
    tmp_path: Path,
) -> None:
    """A board check that settles the game's state ends the capture question with it: a
    later question in the same state is answered for itself."""
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    assert table.checks.turn.capture is not None
    table.checks.settled()
    assert table.checks.turn.capture is None


def test_a_capture_the_board_shows_is_no_question(tmp_path: Path) -> None:
    """With the space in view, the board checks the capture (`check_provisional`): the
    pass does not wait on the table."""
    table, _, _ = _last_ship_taken(tmp_path)
    table.last_observation = observe(BOARD, {p: list(c) for p, c in contents(table.game).items()})
    color = table.game.active
    table.seats.roll()
    assert table.status.question is None
    assert any(e.get("move") == str(Move.pass_turn(color)) for e in table.game.journal)


def test_a_board_that_shows_the_space_answers_the_question(tmp_path: Path) -> None:
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    seen = {p: list(c) for p, c in contents(table.game).items()}
    seen.setdefault(space, []).append(table.game.ship(ship).color)
    shown = observe(BOARD, seen)
    table.last_observation = shown
    assert table.answers.asked_board(shown)
    assert table.game.ship(ship).location == space and table.status.question is None


# --- the question, and the answers' games, on their own --------------------------------


def _doubt(ships: tuple[tuple[str, str], ...], taken: frozenset[str]) -> CaptureDoubt:
    places = tuple(sorted({p for _, p in ships}))
    return CaptureDoubt(Provisional(0, "the captures of round 1", places, True), ships, taken)


def test_a_question_about_two_ships_offers_every_answer_the_guess_first() -> None:
    doubt = _doubt((("blue-1", "S05"), ("red-2", "HOME")), frozenset({"red-2"}))
    question, takes = capture_question(doubt, "blue")
    assert question.text == (
        f"blue, {UNDER_THE_CLOUD}: which ships did the magnets take from HOME and S05? "
        "The camera cannot see HOME and S05 whole"
    )
    assert takes[0] == doubt.taken and len(set(takes)) == 4 == len(takes)
    assert question.options[:4] == (
        "blue-1 still stands on S05; the magnets took red-2",
        "blue-1 still stands on S05; red-2 still stands on HOME",
        "the magnets took blue-1; red-2 still stands on HOME",
        "the magnets took blue-1; the magnets took red-2",
    )
    assert question.options[4:] == (NONE_OF_THESE, NOT_YET)
    assert question.moves[0] == ("red-2@HOME",) and question.moves[4:] == ((), ())


def test_alike_ships_on_one_place_are_asked_about_by_count() -> None:
    """Two green ships on HOME are told apart by nobody: the answers are how many the
    magnets took, the game's own ships taken first."""
    doubt = _doubt((("green-1", "HOME"), ("green-3", "HOME")), frozenset({"green-3"}))
    question, takes = capture_question(doubt, "green")
    assert question.text.startswith(
        f"green, {UNDER_THE_CLOUD}: how many of the 2 green ships on HOME did the magnets take?"
    )
    assert question.options[:3] == (
        "the magnets took 1 of the 2 green ships on HOME; 1 still stands there",
        "both green ships still stand on HOME",
        "the magnets took both green ships on HOME",
    )
    assert takes == (frozenset({"green-3"}), frozenset(), frozenset({"green-1", "green-3"}))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(1, 400), told=st.sets(st.integers(0, 3)))
def test_the_tables_answer_sets_exactly_the_ships_it_names(seed: int, told: set[int]) -> None:
    """Whatever the table says of the ships the camera could not see, the corrected cloud
    phase captures those it names and keeps the rest of its captures."""
    game = _played_to_the_cloud(2, seed)
    swept = sorted(_swept(game))
    if not swept:
        return
    places = {game.ship(s).location for s in swept} - {None}
    count = len(game.journal)
    game.cloud_phase(
        None, capture=frozenset(swept[::2]), provisional=sorted(p for p in places if p)
    )
    item = Provisional(
        count, "the captures of round 1", tuple(sorted(p for p in places if p)), True
    )
    doubts = capture_doubts(game, item, frozenset(item.places), {})
    ships = [s for d in doubts for s, _ in d.ships]
    assert sorted(ships) == sorted(
        s for s in swept if s in swept[::2] or game.ship(s).location is not None
    )
    guessed = frozenset(s for d in doubts for s in d.taken)
    taken = frozenset(ships[i] for i in told if i < len(ships))
    corrected = captures_told(game, item, {s: s in taken for s in ships})
    if taken == guessed:
        assert corrected is None
        return
    assert isinstance(corrected, CorrectedCaptures)
    entry = corrected.game.journal[count]
    assert "cloud" in entry
    assert set(entry["captured"]) == set(taken)
    assert all(corrected.game.ship(s).location is None for s in taken)
    changed = {s for s in ships if (s in taken) != (s in guessed)}
    assert len(corrected.changes) == len(changed)


def _last_ship_lost_under_the_exit(tmp_path: Path, other: bool = False) -> tuple[Table, str, str]:
    """A game over: the cloud phase took a player's last ship, provisionally, from a space
    the spin sweeps on its way off the board and covers at the outside dot. `other`: the
    spin also swept another ship, which the magnets left on its place."""
    for seed in range(1, 400):
        table = Table(tmp_path / str(seed), players=2, seed=seed)
        game = table.game
        color = game.order[0]
        path = _first_spin(game)
        if not path.leaves_board:
            continue
        spaces = {s: p.position for s, p in BOARD.spaces.items() if s not in BOARD.ports}
        start = blocked_spaces(BOARD, game.pose)
        under = sorted(
            set(swept_ships(BOARD, path, spaces, -3.0)) & blocked_spaces(BOARD, path.end) - start
        )
        if not under:
            continue
        ship = f"{color}-1"
        for s in game.ships(color):
            game.set_ship(s.id, None)
        game.set_ship(ship, under[0])
        game.set_turn(color, Phase.CLOUD)
        table.saved(table.session.commit())
        if table.session.cloud_phase(Captures(frozenset({ship}), (under[0],))) is None:
            continue
        assert table.game.is_over()
        if other and not _left_by_the_spin(table, under[0]):
            continue
        table.status.mode = Mode.SETUP
        return table, ship, under[0]
    pytest.fail("no seed's first spin leaves the board over a space it covers there")


def test_a_game_ending_on_a_capture_under_the_cloud_asks_before_it_is_over(
    tmp_path: Path,
) -> None:
    table, ship, space = _last_ship_lost_under_the_exit(tmp_path)
    table.last_observation = board = _covered(table, space)
    table.answers.end_board(board)
    question = table.status.question
    assert table.over == 0 and table.status.mode is Mode.ASK and question is not None
    assert f"did the magnets take {ship} from {space}?" in question.text
    _answer(table, 4)  # not yet: the end waits for the answer
    assert table.over == 0 and table.status.mode is Mode.ASK
    table.answers.end_board(board)  # a board meanwhile: the question stands
    assert table.over == 0 and table.status.mode is Mode.ASK
    _answer(table, 1)
    assert table.over == 1 and table.session.provisional == []


def _left_by_the_spin(table: Table, space: str) -> list[CaptureDoubt]:
    """The ships the last cloud phase swept from places other than `space` and left there."""
    (item,) = table.session.provisional
    wide = Provisional(item.count, item.move, tuple(sorted(BOARD.spaces)), True)
    return capture_doubts(table.game, wide, frozenset(BOARD.spaces) - {space}, {})


def test_a_game_end_asks_only_about_the_captures_its_outcome_hangs_on(tmp_path: Path) -> None:
    """Two captures in doubt at the end: the last ship of a fleet (the game ends on it) and
    a ship of the other fleet the magnets left (taken or left, the game ends the same). The
    first is asked about; once the board answers it, the game is over, and the second is
    said as not seen, never asked."""
    table, _, space = _last_ship_lost_under_the_exit(tmp_path, other=True)
    (item,) = table.session.provisional
    port = _left_by_the_spin(table, space)[0].ships[0][1]  # (a swept ship left there)
    table.session.provisional.append(Provisional(item.count, item.move, (port,), True))
    seen = {p: list(c) for p, c in contents(table.game).items()}
    table.last_observation = board = observe(BOARD, seen, hidden=[space, port])
    last, left = table.session.capture_doubts(board)
    assert last.item == item and left.item.places == (port,)
    assert outcome_hangs_on(table.game, last) and not outcome_hangs_on(table.game, left)
    table.answers.end_board(board)
    assert table.checks.turn.capture is not None
    assert table.checks.turn.capture[0].item == item
    shown = observe(BOARD, seen, hidden=[port])  # the space in view, empty; the port not
    table.last_observation = shown
    table.answers.end_board(shown)
    assert table.over == 1 and table.checks.turn.capture is None
    assert f"confirmed: {item.move}" in table.lines
    assert any(line.startswith(f"not seen: {item.move}") for line in table.lines)


def test_a_game_ending_on_a_capture_the_table_denies_goes_on(tmp_path: Path) -> None:
    table, ship, space = _last_ship_lost_under_the_exit(tmp_path)
    table.last_observation = board = _covered(table, space, standing=ship)
    table.answers.end_board(board)
    _answer(table, 2)
    assert table.over == 0 and not table.game.is_over()
    assert table.game.ship(ship).location == space


def test_an_answer_takes_the_phases_places_in_view_as_the_board_shows_them() -> None:
    """The table answers for the places the camera cannot see; the cloud phase's other
    places are taken as the board shows them, not as the camera guessed."""
    for seed in range(1, 200):
        game = _played_to_the_cloud(3, seed)
        swept = sorted(_swept(game))
        places = sorted({p for s in swept if (p := game.ship(s).location) is not None})
        if len(places) < 2:
            continue
        count = len(game.journal)
        game.cloud_phase(None, capture=frozenset(), provisional=places)
        item = Provisional(count, "the captures of round 1", tuple(places), True)
        doubts = capture_doubts(game, item, frozenset(places[:1]), {})
        assert doubts and all(d.taken == frozenset() for d in doubts)
        told_of = {s: False for d in doubts for s, _ in d.ships}  # "still stands there"
        left = next(s for s in swept if game.ship(s).location == places[1])
        color = game.ship(left).color
        seen = Difference(missing=((color, places[1]),))
        told = captures_told(game, item, told_of, seen)
        assert isinstance(told, CorrectedCaptures)
        assert told.changes == (f"the magnets took {left} from {places[1]}",)
        assert told.game.ship(left).location is None
        assert captures_told(game, item, told_of, Difference()) is None
        return
    pytest.fail("no seed's first cloud phase sweeps ships on two places")


def test_captures_the_game_since_cannot_follow_take_it_back_to_that_cloud_phase(
    tmp_path: Path,
) -> None:
    """Captures to correct that the moves since do not follow from: said, and the game
    taken back to just after that cloud phase, with them corrected; the board is then to
    be set as the game has it."""
    table, ship, space = _last_ship_taken(tmp_path)
    (item,) = table.session.provisional
    game = table.game
    assert len(game.journal) > item.count + 1  # (moves since the phase)
    entry = {k: v for k, v in game.journal[item.count].items() if k != "provisional"}
    entry["captured"] = []
    at_phase = played_on(rewound(game, item.count), [entry])
    rewind_captures(
        table, item, Unplayable((f"the magnets left {ship} on {space}",), "a pass", at_phase)
    )
    assert len(table.game.journal) == item.count + 1
    assert table.game.ship(ship).location == space
    assert table.session.provisional == [] and table.status.mode is Mode.SETUP
    assert any("the game goes back to just after that cloud phase" in line for line in table.lines)
    assert [dict(e) for e in table.game.journal] == table.journalled()


def test_a_pass_resting_on_ships_at_two_places_is_asked_about(tmp_path: Path) -> None:
    """The game left two of the player's ships under the cloud, each on its own space; with
    both taken the player has no move. Neither one taken alone changes that, yet the
    press to pass is asked about, not refused."""
    for seed in range(1, 300):
        table = Table(
            tmp_path / str(seed), players=2, seed=seed, options=GameOptions(die="virtual")
        )
        game = table.game
        color = game.order[0]
        path = _first_spin(game)
        spaces = {s: p.position for s, p in BOARD.spaces.items() if s not in BOARD.ports}
        swept = sorted(swept_ships(BOARD, path, spaces, -3.0))
        if len(swept) < 2:
            continue
        ids = [s.id for s in game.ships(color)]
        for sid in ids:
            game.set_ship(sid, None)
        first, second = swept[0], swept[-1]
        game.set_ship(ids[0], first)
        game.set_ship(ids[1], second)
        game.set_turn(color, Phase.CLOUD)
        table.saved(table.session.commit())
        if table.session.cloud_phase(Captures(frozenset(), (first, second))) is None:
            continue
        now = table.game
        if now.active != color or {now.ship(ids[0]).location, now.ship(ids[1]).location} != {
            first,
            second,
        }:
            continue
        table.status.mode = Mode.READY
        seen = {p: list(c) for p, c in contents(now).items()}
        table.last_observation = observe(BOARD, seen, hidden=[first, second])
        table.seats.roll()
        if table.status.question is not None or now.legal_moves() == [Move.pass_turn(color)]:
            continue
        table.seats.roll()  # a press once rolled: the player has nothing to move
        question = table.status.question
        assert table.status.mode is Mode.ASK and question is not None
        assert UNDER_THE_CLOUD in question.text
        return
    pytest.fail("no seed's first spin sweeps two path spaces")


def test_an_answer_the_journal_refuses_leaves_the_capture_to_ask_again(tmp_path: Path) -> None:
    table, ship, space = _last_ship_taken(tmp_path)
    table.last_observation = _covered(table, space, standing=ship)
    table.seats.roll()
    (item,) = table.session.provisional
    real = table.journal.rewrite

    def refuse(*args: object, **kwargs: object) -> None:
        raise JournalWriteError("disk full")

    table.journal.rewrite = refuse  # type: ignore[method-assign]
    _answer(table, 2)  # "still stands": a correction the journal refuses
    assert table.faults and table.session.provisional == [item]
    table.journal.rewrite = real  # type: ignore[method-assign]
    table.status.mode = Mode.READY  # (recovered)
    table.seats.roll()  # a press: the pass is asked about again, not taken
    assert table.status.mode is Mode.ASK
    assert not any(
        e.get("move") == str(Move.pass_turn(table.game.active)) for e in table.game.journal
    )


def test_a_confirmed_capture_whose_pass_is_refused_says_why(tmp_path: Path) -> None:
    table, _, space = _last_ship_taken(tmp_path, taken=False)
    table.last_observation = _covered(table, space)
    table.seats.roll()
    table.seats.roll()
    n = len(table.lines)
    _answer(table, 1)  # it still stands, as the game has it: the die gives it a move
    assert any("cannot pass" in line for line in table.lines[n:])


def test_a_place_in_view_when_answered_is_as_the_board_shows_it(tmp_path: Path) -> None:
    """Asked while a place was out of sight, answered once it is in view (another place of
    the phase still hidden): the board decides that place, and is not counted again on
    top of the answer."""
    for seed in range(1, 300):
        table, _ = _at_the_cloud_phase(tmp_path, seed)
        game = table.game
        swept = sorted(_swept(game))
        on_path = sorted(
            {p for s in swept if (p := game.ship(s).location) and p not in BOARD.ports}
        )
        if not on_path or len({game.ship(s).location for s in swept}) < 2:
            continue
        place = on_path[0]
        a = next(s for s in swept if game.ship(s).location == place)
        color = game.ship(a).color
        b = next((o.id for o in game.ships(color) if o.id != a and o.location != place), None)
        if b is None:
            continue
        game.set_ship(b, place)
        now_swept = _swept(game)
        if a not in now_swept or b not in now_swept:
            continue
        other = next(
            p for p in sorted({game.ship(s).location or "" for s in now_swept}) if p and p != place
        )
        game.set_turn(game.active, Phase.CLOUD)
        table.saved(table.session.commit())
        assert table.session.cloud_phase(Captures(frozenset({a, b}), (place, other))) is not None
        session = table.session
        seen = {p: list(c) for p, c in contents(table.game).items()}
        covered = observe(BOARD, seen, hidden=[place, other])
        doubt = next(d for d in session.capture_doubts(covered) if d.ships[0][1] == place)
        seen.setdefault(place, []).append(color)  # one of the two stands there, in view
        told, _ = session.told_captures(doubt, frozenset({b}), observe(BOARD, seen, hidden=[other]))
        assert isinstance(told, CorrectedCaptures)
        assert len([s for s in (a, b) if told.game.ship(s).location == place]) == 1
        return
    pytest.fail("no seed's first spin sweeps a path space and another place")


def test_a_correction_refused_at_the_end_does_not_end_the_game_on_the_guess(
    tmp_path: Path,
) -> None:
    table, ship, space = _last_ship_lost_under_the_exit(tmp_path)
    table.last_observation = board = _covered(table, space, standing=ship)
    table.answers.end_board(board)
    real = table.journal.rewrite

    def refuse(*args: object, **kwargs: object) -> None:
        raise JournalWriteError("disk full")

    table.journal.rewrite = refuse  # type: ignore[method-assign]
    _answer(table, 2)  # the ship still stands: the game is not over
    assert table.faults
    table.journal.rewrite = real  # type: ignore[method-assign]
    table.status.mode = Mode.SETUP  # (recovered)
    table.answers.end_board(board)
    assert table.over == 0 and table.status.mode is Mode.ASK
