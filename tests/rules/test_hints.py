"""Hints: the legal moves with what each does, and one sentence for an illegal attempt.

The hand-made positions use the ring board (see conftest):
HOME-A-B-C-SUGAR-D-E-OIL-F-G-BANANAS-H-I-LUMBER-J-K-HOME.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from midgames import midgame, midgames

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.danger import sweep_odds
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.hints import move_hints, why_illegal

BOARD = load_board()
Position = Callable[..., Game]
Ring = Callable[..., Board]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(midgames, st.integers(1, 6))
@example(midgame(874, 4, 91), 1)  # a dock that reaches the target: no spin to come
def test_the_hints_are_exactly_the_legal_moves_and_say_what_each_does(game: Game, die: int) -> None:
    if game.is_over():
        assert move_hints(game) == []
        return
    for rolled in (None, die):
        hints = move_hints(game, rolled)
        assert [h.move for h in hints] == game.legal_moves(rolled)
        for hint in hints:
            trial = game.copy()
            trial.set_die(rolled or game.position.die or 1)
            before = trial.position
            trial.push(hint.move)
            after = trial.position
            seat = game.players.index(game.active)
            # the card: what the mover's total gains
            assert hint.card_usd == after.totals[seat] - before.totals[seat]
            assert (hint.card is None) == (hint.card_usd == 0)
            # the bumps: every other ship that changed place, with the port it is now in
            moved = {
                (sid, after.locations[i])
                for i, sid in enumerate(game.ship_ids)
                if after.locations[i] != before.locations[i] and sid != hint.move.ship
            }
            assert set(hint.bumps) == moved
            if hint.move.is_pass:
                assert hint.danger is None
            else:
                assert hint.danger == sweep_odds(trial).swept[hint.move.ship]


@SETTINGS
@given(midgames, st.integers(1, 6), st.data())
def test_an_attempt_is_explained_exactly_when_no_legal_move_makes_it(
    game: Game, die: int, data: st.DataObject
) -> None:
    if game.is_over():
        assert why_illegal(game, "HOME", "SUGAR") == "the game is over"
        return
    color = game.active
    starts = sorted({s.location for s in game.ships(color) if s.location is not None})
    if not starts:
        return
    start = data.draw(st.sampled_from(starts))
    ends = sorted(BOARD.spaces)
    for end in data.draw(st.lists(st.sampled_from(ends), min_size=1, max_size=8)):
        legal = any(
            not m.is_pass and m.start == start and m.end == end for m in game.legal_moves(die)
        )
        reason = why_illegal(game, start, end, die)
        if legal:
            assert reason is None
        else:
            assert isinstance(reason, str) and reason and "\n" not in reason


def test_the_sentences(ring: Ring, position: Position) -> None:
    board = ring(["B"])
    ships = {
        "blue-1": "A",
        "blue-2": "B",
        "blue-3": "E",
        "yellow-1": "OIL",
        "yellow-2": "OIL",
        "yellow-3": "G",
    }
    game = position(board, 2, ships, "blue", 1)
    # blue-3 at E: one step to OIL, which holds 2 ships for 2 players
    assert why_illegal(game, "E", "OIL") == "OIL is full: 2 ships for 2 players (ruling 4)"
    assert why_illegal(game, "E", "D") is None
    assert why_illegal(game, "B", "C") == (
        "blue-2 is under the cloud at B and cannot move (ruling 6)"
    )
    assert why_illegal(game, "G", "F") == "G holds yellow-3, not a blue ship: it is blue's turn"
    assert why_illegal(game, "K", "J") == "there is no blue ship at K"
    assert why_illegal(game, "A", "XYZ") == "there is no place XYZ on the board"
    assert why_illegal(game, "E", "E") == (
        "a ship must move: blue has a legal move with a 1 (ruling 8)"
    )
    # wrong count
    assert why_illegal(game, "E", "SUGAR", 1) == "SUGAR is 2 spaces from E; the die shows 1"
    assert why_illegal(game, "E", "D", 2) == "D is 1 space from E along the paths; the die shows 2"
    assert why_illegal(game, "E", "C", 2) == (
        "C lies beyond SUGAR from E, and a ship that enters a port ends its move there (ruling 3)"
    )
    assert why_illegal(game, "E", "J", 3) == "J is more than 6 spaces from E; the die shows 3"
    # a ship docks at the first port it reaches
    assert why_illegal(game, "E", "F", 2) == (
        "F lies beyond OIL from E, and a ship that enters a port ends its move there (ruling 3)"
    )
    # the cloud in the way
    assert why_illegal(game, "A", "C", 2) == (
        "B is under the cloud; no walk enters or crosses it (ruling 6)"
    )


def test_the_sentences_of_capacity_and_short_moves(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "C", "blue-2": "SUGAR", "blue-3": "SUGAR", "yellow-1": "K"}
    game = position(ring(), 4, ships, "blue", 1)
    assert why_illegal(game, "C", "SUGAR") == "blue already has 2 ships in SUGAR (ruling 4)"
    # a short move while a full move exists
    ships = {"blue-1": "A", "blue-2": "J", "yellow-1": "SUGAR", "yellow-2": "SUGAR"}
    game = position(ring(["HOME"]), 2, ships, "blue", 4)
    reason = why_illegal(game, "A", "C")
    assert reason is not None and "only when no ship has a full move (ruling 7)" in reason
    # a short move stopped too early
    ships = {"blue-1": "A", "yellow-1": "SUGAR", "yellow-2": "SUGAR"}
    game = position(ring(["HOME"]), 2, ships, "blue", 4)
    assert why_illegal(game, "A", "C") is None
    reason = why_illegal(game, "A", "B")
    assert reason is not None and "last free space" in reason and "ruling 7" in reason
    # no move at all
    game = position(ring(["B"]), 2, {"blue-1": "B", "yellow-1": "A"}, "blue", 3)
    assert why_illegal(game, "B", "C") == "blue has no legal move with a 3 and passes (ruling 8)"


def test_before_the_roll_and_in_the_cloud_phase(ring: Ring, position: Position) -> None:
    game = position(ring(), 2, {"blue-1": "A", "yellow-1": "K"}, "blue")
    assert why_illegal(game, "A", "B") == "blue has not rolled the die yet"
    game.set_die(1)
    game.push("blue-1 A-B")
    game.set_die(1)
    game.push("yellow-1 K-J")
    assert game.phase is Phase.CLOUD
    assert why_illegal(game, "B", "C") == "every player has moved: the cloud moves next"
