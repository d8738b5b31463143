"""The journal: append, reopen, crash recovery through the WAL, and files that are not ours."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.controller.journal import Journal
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.record import record, replay, to_dict


def _play(game: Game, actions: int, rng: random.Random) -> None:
    """Some table actions: dice rolled at the table, moves, cloud phases."""
    for _ in range(actions):
        if game.is_over():
            return
        if game.phase.value == "cloud":
            game.cloud_phase()
        else:
            game.set_die(rng.randint(1, 6))
            game.push(rng.choice(game.legal_moves()))


def test_append_and_reopen(tmp_path: Path, board: Board) -> None:
    game = Game.new(3, seed=11, board=board)
    with Journal.in_state_dir(tmp_path) as journal:
        game_id = journal.start(game)
        rng = random.Random(1)
        for _ in range(25):
            _play(game, 1, rng)
            journal.sync(game_id, game)
    with Journal.in_state_dir(tmp_path) as journal:
        loaded = journal.load(board)
    assert loaded is not None
    assert loaded[0] == game_id
    assert to_dict(loaded[1]) == to_dict(game)


def test_wal_mode_and_full_sync(tmp_path: Path) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        assert journal.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_crash_copy_of_db_and_wal_recovers_every_commit(tmp_path: Path, board: Board) -> None:
    """A power cut: the files as they are on disk while the process still runs."""
    game = Game.new(2, seed=4, board=board)
    live = tmp_path / "live"
    journal = Journal.in_state_dir(live)
    game_id = journal.start(game)
    _play(game, 12, random.Random(2))
    journal.sync(game_id, game)
    wal = live / "bermuda.db-wal"
    assert wal.exists() and wal.stat().st_size > 0  # the commits are in the WAL, not checkpointed
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    for name in ("bermuda.db", "bermuda.db-wal"):
        shutil.copy(live / name, crashed / name)
    # an uncommitted action after the copy is not part of the crashed state
    journal.conn.execute("BEGIN IMMEDIATE")
    journal.conn.execute("INSERT INTO entries VALUES (?, 999, '{}', 'now')", (game_id,))
    with Journal.in_state_dir(crashed) as reopened:
        loaded = reopened.load(board)
    assert loaded is not None and to_dict(loaded[1]) == to_dict(game)
    journal.conn.execute("ROLLBACK")
    journal.close()


def test_abandoned_transaction_is_rolled_back(tmp_path: Path, board: Board) -> None:
    game = Game.new(2, seed=8, board=board)
    journal = Journal.in_state_dir(tmp_path)
    game_id = journal.start(game)
    _play(game, 3, random.Random(3))
    journal.sync(game_id, game)
    expected = to_dict(game)
    # killed in the middle of a transaction: the connection is dropped without COMMIT
    journal.conn.execute("BEGIN IMMEDIATE")
    journal.conn.execute(
        "INSERT INTO entries VALUES (?, 9999, '{\"move\": \"bogus\"}', 'x')", (game_id,)
    )
    journal._conn = None  # abandoned, as a killed process leaves it
    with Journal.in_state_dir(tmp_path) as reopened:
        loaded = reopened.load(board)
    assert loaded is not None and to_dict(loaded[1]) == expected


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), actions=st.integers(0, 40), players=st.integers(2, 4))
def test_replay_equals_state_for_any_game(
    tmp_path_factory: pytest.TempPathFactory, board: Board, seed: int, actions: int, players: int
) -> None:
    game = Game.new(players, seed=seed, board=board)
    path = tmp_path_factory.mktemp("j")
    with Journal.in_state_dir(path) as journal:
        game_id = journal.start(game)
        rng = random.Random(seed)
        for _ in range(actions):
            _play(game, 1, rng)
            journal.sync(game_id, game)
    with Journal.in_state_dir(path) as journal:
        loaded = journal.load(board)
    assert loaded is not None and to_dict(loaded[1]) == to_dict(game)


def test_new_game_archives_the_old_one(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        first = journal.start(Game.new(2, seed=1, board=board))
        second = journal.start(Game.new(4, seed=2, board=board))
        games = journal.games()
        current = journal.current()
    assert [g[0] for g in games] == [first, second]
    assert games[0][3] is not None and games[1][3] is None  # archived, kept
    assert current is not None and current.id == second and current.setup["players"] == 4


def test_garbage_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    content = b"this is not a database at all" * 100
    path.write_bytes(content)
    with pytest.raises(StateError, match=str(path)):
        Journal(path)
    assert path.read_bytes() == content


def test_foreign_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StateError, match="another program"):
        Journal(path)
    assert path.read_bytes() == before


def test_damaged_database_is_refused(tmp_path: Path, board: Board) -> None:
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        journal.start(Game.new(2, seed=1, board=board))
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page after the header, destroyed
    path.write_bytes(bytes(data))
    with pytest.raises(StateError, match=str(path)):
        Journal(path)


def test_board_mismatch_is_an_error(tmp_path: Path, board: Board) -> None:
    import dataclasses

    with Journal.in_state_dir(tmp_path) as journal:
        journal.start(Game.new(2, seed=1, board=board))
        other = dataclasses.replace(board, name="homemade")
        with pytest.raises(StateError, match="homemade"):
            journal.load(other)


def test_rewrite_takes_back_the_tail_and_stores_the_new_one(tmp_path: Path, board: Board) -> None:
    game = Game.new(2, seed=3, board=board)
    rng = random.Random(2)
    with Journal.in_state_dir(tmp_path) as journal:
        game_id = journal.start(game)
        _play(game, 12, rng)
        journal.sync(game_id, game)
        start = len(game.journal) - 4
        other = replay(record(game) | {"journal": game.journal[:start]}, board)
        _play(other, 6, random.Random(9))
        journal.rewrite(game_id, start, other)
        with pytest.raises(StateError, match="cannot rewrite"):
            journal.rewrite(game_id, len(other.journal), other)
    with Journal.in_state_dir(tmp_path) as journal:
        loaded = journal.load(board)
    assert loaded is not None and to_dict(loaded[1]) == to_dict(other)


def _journal_of_a_few_moves(state: Path, board: Board) -> None:
    game = Game.new(2, seed=4, board=board)
    with Journal.in_state_dir(state) as journal:
        game_id = journal.start(game)
        _play(game, 4, random.Random(2))
        journal.sync(game_id, game)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "maximum recursion"),  # JSON nested thousands deep
        ('{"settled": "3"}', "settled entry"),  # a settled row that names no row
        ('{"settled": true}', "settled entry"),
        ('{"settled": 3, "move": 1}', "settled entry"),
    ],
)
def test_a_damaged_last_row_is_a_damaged_entry(
    tmp_path: Path, board: Board, row: str, problem: str
) -> None:
    _journal_of_a_few_moves(tmp_path, board)
    path = tmp_path / "bermuda.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE entries SET entry = ? WHERE seq = (SELECT MAX(seq) FROM entries)", (row,)
        )
    conn.close()
    with (
        Journal.in_state_dir(tmp_path) as journal,
        pytest.raises(StateError, match=rf"bermuda\.db: game 1: a damaged entry: {problem}"),
    ):
        journal.current()


@pytest.mark.parametrize("count", ["9" * 5000, "²", "-1", "1e3"])
def test_a_commit_count_that_is_no_count_is_said_at_open(
    tmp_path: Path, board: Board, count: str
) -> None:
    _journal_of_a_few_moves(tmp_path, board)
    path = tmp_path / "bermuda.db"
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'commits'", (count,))
    conn.close()
    before = path.read_bytes()
    with pytest.raises(
        StateError,
        match=r"bermuda\.db: the journal is damaged \(its commit "
        r"count .* is not a count\); nothing was changed",
    ):
        Journal.in_state_dir(tmp_path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("mark", ["9" * 5000, "²", "x"])
def test_a_commit_mark_that_is_no_count_is_no_evidence(
    tmp_path: Path, board: Board, mark: str
) -> None:
    _journal_of_a_few_moves(tmp_path, board)
    (tmp_path / "bermuda.db-commits").write_text(mark + "\n", encoding="utf-8")
    with Journal.in_state_dir(tmp_path) as journal:
        current = journal.current()
        assert current is not None and len(current.entries) >= 4


def test_a_journal_made_by_another_process_while_this_one_waited_is_read_as_made(
    tmp_path: Path, board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service starting makes the journal while `game show` (or a second reader) opens
    the same empty file: the reader saw no tables, then waited for the write lock the
    service held. Its own schema then finds the tables made: it reads the journal as made,
    never fails with "table meta already exists"."""
    db = tmp_path / "bermuda.db"
    game = Game.new(2, seed=3, board=board)
    with Journal(db) as made:  # the other process, done while this one waited
        game_id = made.start(game)
    looks = iter([set[str]()])  # what this one saw before it waited: no tables yet
    real = Journal._tables
    monkeypatch.setattr(Journal, "_tables", lambda self: next(looks, None) or real(self))
    with Journal(db) as journal:
        loaded = journal.load(board)
    assert loaded is not None and loaded[0] == game_id
