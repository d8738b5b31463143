"""The board checked against the game, carried out: settled, a fix asked (and counted), a move
taken, a long press's board accepted (a stand-in for the controller; synthetic observations,
no frame)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from parts_table import BOARD, Table
from synthetic import observe, set_dock_or_bump, two_plain_moves

from bermuda_hw.controller.hand_edits import ACCEPT_AFTER_ATTEMPTS
from bermuda_hw.controller.identify import difference
from bermuda_hw.controller.ship_dispatch import on_ship_board
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.candidates import Kind, candidates, contents
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.vision.types import BoardObservation, ShipReading


def _seen(game: Game, without: str | None = None) -> BoardObservation:
    """The board as the game has it (less one ship of the port `without`)."""
    places = {p: list(c) for p, c in contents(game).items()}
    if without is not None:
        places[without] = places[without][1:]
    return observe(BOARD, places)


def _a_port(game: Game) -> str:
    return next(p for p, c in contents(game).items() if p in BOARD.ports and c)


def test_a_board_as_the_game_has_it_settles_setup_and_is_kept_as_the_reference(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    table.status.mode = Mode.SETUP
    seen = _seen(table.game)
    table.checks.check_setup(seen)
    assert table.lines[-1] == "the board matches the game; round 1"
    assert ("learn start layout", frozenset()) in table.rig.calls
    assert table.status.mode is Mode.READY and table.status.fix is None
    reference = table.checks.reference
    assert reference is not None and reference[0] is table.game and reference[2] is seen


def test_each_ask_for_a_fix_counts_and_the_third_offers_the_long_press(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.status.mode = Mode.SETUP
    seen = _seen(table.game, without=_a_port(table.game))
    for attempt in range(1, ACCEPT_AFTER_ATTEMPTS + 1):
        table.checks.check_setup(seen)
        assert table.status.mode is Mode.SETUP and table.status.fix_attempts == attempt
        assert table.status.fix is not None and table.status.fix.missing
        offered = "hold the spin button" in table.status.message
        assert offered is (attempt >= ACCEPT_AFTER_ATTEMPTS)
    assert table.status.message.startswith("set the board as the game has it: ")
    table.checks.check(seen)  # outside setup: the same board is a fix to make
    assert table.status.mode is Mode.FIX and table.status.message.startswith("fix the board")


def test_settled_waits_for_the_spin_once_every_player_has_moved(tmp_path: Path) -> None:
    table = Table(tmp_path)
    game = table.game
    while game.phase is Phase.SHIPS:
        game.roll_die()
        game.push(game.legal_moves()[0])
    table.status.fix_attempts = 2
    table.checks.restoring = True
    table.checks.settled()
    assert table.status.mode is Mode.SPIN
    assert table.status.message == f"round {game.round}: every player has moved; press spin"
    assert table.status.fix_attempts == 0 and not table.checks.restoring


def test_the_die_known_to_the_referee(tmp_path: Path) -> None:
    assert Table(tmp_path / "table").checks.known_dice() is None  # any die, unseen
    virtual = Table(tmp_path / "virtual", options=GameOptions(die="virtual"))
    assert virtual.checks.known_dice() == frozenset()  # no move before the roll
    virtual.seats.roll()
    assert virtual.checks.known_dice() == frozenset({virtual.game.die})


def test_a_move_taken_is_journalled_and_its_bumped_ships_go_back_first(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4)
    game = table.game
    set_dock_or_bump(game)  # yellow: with a 1, a bump of its own ship, or a dock
    game.set_die(1)
    chosen = next(c for c in candidates(game, frozenset({1})) if c.bumped)
    assert table.checks.apply(chosen) is True
    assert table.status.seq == len(game.journal) and table.status.die is None
    assert table.journalled()[-1] == dict(game.journal[-1])
    bumped = table.checks.turn.bumped
    assert bumped is not None and bumped.ships == chosen.bumped
    assert chosen.move is not None and bumped.landing == chosen.move.end


def test_a_long_press_accepts_the_board_only_after_the_asks(tmp_path: Path) -> None:
    table = Table(tmp_path)
    port = _a_port(table.game)
    seen = _seen(table.game, without=port)
    table.last_observation = seen
    table.status.mode = Mode.SETUP
    table.checks.check_setup(seen)
    assert table.checks.accept_board() is False
    assert "only after a fix has been asked for" in table.lines[-1]
    for _ in range(ACCEPT_AFTER_ATTEMPTS - 1):
        table.checks.check_setup(seen)
    offered = table.status.message  # says what the long press would do, before it is done
    before = len(table.game.journal)
    assert table.checks.accept_board() is True
    assert table.lines[-1].startswith("the board is accepted as seen: ")
    assert "out of the game" in table.lines[-1]
    done = table.lines[-1].removeprefix("the board is accepted as seen: ")
    assert offered.endswith(f"hold the spin button to accept the board as it is ({done})")
    assert len(table.game.journal) > before and table.status.mode is Mode.READY
    assert not difference(table.game, seen)  # the game is what is seen
    assert len(table.journalled()) == len(table.game.journal)


def test_the_long_press_offered_beside_a_move_out_of_sight_says_the_move_and_the_edits(
    tmp_path: Path,
) -> None:
    """A fix shown beside a move into a place out of sight: the offer of the long press
    names the move it makes first and the edits after it, as the long press then does."""
    game, move, _ = two_plain_moves(BOARD, 1)
    table = Table(tmp_path, players=3, seed=game.seed)
    table.game.roll_die()
    table.status.mode = Mode.READY
    after = table.game.copy()
    after.push(move)
    places = {p: list(c) for p, c in contents(after).items()}
    # another player's ship not seen anywhere (knocked off the board)
    other = next(p for p, c in places.items() if c and table.game.active not in c and p != move.end)
    places[other].pop(0)
    assert move.end is not None
    seen = observe(BOARD, places, hidden={move.end})
    table.last_observation = seen
    for _ in range(ACCEPT_AFTER_ATTEMPTS):
        on_ship_board(table, seen)
    assert table.status.mode is Mode.FIX and table.status.waiting == str(move)
    offered = table.status.message
    assert table.checks.accept_board() is True
    done = next(
        line for line in reversed(table.lines) if line.startswith("the board is accepted")
    ).removeprefix("the board is accepted as seen: ")
    assert "out of the game" in done
    assert offered.endswith(f"accept the board as it is ({move} made first; {done})")
    assert any(e.get("move") == str(move) for e in table.game.journal)


def _with_printing(
    game: Game, without: str | None = None, on: str | None = None
) -> BoardObservation:
    """The board as the game has it (less one ship of the port `without`), with a blue and a
    green ship read off every space (a printed board's lettering and coasts, to a reader
    that has not learned the board's look), and a blue ship read on the empty place `on`."""
    places = {p: list(c) for p, c in contents(game).items()}
    if without is not None:
        places[without] = places[without][1:]
    if on is not None:
        places[on] = ["blue"]
    seen = observe(BOARD, places)
    printing = (ShipReading("blue", None, 150.0, 195.0), ShipReading("green", None, 60.0, 80.0))
    return replace(seen, ships=seen.ships + printing)


def test_an_uncalibrated_camera_learns_the_printing_beside_a_complete_start_layout(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    table.rig.look = False  # no colour calibration, no game start learned yet
    table.status.mode = Mode.SETUP
    table.checks.check_setup(_with_printing(table.game))
    assert table.rig.calls[-2:] == [("learn start layout", frozenset()), "forget"]
    said = table.lines[-1]
    assert said.startswith("the camera is not calibrated")
    assert "blue and green ships off the spaces" in said and "calibration/README.md" in said
    assert table.status.mode is Mode.SETUP and table.status.fix is None
    # read again against the learned look: the printing no longer reads as ships
    table.checks.check_setup(_seen(table.game))
    assert table.lines[-1] == "the board matches the game; round 1"
    assert table.status.mode is Mode.READY


def test_a_token_on_a_place_is_never_learned_as_printing(tmp_path: Path) -> None:
    # the printing off the spaces is learned, the blue ship on S11 is left out of what is
    # learned: it is still read, and the table asked to take it off
    table = Table(tmp_path)
    table.rig.look = False
    table.status.mode = Mode.SETUP
    seen = _with_printing(table.game, on="S11")
    table.checks.check_setup(seen)
    assert ("learn start layout", frozenset({"S11"})) in table.rig.calls
    stray = replace(seen, ships=tuple(s for s in seen.ships if s.space is not None))
    table.checks.check_setup(stray)
    assert table.status.fix is not None and table.status.fix.extra == (("blue", "S11"),)
    assert table.status.mode is Mode.SETUP


def test_printing_is_learned_only_beside_every_ship_of_the_game_on_a_new_uncalibrated_board(
    tmp_path: Path,
) -> None:
    # a ship missing as well: the start layout is not in place, nothing is learned
    table = Table(tmp_path)
    table.rig.look = False
    table.status.mode = Mode.SETUP
    table.checks.check_setup(_with_printing(table.game, without=_a_port(table.game)))
    assert not any("learn start layout" in str(call) for call in table.rig.calls)
    assert table.status.fix is not None and table.status.fix.extra
    # a ship on a place only, none off the spaces: a ship to take off, nothing learned
    table = Table(tmp_path / "on a place")
    table.rig.look = False
    table.status.mode = Mode.SETUP
    seen = _with_printing(table.game, on="S11")
    table.checks.check_setup(replace(seen, ships=tuple(s for s in seen.ships if s.space)))
    assert not any("learn start layout" in str(call) for call in table.rig.calls)
    assert table.status.fix is not None and table.status.fix.extra == (("blue", "S11"),)
    # a calibrated camera: ships read off the game's places are ships, to be fixed
    table = Table(tmp_path / "calibrated")
    table.status.mode = Mode.SETUP
    table.checks.check_setup(_with_printing(table.game))
    assert not any("learn start layout" in str(call) for call in table.rig.calls)
    assert table.status.fix is not None and table.status.fix.extra
    # learning fails (the board not in view in the last frame): the fix is asked
    table = Table(tmp_path / "fails")
    table.rig.look, table.rig.learns = False, False
    table.status.mode = Mode.SETUP
    table.checks.check_setup(_with_printing(table.game))
    assert table.status.fix is not None and table.status.mode is Mode.SETUP
    assert not any("not calibrated" in line for line in table.lines)
    # a game already under way (set up again after the cloud's phase): nothing is learned
    table = Table(tmp_path / "played")
    table.rig.look = False
    die = table.session.roll()
    move = next(c for c in candidates(table.game, frozenset({die})) if c.kind is Kind.MOVE)
    table.session.apply(move)
    table.status.mode = Mode.SETUP
    table.checks.check_setup(_with_printing(table.game))
    assert not any("learn start layout" in str(call) for call in table.rig.calls)
    assert table.status.fix is not None and table.status.fix.extra
