"""Computer seats and the turn's line, on games made by the rules alone (no table)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.controller.seats import as_made, hold_spaces, seat_level, standing, suggest, to_move
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import candidates
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.moves import Move

BOARD = load_board()


def with_seat(seed: int, level: str = "best") -> Game:
    """A 3-player game whose first player to move is a computer seat."""
    probe = Game.new(3, seed=seed, board=BOARD)
    options = GameOptions(computer={probe.active: level})
    return Game.new(3, seed=seed, board=BOARD, options=options)


def test_the_seat_is_the_active_players_in_the_ship_phase_only() -> None:
    game = with_seat(4)
    assert seat_level(game) == "best"
    assert seat_level(None) is None
    game.roll_die()
    game.push(game.legal_moves()[0])
    assert seat_level(game) is None  # the next player is a person


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), level=st.sampled_from(("easy", "best")))
def test_a_suggestion_is_a_legal_move_and_stands_for_its_turn_only(seed: int, level: str) -> None:
    game = with_seat(seed, level)
    game.roll_die()
    chosen = suggest(game, level)
    legal = game.legal_moves()
    if chosen is None:
        assert legal == [Move.pass_turn(game.active)]
        return
    assert any(m.ship == chosen.ship and m.end == chosen.end for m in legal)
    assert suggest(game, level) == chosen  # seeded by the turn: the same again
    assert standing(game, chosen) == chosen
    moved = game.copy()
    moved.push(next(m for m in legal if m.ship == chosen.ship and m.end == chosen.end))
    assert standing(moved, chosen) is None  # the next turn: stale
    assert standing(game, None) is None


def test_the_line_names_the_table_die_the_seat_and_where_to_leave_both() -> None:
    game = with_seat(11)
    assert "roll the die for it" in to_move(game, "table", None, ())
    assert to_move(game, "virtual", None, ()) == f"{game.active} to move"
    game.roll_die()
    chosen = suggest(game, "best")
    assert chosen is not None  # (this seed's roll gives the seat a move)
    assert to_move(game, "table", chosen, ()).startswith(chosen.describe())
    line = to_move(game, "table", None, ("S7",))
    assert f"die {game.die}" in line and "S7" in line


def test_no_space_is_held_before_the_roll_nor_in_the_cloud_phase() -> None:
    rng = random.Random(3)
    game = Game.new(4, seed=3, board=BOARD)
    while game.phase is Phase.SHIPS:
        assert hold_spaces(game) == ()  # no die yet
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    assert game.phase is Phase.CLOUD and hold_spaces(game) == ()


def test_the_seats_move_made_is_taken_as_named_and_another_is_said() -> None:
    game = with_seat(4)
    game.roll_die()
    chosen = suggest(game, "best")
    assert chosen is not None and game.die is not None
    cands = [c for c in candidates(game, frozenset({game.die})) if c.move is not None]
    same = next(c for c in cands if (c.move.start, c.move.end) == (chosen.start, chosen.end))
    made, note = as_made(game, same, chosen)
    assert made == Move(chosen.ship, chosen.path) and note is None
    other = next(c for c in cands if c.move.end != chosen.end)  # (this seed has one)
    made, note = as_made(game, other, chosen)
    assert made == other.move and note is not None and "not the move" in note
    assert as_made(game, same, None) == (same.move, None)
