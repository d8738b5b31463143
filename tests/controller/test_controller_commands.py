"""Actions queued from other threads: spin, pass, undo, new game, pause; snapshots for readers."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from table_helpers import ask

from bermuda_hw.controller.commands import ActionRefused, CommandQueue
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.snapshot import Snapshot
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Phase
from bermuda_hw.rules.record import replay, to_dict

from .conftest import Table


def first_move(table: Table) -> None:
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    seq = table.controller.status.seq
    table.run_until(
        lambda: table.controller.status.seq > seq and table.mode() is Mode.READY, limit=600
    )


def test_unknown_action_is_refused_before_queueing() -> None:
    with pytest.raises(ActionRefused) as info:
        CommandQueue().submit("launch")
    assert info.value.status == 400


def test_spin_refused_in_the_ship_phase(make_table: Callable[..., Table]) -> None:
    table = make_table()
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    journal_before = list(table.controller.game.journal)  # type: ignore[union-attr]
    with pytest.raises(ActionRefused, match="spin only when"):
        ask(table, "spin")
    assert table.controller.game.journal == journal_before  # type: ignore[union-attr]


def test_undo_takes_back_a_move_and_the_table_restores_it(make_table: Callable[..., Table]) -> None:
    table = make_table()
    first_move(table)
    controller = table.controller
    game = controller.game
    assert game is not None
    before = game.copy()
    moved = next(e["move"] for e in reversed(game.journal) if "move" in e)
    reply = ask(table, "undo")
    assert moved in reply
    assert controller.status.mode is Mode.SETUP
    undone = controller.game
    assert undone is not None
    assert len(undone.journal) == len(before.journal) - 2
    assert undone.journal == before.journal[:-2]
    # the simulated players put the ship back; the controller does not take the move again
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    assert controller.game is not None
    assert controller.game.journal[: len(undone.journal)] == undone.journal
    # the journal keeps every row: the undone move and the undo entry
    stored = table.journal.stored(controller.game_id)
    assert any("undo" in e for e in stored.log)
    assert sum("move" in e for e in stored.log) > sum("move" in e for e in stored.entries)
    replayed = replay(stored.record(), table.board)
    assert to_dict(replayed) == to_dict(controller.game)


def test_undo_survives_a_restart(make_table: Callable[..., Table]) -> None:
    table = make_table()
    first_move(table)
    ask(table, "undo")
    expected = table.controller.game
    assert expected is not None
    with Journal.in_state_dir(table.state_dir) as journal:
        loaded = journal.load(table.board)
    assert loaded is not None
    assert to_dict(loaded[1]) == to_dict(expected)


def test_nothing_to_undo_and_spin_cannot_be_undone(make_table: Callable[..., Table]) -> None:
    table = make_table()
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    with pytest.raises(ActionRefused, match="nothing to undo"):
        ask(table, "undo")
    game = table.controller.game
    assert game is not None
    table.run_until(
        lambda: game.phase is Phase.SHIPS and game.round == 2 and table.mode() is Mode.READY,
        limit=3000,
    )
    with pytest.raises(ActionRefused, match="spin cannot be taken back"):
        ask(table, "undo")


def test_new_game_with_options_archives_the_current_one(make_table: Callable[..., Table]) -> None:
    table = make_table()
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    old = table.controller.game_id
    with pytest.raises(ActionRefused) as info:
        ask(table, "new-game", {"players": 7})
    assert info.value.status == 400
    with pytest.raises(ActionRefused):
        ask(table, "new-game", {"options": {"capture_probability": 3}})
    assert table.controller.game_id == old
    reply = ask(table, "new-game", {"players": 3, "seed": 5, "options": {"digital_ledger": True}})
    assert f"game {old} archived" in reply
    game = table.controller.game
    assert game is not None and len(game.players) == 3 and game.seed == 5
    assert game.options.digital_ledger
    archived = {g[0]: g[3] for g in table.journal.games()}
    assert archived[old] is not None


def test_pause_blocks_the_spin_until_resumed(make_table: Callable[..., Table]) -> None:
    table = make_table(with_players=False)
    controller = table.controller
    game = controller.game
    assert game is not None
    ask(table, "pause")
    assert controller.status.paused
    with pytest.raises(ActionRefused, match="re-home only after a fault"):
        ask(table, "rehome")
    with pytest.raises(ActionRefused, match="resume it first"):
        ask(table, "new-game")
    ask(table, "resume")
    assert not controller.status.paused


def test_snapshots_are_published_and_never_change(make_table: Callable[..., Table]) -> None:
    table = make_table()
    seen: list[tuple[Snapshot, str]] = []
    table.controller.subscribers.append(
        lambda s: seen.append((s, json.dumps([s.status, s.game], sort_keys=True)))
    )
    first_move(table)
    assert len(seen) >= 2 and seen[-1][0].seq > seen[0][0].seq
    versions = [s.version for s, _ in seen]
    assert versions == sorted(set(versions))
    for snapshot, text in seen:  # later steps did not change earlier snapshots
        assert json.dumps([snapshot.status, snapshot.game], sort_keys=True) == text
    last = seen[-1][0]
    assert last.game is not None and last.status["seq"] == table.controller.status.seq
    assert last.engine is not table.controller.game
