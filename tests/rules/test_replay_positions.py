"""Replaying a recorded game position by position reproduces the game exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.errors import StateError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.computer import ComputerPlayer
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.record import record, replay_positions

BOARD = load_board()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 4), st.booleans(), st.booleans(), st.integers(20, 400))
def test_the_replay_passes_every_position_of_the_game_and_ends_on_its_last(
    seed: int, players: int, table_die: bool, ledger: bool, actions: int
) -> None:
    game = Game.new(players, seed=seed, board=BOARD, options=GameOptions(ledger))
    rng = random.Random(seed)
    seats = {c: ComputerPlayer("easy", seed=seed) for c in game.players[::2]}
    seen = [game.position]
    for _ in range(actions):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        else:
            if table_die:
                game.set_die(rng.randint(1, 6))
            else:
                game.roll_die()
            seen.append(game.position)
            chooser = seats.get(game.active)
            moves = game.legal_moves()
            game.push(chooser.choose(game) if chooser else rng.choice(moves))
        seen.append(game.position)
    replayed = replay_positions(record(game), BOARD)
    assert list(replayed.positions) == seen
    assert replayed.positions[-1] == game.position
    assert replayed.game.journal == game.journal
    assert [str(e["move"]) for e, _ in replayed.moves()] == [
        e["move"] for e in game.journal if "move" in e
    ]


def test_a_record_that_does_not_replay_is_refused() -> None:
    game = Game.new(2, seed=1, board=BOARD)
    game.roll_die()
    game.push(game.legal_moves()[0])
    broken = record(game)
    broken["journal"][0] = {"roll": 7, "engine": False}
    with pytest.raises(StateError, match="cannot replay the journal: a die shows 1 to 6"):
        replay_positions(broken, BOARD)
    with pytest.raises(StateError, match="cannot replay"):
        replay_positions({"board": "classic", "journal": []}, BOARD)
