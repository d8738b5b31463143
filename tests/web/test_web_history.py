"""The page's history: every journal entry with the events it caused, kept up to date."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.record import record as game_record
from bermuda_hw.web.hub import History

BOARD = load_board()


def played(seed: int, actions: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(rng.choice((2, 3, 4)), seed=seed, board=BOARD)
    for _ in range(actions):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        else:
            game.set_die(rng.randint(1, 6))
            game.push(rng.choice(game.legal_moves()))
    return game


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 80), st.data())
def test_history_follows_the_journal_step_by_step(
    seed: int, actions: int, data: st.DataObject
) -> None:
    game = played(seed, actions)
    record = game_record(game)
    whole = History(BOARD)
    whole.update(1, record)
    assert [item["seq"] for item in whole.items] == list(range(1, len(game.journal) + 1))
    assert all(not t.startswith("(not shown") for item in whole.items for t in item["text"])
    spins = [item for item in whole.items if "cloud" in item["entry"]]
    assert all(item["spin"]["text"] == item["entry"]["cloud"] for item in spins)
    # the same history when it grows one step at a time, and after an undo shortens it
    cut = data.draw(st.integers(0, len(game.journal)))
    growing = History(BOARD)
    growing.update(1, {**record, "journal": record["journal"][:cut]})
    growing.update(1, record)
    assert growing.items == whole.items
    growing.update(1, {**record, "journal": record["journal"][:cut]})
    assert growing.items == whole.items[:cut]
