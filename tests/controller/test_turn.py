"""The table's business is kept for one state of the game and starts afresh with the next."""

from __future__ import annotations

from bermuda_hw.controller.turn import Bumped, Turns
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.record import rewound

BOARD = load_board()


def test_a_turn_lasts_while_the_game_is_unchanged() -> None:
    game = Game.new(3, seed=5, board=BOARD)
    turns = Turns()
    turn = turns.now(game)
    turn.not_yet = ("board", 1.0)
    turn.ran_out.add(())
    assert turns.now(game) is turn
    assert turns.now(game).not_yet == ("board", 1.0)


def test_a_roll_a_move_an_undo_and_another_game_each_start_a_fresh_turn() -> None:
    game = Game.new(3, seed=5, board=BOARD)
    turns = Turns()
    turns.now(game).not_yet = ("board", 1.0)
    game.roll_die()  # journalled: the state the "not yet" was about is gone
    rolled = turns.now(game)
    assert rolled.not_yet is None
    rolled.bumped = Bumped("S7", ("blue-1",))
    game.push(game.legal_moves()[0])
    moved = turns.now(game)
    assert moved is not rolled and moved.bumped is None
    moved.putback_first = {}
    back = rewound(game, len(game.journal) - 1)  # the same length as the roll's state
    assert len(back.journal) == rolled.count
    fresh = turns.now(back)
    # the same journal length as the roll's state, another game: nothing of either carries
    assert fresh.game is back and fresh.bumped is None and fresh.putback_first is None
    other = Game.new(3, seed=5, board=BOARD)  # the same start, another game
    assert turns.now(other).count == len(other.journal)
    assert turns.now(other) is not fresh
