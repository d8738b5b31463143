"""The state directory: one writer at a time, and the checks made before anything moves.

The daemon (and `game new`) hold an exclusive `fcntl.flock` lock on
`<state-dir>/bermuda.lock` while they write the journal; the lock file holds
the holder's pid, so that a second writer is refused with a message naming
the first. The kernel drops the lock when its holder dies, even by `kill -9`.

Before the journal is opened, `check_access` makes sure the directory can be
read and written and the journal file written by this user: a journal left
by `sudo` is refused at start, naming the file, its owner and the fix, instead
of failing at the first move.

Evidence that a game is being lost is refused, never started over: a 0-byte
`bermuda.db` beside a `-wal` file (the main file was lost or truncated), and
a journal that holds fewer commits than the state directory's commit mark (its
WAL was deleted while the daemon ran).
"""

from __future__ import annotations

import errno
import fcntl
import os
import pwd
from pathlib import Path
from types import TracebackType
from typing import IO

from bermuda_hw.errors import StateError, describe_os_error

LOCK_NAME = "bermuda.lock"
#: the commit mark beside a journal: its file name plus this (`bermuda.db-commits`)
MARK_SUFFIX = "-commits"
DAEMON_INFO_NAME = "daemon.json"


class StateLockedError(StateError):
    """Another process holds the state directory's lock; `pid` is its id, if known."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid


def owner_name(path: Path) -> str:
    """The name of the user who owns a file ("unknown" if it cannot be said)."""
    try:
        uid = path.stat().st_uid
    except OSError:
        return "unknown"
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _me() -> str:
    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _exists(path: Path) -> bool:
    """Whether a path exists; a directory above it that this user cannot enter is an error."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        parent = path.parent
        while parent != parent.parent and not os.access(parent, os.X_OK):
            parent = parent.parent
        raise StateError(
            f"{path}: cannot be reached by {_me()} ({exc.strerror or exc}; "
            f"{parent} is owned by {owner_name(parent)}); fix the permissions of "
            "the directories above it, or use another --state-dir"
        ) from None
    return True


def check_path(state_dir: Path, option: str = "--state-dir") -> Path:
    """A state directory given on the command line: not empty, not a file."""
    if not str(state_dir).strip():
        raise StateError(f"{option}: must name a directory, not an empty string")
    if _exists(state_dir) and not state_dir.is_dir():
        raise StateError(f"{option}: {state_dir} is not a directory")
    for parent in state_dir.parents:  # a directory cannot be made under a file
        if _exists(parent):
            if not parent.is_dir():
                raise StateError(f"{option}: {state_dir} cannot be a directory: {parent} is a file")
            break
    return state_dir


def check_access(state_dir: Path, db_name: str, *, write: bool) -> None:
    """Refuse a state directory or journal this user cannot use (before anything moves)."""
    me = _me()
    if not _exists(state_dir):
        if not write:
            return
        parent = state_dir
        while not _exists(parent) and parent != parent.parent:
            parent = parent.parent
        if not os.access(parent, os.W_OK | os.X_OK):
            raise StateError(
                f"{state_dir}: cannot create the state directory: {parent} is "
                f"owned by {owner_name(parent)} and not writable by {me}; create it "
                f"with `sudo install -d -o {me} {state_dir}`"
            )
        return
    if not os.access(state_dir, os.R_OK | os.X_OK):
        raise StateError(
            f"{state_dir}: the state directory cannot be read by {me} (owned by "
            f"{owner_name(state_dir)}); fix: `sudo chown -R {me} {state_dir}`"
        )
    if write and read_only_file_system(state_dir):
        raise StateError(
            f"{state_dir}: the file system holding the state directory is "
            "read-only (after a disk error it is remounted so: see `dmesg`); "
            "nothing was changed: check the disk (the SD card), then make it "
            "writable again"
        )
    if write and not os.access(state_dir, os.W_OK):
        raise StateError(
            f"{state_dir}: the state directory cannot be written by {me} (owned "
            f"by {owner_name(state_dir)}); fix: `sudo chown -R {me} {state_dir}`"
        )
    names = (db_name, f"{db_name}-wal", f"{db_name}-shm", LOCK_NAME, f"{db_name}{MARK_SUFFIX}")
    for name in names:
        path = state_dir / name
        if not _exists(path):
            continue
        wanted = os.R_OK | (os.W_OK if write or name.endswith("-shm") else 0)
        if not os.access(path, wanted):
            action = "written" if write else "read"
            raise StateError(
                f"{path}: cannot be {action} by {me} (owned by {owner_name(path)}, "
                f"perhaps made with sudo); fix: `sudo chown -R {me} {state_dir}`"
            )


def check_evidence(state_dir: Path, db_name: str) -> None:
    """Refuse a journal whose main file is empty while its WAL holds data."""
    db = state_dir / db_name
    wal = state_dir / f"{db_name}-wal"
    try:
        db_size = db.stat().st_size if db.exists() else None
        wal_size = wal.stat().st_size if wal.exists() else 0
    except OSError as exc:
        raise StateError(f"{db}: cannot be inspected: {exc.strerror or exc}") from exc
    if wal_size > 0 and not db_size:
        state = "is empty" if db_size == 0 else "is missing"
        raise StateError(
            f"{db}: the journal {state} but {wal.name} holds {wal_size} bytes of "
            "a game: the main file was lost; nothing was changed. Restore "
            f"{db.name} from a backup, or move both files away to start over"
        )


class StateLock:
    """An exclusive lock on a state directory, held from `acquire()` to `release()`."""

    def __init__(self, state_dir: Path, purpose: str) -> None:
        self.state_dir = state_dir
        self.path = state_dir / LOCK_NAME
        self.purpose = purpose
        self._file: IO[str] | None = None

    def acquire(self) -> StateLock:
        """Take the lock now, or raise StateLockedError naming its holder."""
        if self._file is not None:
            return self
        try:
            self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            file = os.fdopen(fd, "a+", encoding="utf-8")  # held until release
        except OSError as exc:
            raise StateError(
                f"{self.path}: cannot open the state directory's lock: {exc.strerror or exc}"
            ) from exc
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            file.seek(0)
            text = file.read().strip()
            file.close()
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise StateError(
                    f"{self.path}: cannot lock the state directory: {exc.strerror or exc}"
                ) from exc
            pid = holder_pid(text)
            who = f"process {pid}" if pid is not None else "another process"
            what = text.split(" ", 1)[1] if " " in text else "a writer"
            raise StateLockedError(
                f"{self.state_dir}: {who} ({what}) holds this state directory; one writer at "
                "a time: stop it first (systemctl stop bermuda-hw) or use another --state-dir",
                pid,
            ) from None
        try:
            os.ftruncate(file.fileno(), 0)
            # straight to the descriptor: nothing is left in a buffer to fail again at close
            os.write(file.fileno(), f"{os.getpid()} {self.purpose}\n".encode())
        except OSError as exc:  # a full disk: not even the holder's pid can be written
            file.close()
            raise StateError(
                f"{self.path}: cannot write the state directory's lock: "
                f"{describe_os_error(exc).removeprefix(f'{self.path}: ')}; "
                "nothing was changed"
            ) from exc
        self._file = file
        return self

    def release(self) -> None:
        """Drop the lock (releasing twice is fine)."""
        if self._file is not None:
            try:
                self._file.seek(0)
                self._file.truncate()
            except OSError:
                pass
            self._file.close()  # closing the descriptor drops the flock
            self._file = None

    def __enter__(self) -> StateLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def holder_pid(text: str) -> int | None:
    """The pid written at the start of a lock file's text, if there is one."""
    first = text.split(" ", 1)[0] if text else ""
    return int(first) if first.isdigit() else None


def lock_holder(state_dir: Path) -> int | None:
    """The pid of the process that holds the state directory's lock, or None if it is free."""
    try:
        with StateLock(state_dir, "probe"):
            return None
    except StateLockedError as exc:
        return exc.pid if exc.pid is not None else -1


def read_only_file_system(folder: Path) -> bool:
    """Whether the file system holding `folder` is mounted read-only."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False
