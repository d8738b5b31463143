"""The game journal: one SQLite database (WAL, synchronous FULL) that survives a power cut.

The database holds each game's header (board name, players, seed, options,
first player) and its journal: the engine's entries (`Game.record()`), each
action of the table (a roll and its move, a cloud phase, a hand edit)
committed in one transaction. The game is rebuilt by replaying the journal
through the rules engine (`Game.replay`). A finished or abandoned game is
archived, never deleted.

SQLite in WAL mode with `synchronous=FULL` makes every commit durable before
`append` returns: after a crash or a power cut at any point the database
holds every committed action and nothing of an action that did not commit.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game

FORMAT = "bermuda-hw/journal"
VERSION = 1
DEFAULT_STATE_DIR = Path("/var/lib/bermuda-hw")
DB_NAME = "bermuda.db"
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    board TEXT NOT NULL,
    setup TEXT NOT NULL,
    started_utc TEXT NOT NULL,
    finished_utc TEXT,
    outcome TEXT,
    archived_utc TEXT
);
CREATE TABLE entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at_utc TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class StoredGame:
    """A game as the journal holds it: its header and its entries."""

    id: int
    board: str
    setup: Mapping[str, Any]
    entries: tuple[Mapping[str, Any], ...]
    started_utc: str
    finished_utc: str | None
    outcome: str | None

    def record(self) -> dict[str, Any]:
        """In the shape of `Game.record()`, for `Game.replay`."""
        return {"board": self.board, "setup": dict(self.setup), "journal": list(self.entries)}


class Journal:
    """The state database. `Journal(path)` opens it, creating it if the file does not exist."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        existed = self.path.exists() and self.path.stat().st_size > 0
        if existed:
            self._check_magic()
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StateError(f"{self.path.parent}: cannot create the state directory: "
                                 f"{exc.strerror or exc}") from exc
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            raise StateError(f"{self.path}: cannot open the journal: {exc}") from exc
        self._conn = conn
        try:
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                with self._transaction():
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
                    conn.execute("INSERT INTO meta VALUES ('version', ?)", (str(VERSION),))
            else:
                self._check_format(tables)
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise StateError(f"{self.path}: the journal is damaged ({check}); "
                                     "nothing was changed")
            # only a journal of ours (checked above) is switched to WAL
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StateError(f"{self.path}: the journal cannot use WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StateError(f"{self.path}: not a readable bermuda-hw journal ({exc}); "
                             "nothing was changed") from exc
        except BaseException:
            self.close()
            raise

    @classmethod
    def in_state_dir(cls, state_dir: str | Path) -> Journal:
        return cls(Path(state_dir) / DB_NAME)

    # --- checks -------------------------------------------------------------------------

    def _check_magic(self) -> None:
        try:
            with self.path.open("rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise StateError(f"{self.path}: cannot read the journal: "
                             f"{exc.strerror or exc}") from exc
        if head != SQLITE_MAGIC:
            raise StateError(f"{self.path}: not an SQLite database (corrupt, or another "
                             "program's file); nothing was changed")

    def _check_format(self, tables: set[str]) -> None:
        assert self._conn is not None
        if not {"meta", "games", "entries"} <= tables:
            raise StateError(f"{self.path}: an SQLite database of another program (tables: "
                             f"{', '.join(sorted(tables))}); nothing was changed")
        meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise StateError(f"{self.path}: not a bermuda-hw journal (format "
                             f"{meta.get('format')!r}); nothing was changed")
        if meta.get("version") != str(VERSION):
            raise StateError(f"{self.path}: journal version {meta.get('version')} is not "
                             f"supported (this program reads version {VERSION})")

    # --- transactions -------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StateError(f"{self.path}: the journal is closed")
        return self._conn

    def _transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    # --- games --------------------------------------------------------------------------

    def current(self) -> StoredGame | None:
        """The game that is not archived (in progress or finished), if any."""
        row = self.conn.execute(
            "SELECT id FROM games WHERE archived_utc IS NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self.stored(int(row[0]))

    def stored(self, game_id: int) -> StoredGame:
        row = self.conn.execute(
            "SELECT id, board, setup, started_utc, finished_utc, outcome FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise StateError(f"{self.path}: no game {game_id}")
        try:
            setup = json.loads(row[2])
            entries = tuple(json.loads(text) for (text,) in self.conn.execute(
                "SELECT entry FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)))
        except json.JSONDecodeError as exc:
            raise StateError(f"{self.path}: game {game_id}: a damaged entry: {exc}") from exc
        return StoredGame(int(row[0]), str(row[1]), setup, entries, str(row[3]), row[4], row[5])

    def games(self) -> list[tuple[int, str, str | None, str | None]]:
        """Every game: id, started, finished, archived (UTC, ISO 8601)."""
        return [(int(r[0]), str(r[1]), r[2], r[3]) for r in self.conn.execute(
            "SELECT id, started_utc, finished_utc, archived_utc FROM games ORDER BY id")]

    def start(self, game: Game) -> int:
        """Archive the current game (if any) and store a new one with its journal so far."""
        record = game.record()
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET archived_utc = ? WHERE archived_utc IS NULL", (_now(),))
            cursor = self.conn.execute(
                "INSERT INTO games (board, setup, started_utc) VALUES (?, ?, ?)",
                (record["board"], json.dumps(record["setup"], sort_keys=True), _now()),
            )
            game_id = int(cursor.lastrowid or 0)
            self._insert(game_id, 0, record["journal"])
        return game_id

    def append(self, game_id: int, entries: Sequence[Mapping[str, Any]]) -> None:
        """Add entries to a game's journal in one transaction (all or nothing)."""
        if not entries:
            return
        with self._transaction():
            count = self._count(game_id)
            self._insert(game_id, count, entries)

    def sync(self, game_id: int, game: Game) -> int:
        """Append the game's journal entries that the database does not hold yet; how many."""
        count = self._count(game_id)
        new = game.journal[count:]
        if new:
            with self._transaction():
                if self._count(game_id) != count:
                    raise StateError(f"{self.path}: game {game_id} changed under us")
                self._insert(game_id, count, new)
        if game.is_over():
            self.finish(game_id, str(game.outcome()))
        return len(new)

    def rewind(self, game_id: int, count: int) -> int:
        """Keep only a game's first `count` entries (the referee took back a move that the
        board contradicts); how many were removed."""
        with self._transaction():
            cursor = self.conn.execute(
                "DELETE FROM entries WHERE game_id = ? AND seq >= ?", (game_id, count))
            self.conn.execute(
                "UPDATE games SET finished_utc = NULL, outcome = NULL WHERE id = ?", (game_id,))
        return int(cursor.rowcount)

    def finish(self, game_id: int, outcome: str) -> None:
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET finished_utc = ?, outcome = ? "
                "WHERE id = ? AND finished_utc IS NULL", (_now(), outcome, game_id))

    def archive(self, game_id: int) -> None:
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET archived_utc = ? WHERE id = ? AND archived_utc IS NULL",
                (_now(), game_id))

    def load(self, board: Board) -> tuple[int, Game] | None:
        """The current game rebuilt by replaying its journal, or None if there is none."""
        stored = self.current()
        if stored is None:
            return None
        if stored.board != board.name:
            raise StateError(f"{self.path}: game {stored.id} is played on board "
                             f"{stored.board!r}, not {board.name!r} (pass --board)")
        try:
            game = Game.replay(stored.record(), board)
        except StateError as exc:
            raise StateError(f"{self.path}: game {stored.id}: {exc}") from exc
        return stored.id, game

    def _count(self, game_id: int) -> int:
        row = self.conn.execute(
            "SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,)).fetchone()
        return int(row[0])

    def _insert(self, game_id: int, first: int, entries: Sequence[Mapping[str, Any]]) -> None:
        now = _now()
        self.conn.executemany(
            "INSERT INTO entries (game_id, seq, entry, at_utc) VALUES (?, ?, ?, ?)",
            [(game_id, first + i, json.dumps(dict(e), sort_keys=True), now)
             for i, e in enumerate(entries)],
        )

    def close(self) -> None:
        """Close the database (closing twice is fine)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Transaction:
    """`BEGIN IMMEDIATE` ... `COMMIT`, or `ROLLBACK` on an exception."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
