"""A state directory written before the journal's entries were typed still resumes, and is
written on byte for byte as before (tests/controller/saved/v1-journal-3p.json: a journal as
bermuda-hw wrote it at commit 4b6ef53, with every kind of entry and an undo row)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.controller.journal import DB_NAME, Journal
from bermuda_hw.controller.session import GameSession
from bermuda_hw.errors import StateError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.record import apply_entry, to_dict

BOARD = load_board()
SAVED = Path(__file__).parent / "saved" / "v1-journal-3p.json"
KINDS = ("roll", "move", "cloud", "set-ship", "set-cloud", "set-turn", "undo")


def _old_state_dir(state: Path) -> dict[str, Any]:
    """A state directory holding the saved journal's rows verbatim; the saved data."""
    data: dict[str, Any] = json.loads(SAVED.read_text(encoding="utf-8"))
    with Journal.in_state_dir(state):  # the schema and the meta of the format (version 1)
        pass
    with sqlite3.connect(state / DB_NAME) as conn:
        conn.executemany(
            "INSERT INTO games (id, board, setup, started_utc, finished_utc, outcome, "
            "archived_utc) VALUES (?, ?, ?, ?, ?, ?, ?)",
            data["games"],
        )
        conn.executemany(
            "INSERT INTO entries (game_id, seq, entry, at_utc) VALUES (?, ?, ?, ?)",
            data["entries"],
        )
    conn.close()
    return data


def test_the_saved_journal_holds_every_kind_of_entry() -> None:
    data = json.loads(SAVED.read_text(encoding="utf-8"))
    texts = [row[2] for row in data["entries"]]
    for kind in KINDS:
        assert any(f'"{kind}"' in text for text in texts), kind
    assert any('"provisional"' in text and '"move"' in text for text in texts)
    assert any('"provisional"' in text and '"cloud"' in text for text in texts)


def test_an_old_journal_resumes_as_it_was(tmp_path: Path) -> None:
    data = _old_state_dir(tmp_path)
    said: list[str] = []
    with Journal.in_state_dir(tmp_path) as journal:
        session = GameSession(
            BOARD,
            journal,
            players=4,
            seed=None,
            options=None,
            say=said.append,
            on_write_error=said.append,
        )
        assert session.load()
        stored = journal.stored(session.game_id)
    assert to_dict(session.current) == data["state"]
    assert said[-1].startswith("resuming game 1: ")
    # every row read back as it was written, undo row and undone rows included
    assert [json.dumps(dict(row), sort_keys=True) for row in stored.log] == [
        row[2] for row in data["entries"]
    ]


def test_an_old_journal_is_written_on_byte_for_byte(tmp_path: Path) -> None:
    data = _old_state_dir(tmp_path)
    with Journal.in_state_dir(tmp_path) as journal:
        loaded = journal.load(BOARD)
        assert loaded is not None
        game_id, game = loaded
        for entry in data["next"]:
            apply_entry(game, entry)
        journal.sync(game_id, game)
        rows = journal.conn.execute(
            "SELECT entry FROM entries WHERE game_id = ? AND seq >= ? ORDER BY seq",
            (game_id, len(data["entries"])),
        ).fetchall()
    assert [text for (text,) in rows] == data["next_rows"]
    assert game.journal[-len(data["next"]) :] == data["next"]


def test_a_row_of_the_wrong_shape_is_a_damaged_entry(tmp_path: Path) -> None:
    _old_state_dir(tmp_path)
    with sqlite3.connect(tmp_path / DB_NAME) as conn:
        conn.execute("UPDATE entries SET entry = '{\"move\": 3}' WHERE seq = 1")
    conn.close()
    with (
        Journal.in_state_dir(tmp_path) as journal,
        pytest.raises(StateError, match=r"bermuda\.db: game 1: a damaged entry: .*'move'"),
    ):
        journal.current()
