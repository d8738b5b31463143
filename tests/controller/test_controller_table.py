"""The simulated table end to end: players move tokens, the controller sees only frames."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import GameOptions, ShipStatus
from bermuda_hw.rules.record import to_dict


def _journal_rebuilds(table: Any) -> None:
    loaded = table.journal.load(table.board)
    assert loaded is not None
    assert to_dict(loaded[1]) == to_dict(table.controller.game)


def _table_agrees(table: Any) -> None:
    """The game's ships on the board are where the simulated world has tokens, by colour."""
    game = table.controller.game
    world = table.world
    on_board = sorted(
        s.color for s in game.ships() if s.status in (ShipStatus.ON_BOARD, ShipStatus.UNDER_CLOUD)
    )
    tokens = sorted(sid.split("-")[0] for sid in world.ship_positions() if sid not in world.carried)
    assert on_board == tokens


def test_rounds_with_moves_bumps_and_captures(make_table: Callable[..., Any]) -> None:
    table = make_table(players=3, seed=11)
    controller = table.controller
    table.run_until(lambda: controller.game.round > 6 and table.mode() is Mode.READY, limit=2000)
    moves = [line for line in table.log if " (die " in line]
    assert len(moves) >= 18  # 3 players x 6 rounds (passes are logged apart)
    assert any(line.startswith("spin: ") for line in table.log)
    _journal_rebuilds(table)
    _table_agrees(table)


def test_a_whole_game_to_its_end(make_table: Callable[..., Any]) -> None:
    # the first to $150,000 wins: a whole game (14 rounds, a capture) in half the time of
    # one to the rules' $350,000; the truth tests play those (test_controller_truth.py)
    table = make_table(players=2, seed=5, options=GameOptions(target_usd=150_000))
    controller = table.controller
    table.run_until(lambda: table.mode() is Mode.OVER, limit=6000)
    game = controller.game
    outcome = game.outcome()
    assert outcome is not None
    assert any(line.startswith("game over:") for line in table.log)
    assert any("captured:" in line for line in table.log)
    _journal_rebuilds(table)
    stored = table.journal.current()
    assert stored is not None and stored.finished_utc is not None
    assert stored.outcome == str(outcome)
    # a long press starts the next game (not while motion is paused: it moves the cloud);
    # the finished one is archived
    button = table.controls.spin_button
    controller.page.pause({})
    button.when_held()
    table.steps(1)
    assert table.controller.game_id == stored.id and table.mode() is Mode.OVER
    assert "motion is paused" in table.log[-1]
    controller.page.resume({})
    button.when_held()
    table.steps(1)
    assert table.controller.game_id != stored.id and not table.controller.game.is_over()
    assert [g[0] for g in table.journal.games()] == [stored.id, table.controller.game_id]


def test_the_board_s_look_is_learned_from_the_start_layout(make_table: Callable[..., Any]) -> None:
    """Once the start layout is seen, vision judges hands and ships against the learned
    board, not only against the board file."""
    table = make_table(players=2, seed=3)
    reader = table.controller.reader
    assert reader.background is None
    table.run_until(lambda: table.mode() is Mode.READY, limit=400)
    assert reader.background is not None
    assert reader.background.known.mean() > 0.5
