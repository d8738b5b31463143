"""The game journal: one SQLite database (WAL, synchronous FULL) that survives a power cut.

The database holds each game's header (board name, players, seed, options,
first player) and its journal: the engine's entries (`rules.record.record`), each
action of the table (a roll and its move, a cloud phase, a hand edit)
committed in one transaction. The game is rebuilt by replaying the journal
through the rules engine (`rules.record.replay`). A finished or abandoned game is
archived, never deleted. An undo is an entry of its own (`{"undo": [seq, ...]}`
naming the rows it takes back): rows are never deleted, and the game is
replayed from the entries that no undo names. A move or a cloud phase taken
provisionally (into places the camera could not see) and confirmed since is
named by a settled entry (`{"settled": seq}`), which a restart reads so as not
to check it or ask about it again.

SQLite in WAL mode with `synchronous=FULL` makes every commit durable before
`append` returns: after a crash or a power cut at any point the database
holds every committed action and nothing of an action that did not commit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict, cast, final

from bermuda_hw.controller.statedir import MARK_SUFFIX
from bermuda_hw.controller.statedir import owner_name as _owner
from bermuda_hw.controller.statedir import read_only_file_system as _read_only_file_system
from bermuda_hw.errors import BermudaError, StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.entries import GameRecord, JournalEntry, entry_from_json
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.record import record as game_record
from bermuda_hw.rules.record import replay

FORMAT = "bermuda-hw/journal"
VERSION = 1
DEFAULT_STATE_DIR = Path("/var/lib/bermuda-hw")
DB_NAME = "bermuda.db"
SQLITE_MAGIC = b"SQLite format 3\x00"
# Beside the database, `<name>-commits` holds the number of the last commit (meta 'commits'):
# a journal that holds fewer commits than that lost its WAL and is refused.

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
    """The wall clock, for the record only: the journal orders by id and seq, never by time."""
    return datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="seconds")


log = logging.getLogger("bermuda_hw.journal")


@final
class UndoEntry(TypedDict):
    """A row of the journal's own: the rows it takes back (by seq), never replayed."""

    undo: list[int]


@final
class SettledEntry(TypedDict):
    """A row of the journal's own: the row (by seq) of a move or a cloud phase taken
    provisionally (into places the camera could not see) that the table or the board has
    since confirmed, so that a restart does not check it or ask about it again. Never
    replayed."""

    settled: int


#: a row of the entries table: the game's journal entry, an undo naming rows taken back,
#: or a provisional row settled
Row = JournalEntry | UndoEntry | SettledEntry


def row_from_json(value: object) -> Row:
    """A row read back (JSON), checked: an undo entry, a settled entry, or a journal entry
    of its kind (`rules.entries.entry_from_json`); StateError otherwise."""
    if isinstance(value, Mapping) and "settled" in value:
        seq = value["settled"]
        if not isinstance(seq, int) or isinstance(seq, bool) or len(value) != 1:
            raise StateError(f"settled entry {value!r}: not one row")
        return cast(SettledEntry, value)
    if isinstance(value, Mapping) and "undo" in value:
        seqs = value["undo"]
        if not isinstance(seqs, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in seqs
        ):
            raise StateError(f"undo entry {value!r}: not a list of rows")
        return cast(UndoEntry, value)
    return entry_from_json(value)


@dataclass(frozen=True)
class StoredGame:
    """A game as the journal holds it: its header and its entries."""

    id: int
    board: str
    setup: Mapping[str, Any]
    entries: tuple[JournalEntry, ...]
    started_utc: str
    finished_utc: str | None
    outcome: str | None
    log: tuple[Row, ...] = ()  # every row: undo, settled and undone rows too

    def record(self) -> GameRecord:
        """In the shape of `rules.record.record`, for `rules.record.replay`."""
        return {"board": self.board, "setup": dict(self.setup), "journal": list(self.entries)}


def made(path: str | Path) -> bool:
    """Whether the journal at `path` was ever written. The daemon creates the file empty
    before SQLite writes its first page, and makes its tables in one transaction before
    it turns to WAL mode, with a rollback journal (`-journal`) beside it until that
    commits. A power cut before then leaves an empty file, or a rollback journal that
    still holds data: no journal yet, like none at all (the daemon's next start rolls
    that back and makes the journal anew)."""
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            return False
    except (FileNotFoundError, NotADirectoryError):
        return False
    rollback = path.with_name(path.name + "-journal")
    try:
        return rollback.stat().st_size == 0
    except FileNotFoundError:
        return True


class JournalWriteError(StateError):
    """The journal cannot take a commit (disk full, read-only, I/O error): nothing was written."""


class Journal:
    """The state database. `Journal(path)` opens it, creating it if the file does not exist."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self.mark_path = self.path.with_name(self.path.name + MARK_SUFFIX)
        #: why the last commit mark could not be written (None: it was)
        self.mark_problem: str | None = None
        if read_only:
            self._open_read_only()
            return
        # (a power cut in its first transaction leaves no journal yet: SQLite rolls that
        # back as it opens the file, and the tables are made anew)
        existed = made(self.path)
        if existed:
            self._check_magic()
        else:
            try:
                # private to the service's user: the journal, and beside it the page's token
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                # SQLite gives its -wal and -shm files the database file's permissions
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError as exc:
                raise StateError(
                    f"{self.path.parent}: cannot create the state directory: {exc.strerror or exc}"
                ) from exc
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            raise StateError(f"{self.path}: cannot open the journal: {exc}") from exc
        self._conn = conn
        try:
            tables = self._tables()
            if not tables:
                try:
                    with self._transaction():
                        for statement in _SCHEMA.split(";"):
                            if statement.strip():
                                conn.execute(statement)
                        conn.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
                        conn.execute("INSERT INTO meta VALUES ('version', ?)", (str(VERSION),))
                except JournalWriteError:
                    # another process (the service starting, beside `game show`) made the
                    # journal while this one waited for the write lock: it is read as made
                    tables = self._tables()
                    if not tables:
                        raise
            if tables:
                self._check_format(tables)
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise StateError(
                        f"{self.path}: the journal is damaged ({check}); nothing was changed"
                    )
                self.commits()  # a damaged count is said now, not at the next commit
                self._check_mark()
            # only a journal of ours (checked above) is switched to WAL
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StateError(f"{self.path}: the journal cannot use WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            self.close()
            raise StateError(
                f"{self.path}: not a readable bermuda-hw journal ({exc}); nothing was changed"
            ) from exc
        except BaseException:
            self.close()
            raise

    @classmethod
    def in_state_dir(cls, state_dir: str | Path, *, read_only: bool = False) -> Journal:
        return cls(Path(state_dir) / DB_NAME, read_only=read_only)

    def _open_read_only(self) -> None:
        """For commands that only show the record: nothing is written, so a journal on a file
        system turned read-only (after a disk error) can still be read."""
        if not made(self.path):
            raise StateError(f"{self.path}: no journal yet (the daemon has not written one)")
        self._check_magic()
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro"
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            if _read_only_file_system(self.path.parent) and not (
                wal.exists() and wal.with_name(self.path.name + "-shm").exists()
            ):
                # no WAL to read beside it: the database file is all there is
                uri += "&immutable=1"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5.0)
            self._conn = conn
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            self._check_format(tables)
            self.commits()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StateError(
                f"{self.path}: not a readable bermuda-hw journal ({exc}); nothing was changed"
            ) from exc
        except BaseException:
            self.close()
            raise

    # --- checks -------------------------------------------------------------------------

    def _check_magic(self) -> None:
        try:
            with self.path.open("rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise StateError(
                f"{self.path}: cannot read the journal: {exc.strerror or exc}"
            ) from exc
        if head != SQLITE_MAGIC:
            raise StateError(
                f"{self.path}: not an SQLite database (corrupt, or another "
                "program's file); nothing was changed"
            )

    def _check_format(self, tables: set[str]) -> None:
        assert self._conn is not None
        if not {"meta", "games", "entries"} <= tables:
            raise StateError(
                f"{self.path}: an SQLite database of another program (tables: "
                f"{', '.join(sorted(tables))}); nothing was changed"
            )
        meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise StateError(
                f"{self.path}: not a bermuda-hw journal (format "
                f"{meta.get('format')!r}); nothing was changed"
            )
        if meta.get("version") != str(VERSION):
            raise StateError(
                f"{self.path}: journal version {meta.get('version')} is not "
                f"supported (this program reads version {VERSION})"
            )

    def commits(self) -> int:
        """How many transactions this journal has committed."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'commits'").fetchone()
        if row is None:
            return 0
        count = _count(str(row[0]))
        if count is None:
            raise StateError(
                f"{self.path}: the journal is damaged (its commit count "
                f"{str(row[0])[:24]!r} is not a count); nothing was changed"
            )
        return count

    def _check_mark(self) -> None:
        try:
            text = self.mark_path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return  # no mark (a new or copied journal): nothing to compare with
        marked = _count(text)
        if marked is None:
            return  # a damaged mark is no evidence either way
        held = self.commits()
        if held < marked:
            raise StateError(
                f"{self.path}: the journal holds {held} commits but {marked} were made "
                f"(see {self.mark_path.name}): its -wal file was lost, and with it the last "
                "actions of the game; nothing was changed. Restore the files from a backup, or "
                f"remove {self.mark_path.name} to accept the journal as it is"
            )

    def _write_mark(self, commits: int) -> None:
        """Record the last commit's number beside the database (after it is durable)."""
        temporary = self.mark_path.with_name(self.mark_path.name + ".new")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(f"{commits}\n")
            os.replace(temporary, self.mark_path)
        except OSError as exc:
            # the game is safe (the commit is durable); only the check for a lost WAL at the
            # next start is off while the mark lags, so it is said once, not raised
            problem = f"{self.mark_path}: cannot write the commit mark: {exc.strerror or exc}"
            if problem != self.mark_problem:
                log.warning(
                    "%s; a WAL lost meanwhile would not be noticed at the next "
                    "start: fix the state directory's permissions or free space",
                    problem,
                )
            self.mark_problem = problem
        else:
            self.mark_problem = None

    # --- transactions -------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StateError(f"{self.path}: the journal is closed")
        return self._conn

    def _tables(self) -> set[str]:
        """The names of the database's tables (none: a journal still to be made)."""
        rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {str(row[0]) for row in rows}

    def _transaction(self) -> _Transaction:
        return _Transaction(self)

    def transaction(self) -> _Transaction:
        """One durable, counted transaction for another table of this database
        (`controller.history`): `with journal.transaction(): ...`."""
        return _Transaction(self)

    # --- games --------------------------------------------------------------------------

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """A damaged page found while reading is a refusal naming the file, not a crash."""
        try:
            yield
        except StateError:
            raise
        except (sqlite3.DatabaseError, TypeError, ValueError, RecursionError) as exc:
            # a damaged page, a row whose values are not of their column's kind, or JSON
            # nested thousands deep
            raise StateError(
                f"{self.path}: the journal is damaged ({exc}); nothing was changed"
            ) from exc

    def current(self) -> StoredGame | None:
        """The game that is not archived (in progress or finished), if any."""
        with self._reading():
            return self._current()

    def _current(self) -> StoredGame | None:
        row = self.conn.execute(
            "SELECT id FROM games WHERE archived_utc IS NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self._stored(int(row[0]))

    def stored(self, game_id: int) -> StoredGame:
        with self._reading():
            return self._stored(game_id)

    def _stored(self, game_id: int) -> StoredGame:
        row = self.conn.execute(
            "SELECT id, board, setup, started_utc, finished_utc, outcome FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise StateError(f"{self.path}: no game {game_id}")
        try:
            setup = json.loads(row[2])
        except (json.JSONDecodeError, RecursionError) as exc:
            raise StateError(f"{self.path}: game {game_id}: a damaged entry: {exc}") from exc
        log = self._log(game_id)
        entries = tuple(entry for _, entry in _effective(log))
        return StoredGame(
            int(row[0]),
            str(row[1]),
            setup,
            entries,
            str(row[3]),
            row[4],
            row[5],
            tuple(entry for _, entry in log),
        )

    def _log(self, game_id: int) -> list[tuple[int, Row]]:
        try:
            return [
                (int(seq), row_from_json(json.loads(text)))
                for seq, text in self.conn.execute(
                    "SELECT seq, entry FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
                )
            ]
        except (json.JSONDecodeError, RecursionError, StateError) as exc:
            raise StateError(f"{self.path}: game {game_id}: a damaged entry: {exc}") from exc

    def undo(self, game_id: int, count: int) -> list[JournalEntry]:
        """Take back the game's last `count` entries with an undo entry; the entries taken back.

        Nothing is deleted: the undo entry names the rows it takes back, and a
        finished game that an undo reopens is no longer finished.
        """
        with self._transaction():
            log = self._log(game_id)
            effective = _effective(log)
            if count < 1 or count > len(effective):
                raise StateError(
                    f"{self.path}: game {game_id}: cannot undo {count} of {len(effective)} entries"
                )
            undone = effective[-count:]
            self._insert(game_id, len(log), [UndoEntry(undo=[seq for seq, _ in undone])])
            self.conn.execute(
                "UPDATE games SET finished_utc = NULL, outcome = NULL WHERE id = ?", (game_id,)
            )
        return [entry for _, entry in undone]

    def rewrite(self, game_id: int, start: int, game: Game) -> None:
        """Take back the game's entries from `start` on and store the game's own from there,
        in one transaction (a crash keeps either the old entries or the new ones).

        Nothing is deleted: an undo entry names the rows taken back.
        """
        with self._transaction():
            log = self._log(game_id)
            effective = _effective(log)
            if not 0 <= start < len(effective):
                raise StateError(
                    f"{self.path}: game {game_id}: cannot rewrite from entry "
                    f"{start} of {len(effective)}"
                )
            self._insert(game_id, len(log), [UndoEntry(undo=[seq for seq, _ in effective[start:]])])
            self._insert(game_id, len(log) + 1, game.journal[start:])
            self.conn.execute(
                "UPDATE games SET finished_utc = NULL, outcome = NULL WHERE id = ?", (game_id,)
            )
        if game.is_over():
            self.finish(game_id, str(game.outcome()))

    def settle(self, game_id: int, index: int) -> None:
        """Record that the game's entry `index` (of those that count), taken provisionally,
        is confirmed (`SettledEntry`)."""
        with self._transaction():
            log = self._log(game_id)
            effective = _effective(log)
            if not 0 <= index < len(effective):
                raise StateError(
                    f"{self.path}: game {game_id}: no entry {index} of {len(effective)} to settle"
                )
            self._insert(game_id, len(log), [SettledEntry(settled=effective[index][0])])

    def settled(self, game_id: int) -> frozenset[int]:
        """The indices of the game's entries (of those that count) that are settled."""
        with self._reading():
            log = self._log(game_id)
        named = {cast(SettledEntry, row)["settled"] for _, row in log if "settled" in row}
        return frozenset(i for i, (seq, _) in enumerate(_effective(log)) if seq in named)

    def games(self) -> list[tuple[int, str, str | None, str | None]]:
        """Every game: id, started, finished, archived (UTC, ISO 8601)."""
        with self._reading():
            return [
                (int(r[0]), str(r[1]), r[2], r[3])
                for r in self.conn.execute(
                    "SELECT id, started_utc, finished_utc, archived_utc FROM games ORDER BY id"
                )
            ]

    def start(self, game: Game) -> int:
        """Archive the current game (if any) and store a new one with its journal so far."""
        record = game_record(game)
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET archived_utc = ? WHERE archived_utc IS NULL", (_now(),)
            )
            cursor = self.conn.execute(
                "INSERT INTO games (board, setup, started_utc) VALUES (?, ?, ?)",
                (record["board"], json.dumps(record["setup"], sort_keys=True), _now()),
            )
            game_id = int(cursor.lastrowid or 0)
            self._insert(game_id, 0, record["journal"])
        return game_id

    def append(self, game_id: int, entries: Sequence[JournalEntry]) -> None:
        """Add entries to a game's journal in one transaction (all or nothing)."""
        if not entries:
            return
        with self._transaction():
            count = self._count(game_id)
            self._insert(game_id, count, entries)

    def sync(self, game_id: int, game: Game) -> int:
        """Append the game's journal entries that the database does not hold yet; how many."""
        count = self._count(game_id)
        held = len(_effective(self._log(game_id)))
        new = game.journal[held:]
        if new:
            with self._transaction():
                if self._count(game_id) != count:
                    raise StateError(f"{self.path}: game {game_id} changed under us")
                self._insert(game_id, count, new)
        if game.is_over():
            self.finish(game_id, str(game.outcome()))
        return len(new)

    def finish(self, game_id: int, outcome: str) -> None:
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET finished_utc = ?, outcome = ? "
                "WHERE id = ? AND finished_utc IS NULL",
                (_now(), outcome, game_id),
            )

    def archive(self, game_id: int) -> None:
        with self._transaction():
            self.conn.execute(
                "UPDATE games SET archived_utc = ? WHERE id = ? AND archived_utc IS NULL",
                (_now(), game_id),
            )

    def load(self, board: Board) -> tuple[int, Game] | None:
        """The current game rebuilt by replaying its journal, or None if there is none."""
        stored = self.current()
        if stored is None:
            return None
        if stored.board != board.name:
            raise StateError(
                f"{self.path}: game {stored.id} is played on board "
                f"{stored.board!r}, not {board.name!r} (pass --board)"
            )
        try:
            game = replay(stored.record(), board)
        except StateError as exc:
            raise StateError(f"{self.path}: game {stored.id}: {exc}") from exc
        except (BermudaError, TypeError, KeyError, ValueError, AttributeError) as exc:
            raise StateError(
                f"{self.path}: game {stored.id} cannot be replayed ({exc!r}); nothing was changed"
            ) from exc
        return stored.id, game

    def _count(self, game_id: int) -> int:
        with self._reading():
            row = self.conn.execute(
                "SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
        return int(row[0])

    def _insert(self, game_id: int, first: int, entries: Sequence[Row]) -> None:
        now = _now()
        self.conn.executemany(
            "INSERT INTO entries (game_id, seq, entry, at_utc) VALUES (?, ?, ?, ?)",
            [
                (game_id, first + i, json.dumps(dict(e), sort_keys=True), now)
                for i, e in enumerate(entries)
            ],
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


def _effective(log: Sequence[tuple[int, Row]]) -> list[tuple[int, JournalEntry]]:
    """The rows that count: neither a row of the journal's own (an undo, a settled entry)
    nor a row that an undo names."""
    undone: set[int] = set()
    for _, row in log:
        if "undo" in row:  # (mypy narrows `not in` here, not `in`: hence the cast)
            undone.update(cast(UndoEntry, row)["undo"])
    return [
        (seq, entry)
        for seq, entry in log
        if "undo" not in entry and "settled" not in entry and seq not in undone
    ]


class _Transaction:
    """`BEGIN IMMEDIATE` ... `COMMIT`, or `ROLLBACK` on an exception.

    Each commit counts itself in meta 'commits' and, once durable, writes the
    count to the mark file. A failure to write (disk full, read-only files, I/O
    error) rolls back and raises JournalWriteError naming the file.
    """

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.conn = journal.conn

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is not None:
            self._rollback()
            error = rest[0] if rest else None
            if isinstance(error, sqlite3.Error):
                raise self._error(error) from error
            return
        try:
            commits = self.journal.commits() + 1
            self.conn.execute(
                "INSERT INTO meta VALUES ('commits', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(commits),),
            )
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise self._error(exc) from exc
        self.journal._write_mark(commits)

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            # SQLite may have rolled back already (after SQLITE_FULL, for instance)
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def _error(self, exc: sqlite3.Error) -> JournalWriteError:
        path = self.journal.path
        text = str(exc)
        if _read_only_file_system(path.parent):
            hint = (
                f"the file system holding {path.parent} is read-only (after a disk error "
                "it is remounted so: see `dmesg`); check the disk (the SD card), then "
                "restart the table"
            )
        elif "readonly" in text or "read-only" in text:
            hint = (
                f"the journal or its directory is read-only for this user (owner "
                f"{_owner(path)}); fix the permissions of {path.parent}"
            )
        elif "full" in text:
            hint = f"the disk holding {path.parent} is full; free some space"
        else:
            hint = "check the disk and the permissions of the state directory"
        return JournalWriteError(
            f"{path}: cannot write the journal ({text}): {hint}; the game "
            "is kept up to its last commit"
        )


def _count(text: str) -> int | None:
    """A count written as ASCII digits (at most 18 of them), else None."""
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        return None
    return int(text)
