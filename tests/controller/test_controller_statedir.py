"""One journal, one writer: the state directory's lock, its checks at start, lost files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.cli import main
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.statedir import StateLock, lock_holder
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.record import replay, to_dict

MakeTable = Callable[..., Any]
CLI = "import sys; from bermuda_hw.cli import main; sys.exit(main())"


def _journal_with_a_game(state: Path) -> Game:
    game = Game.new(2, seed=5)
    game.set_die(3)
    game.push(game.legal_moves()[0])
    with Journal.in_state_dir(state) as journal:
        game_id = journal.start(Game.new(2, seed=5))
        journal.sync(game_id, game)
    return game


def test_a_second_daemon_and_game_new_are_refused_naming_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from bermuda_hw.controller.statedir import StateLock; "
            f"lock = StateLock(Path({str(state)!r}), 'bermuda-hw run').acquire(); "
            "print('locked', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert lock_holder(state) == holder.pid
        assert main(["run", "--simulate", "--state-dir", str(state)]) == 1
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and "one writer at a time" in err
        assert not (state / "bermuda.db").exists()  # nothing was opened, nothing moved
        assert main(["game", "new", "--players", "2", "--state-dir", str(state)]) == 1
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and "daemon" in err
    finally:
        holder.kill()
        holder.wait()
    # the kernel drops the lock with its holder, even after kill -9
    assert lock_holder(state) is None
    assert main(["game", "new", "--players", "2", "--state-dir", str(state)]) == 0


def test_the_lock_is_released_and_taken_again(tmp_path: Path) -> None:
    with StateLock(tmp_path, "first"):
        assert lock_holder(tmp_path) == os.getpid()
    assert lock_holder(tmp_path) is None
    with StateLock(tmp_path, "second"):
        pass


def test_run_simulate_never_defaults_to_the_production_state_dir(
    table_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    production = table_dir / "production"
    production.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(production))
    assert main(["run", "--simulate", "--players", "2", "--seed", "3", "--max-rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert list(production.iterdir()) == []
    line = next(x for x in out.splitlines() if x.startswith("state directory: "))
    used = Path(line.split()[2])
    try:
        assert (used / "bermuda.db").exists()
        assert main(["game", "show", "--state-dir", str(used)]) == 0
    finally:
        shutil.rmtree(used, ignore_errors=True)


def test_an_empty_database_beside_its_wal_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bermuda.db").write_bytes(b"")
    (tmp_path / "bermuda.db-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(4092))
    for argv in (["run", "--simulate"], ["game", "show"], ["game", "new"]):
        assert main([*argv, "--state-dir", str(tmp_path)]) == 1
        err = capsys.readouterr().err
        assert "bermuda.db" in err and "bermuda.db-wal" in err and "nothing was changed" in err
    assert (tmp_path / "bermuda.db").stat().st_size == 0  # the evidence is left alone
    assert (tmp_path / "bermuda.db-wal").stat().st_size == 4096


def test_an_empty_database_alone_is_a_journal_not_yet_made(tmp_path: Path) -> None:
    # the daemon creates the file empty before SQLite writes to it; a power cut between
    # the two leaves just that, and the next start makes the journal in it
    (tmp_path / "bermuda.db").touch(mode=0o600)
    with Journal.in_state_dir(tmp_path) as journal:
        game_id = journal.start(Game.new(2, seed=5))
    with Journal.in_state_dir(tmp_path, read_only=True) as journal:
        loaded = journal.load(Game.new(2, seed=5).board)
    assert loaded is not None and loaded[0] == game_id


def test_a_power_cut_in_the_journals_first_write_leaves_no_journal_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The journal's tables are made in one transaction before it turns to WAL mode: a
    power cut in it leaves pages of the database written (not its header) and a rollback
    journal beside it. That is no journal yet, for `game show` as for the daemon, which
    rolls it back and makes the journal (before, it refused the file as foreign)."""
    script = (
        "import os, sqlite3; "
        f"os.chdir({str(tmp_path)!r}); "
        "os.close(os.open('bermuda.db', os.O_CREAT | os.O_WRONLY, 0o600)); "
        "c = sqlite3.connect('bermuda.db', isolation_level=None); "
        "c.execute('PRAGMA cache_size=1'); c.execute('BEGIN IMMEDIATE'); "
        "c.execute('CREATE TABLE meta(key, value)'); "
        "[c.execute('INSERT INTO meta VALUES (?, ?)', (i, 'x' * 500)) for i in range(2000)]; "
        "os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert (tmp_path / "bermuda.db").stat().st_size > 0
    assert (tmp_path / "bermuda.db-journal").stat().st_size > 0
    assert main(["game", "show", "--state-dir", str(tmp_path)]) == 1
    assert "no journal yet" in capsys.readouterr().err
    with Journal.in_state_dir(tmp_path) as journal:
        game_id = journal.start(Game.new(2, seed=5))
        assert [g[0] for g in journal.games()] == [game_id]


def test_a_wal_deleted_while_running_is_refused_not_rolled_back(tmp_path: Path) -> None:
    script = (
        "import os; from pathlib import Path; "
        "from bermuda_hw.controller.journal import Journal; "
        "from bermuda_hw.rules.game import Game, Phase; "
        f"state = Path({str(tmp_path)!r}); "
        "journal = Journal.in_state_dir(state); game = Game.new(2, seed=5); "
        "gid = journal.start(game); game.set_die(3); game.push(game.legal_moves()[0]); "
        "journal.sync(gid, game); os.remove(state / 'bermuda.db-wal'); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    with pytest.raises(Exception, match=r"holds \d+ commits but \d+ were made.*-wal"):
        Journal.in_state_dir(tmp_path)


def test_state_dir_values_that_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    cases = [
        (["run", "--simulate", "--state-dir", ""], "--state-dir"),
        (["game", "show", "--state-dir", ""], "--state-dir"),
        (["run", "--simulate", "--state-dir", str(file)], "not a directory"),
        (["run", "--simulate", "--speed", "nan"], "--speed"),
        (["run", "--simulate", "--speed", "1e-300"], "--speed"),
        (["run", "--simulate", "--speed", "-1"], "--speed"),
        (["run", "--simulate", "--max-rounds", "-1"], "--max-rounds"),
    ]
    for argv, named in cases:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: usage error
            code = int(exc.code or 0)
        err = capsys.readouterr().err
        assert code in (1, 2), argv
        assert named in err and "Traceback" not in err, (argv, err)


def test_run_says_that_a_journalled_game_resumes(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _journal_with_a_game(table_dir)
    assert (
        main(
            [
                "run",
                "--simulate",
                "--players",
                "3",
                "--seed",
                "9",
                "--max-rounds",
                "1",
                "--state-dir",
                str(table_dir),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "resumes as it is" in out
        and "--players, --seed and --computer apply only to a new game" in out
    )


def test_options_before_the_subcommand_are_not_silently_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--players", "3", "game", "new", "--state-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--players" in err and "after" in err
    assert not (tmp_path / "bermuda.db").exists()


def _as_nobody(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            CLI,
            *argv,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="checks another user's view of a root-owned state directory",
)


@pytest.fixture
def open_dir() -> Any:
    """A directory every user can reach (pytest's own are private to their owner)."""
    import tempfile

    probe = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            "import bermuda_hw",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:  # e.g. a checkout in a folder private to root
        pytest.skip(
            "the unprivileged user cannot run this checkout's Python: "
            + (probe.stderr.strip().splitlines() or ["?"])[-1]
        )

    path = Path(tempfile.mkdtemp(prefix="bermuda-hw-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@needs_root
def test_a_journal_left_by_sudo_is_refused_at_start_naming_owner_and_fix(open_dir: Path) -> None:
    state = open_dir / "state"
    state.mkdir()
    _journal_with_a_game(state)
    state.chmod(0o777)  # the directory is writable, the journal (root's, 0644) is not
    for name in os.listdir(state):
        (state / name).chmod(0o644)
    result = _as_nobody(["run", "--simulate", "--state-dir", str(state)])
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "bermuda.db" in result.stderr and "root" in result.stderr
    assert "chown" in result.stderr
    assert "homing" not in result.stdout  # refused before anything moved


@needs_root
def test_an_unreadable_state_dir_is_a_clear_error_for_game_show(open_dir: Path) -> None:
    state = open_dir / "state"
    state.mkdir()
    _journal_with_a_game(state)
    state.chmod(0o700)
    result = _as_nobody(["game", "show", "--state-dir", str(state)])
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert str(state) in result.stderr and "root" in result.stderr and "chown" in result.stderr
    # a directory above it that cannot be entered: the same kind of answer
    result = _as_nobody(["game", "show", "--state-dir", str(state / "deeper")])
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "cannot be reached" in result.stderr and "root" in result.stderr


def test_a_full_disk_is_a_fault_that_keeps_the_game_and_a_press_recovers(
    make_table: MakeTable,
) -> None:
    table = make_table(seed=2)
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.READY, limit=600)
    conn = table.journal.conn
    conn.execute("CREATE TABLE filler (x BLOB)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLITE_FULL at the next new page
    with pytest.raises(sqlite3.OperationalError, match="full"):
        while True:  # take the room left in the pages there are
            conn.execute("INSERT INTO filler VALUES (zeroblob(100))")
    table.run_until(lambda: table.mode() is Mode.FAULT, limit=2000)
    assert "disk" in c.status.message and "full" in c.status.message
    assert str(table.journal.path) in c.status.message
    assert table.mover.stopped and not table.backend.rig.enabled
    held = list(table.journal.current().entries)  # every commit up to the fault, in order
    assert held == [dict(e) for e in c.game.journal[: len(held)]]
    assert len(held) < len(c.game.journal)  # the action that could not be written waits
    committed = len(held)
    table.steps(5)
    assert table.mode() is Mode.FAULT
    conn.execute("DROP TABLE filler")
    conn.execute("PRAGMA max_page_count = 1073741823")
    table.press()
    table.steps(1)
    assert table.mode() is not Mode.FAULT
    loaded = table.journal.load(table.board)
    assert loaded is not None and to_dict(loaded[1]) == to_dict(c.game)
    assert len(table.journal.current().entries) > committed


def test_sigterm_while_homing_exits_0_saying_stopping(table_dir: Path) -> None:
    state = table_dir / "state"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CLI,
            "run",
            "--simulate",
            "--speed",
            "1",
            "--players",
            "2",
            "--seed",
            "1",
            "--state-dir",
            str(state),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "homing the gantry" in line:  # not the state directory's path (this test's name)
                break
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "stopping" in out and "fault" not in out and "Traceback" not in err
    with Journal.in_state_dir(state) as journal:
        assert journal.current() is not None


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE games SET setup = '[1, 2]'",
        "UPDATE games SET setup = '{\"players\": 7}'",
        "UPDATE meta SET value = CAST(X'80ff' AS TEXT) WHERE key = 'format'",
        "UPDATE entries SET entry = CAST(X'80ff' AS TEXT)",
    ],
)
def test_a_journal_with_damaged_rows_is_refused_naming_the_file(
    tmp_path: Path, damage: str
) -> None:
    from bermuda_hw.errors import StateError
    from bermuda_hw.rules.boardfile import load_board

    _journal_with_a_game(tmp_path)
    with sqlite3.connect(tmp_path / "bermuda.db") as conn:
        conn.execute(damage)
    with pytest.raises(StateError, match=r"bermuda\.db"), Journal.in_state_dir(tmp_path) as journal:
        journal.load(load_board())


def test_a_simulated_table_left_in_a_fault_ends_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a fault the controller reads no frames: the players press spin on the table's
    clock, and a fault that never ends stops `run --simulate` with what it was, not a
    loop that never ends."""
    from bermuda_hw.cli import run as run_cli
    from bermuda_hw.controller import daemon
    from bermuda_hw.controller.homing import HomeRefused

    def refused(self: daemon.Controller) -> None:
        raise HomeRefused("before homing: the way is never clear (a test)")

    monkeypatch.setattr(daemon.Controller, "_home", refused)
    monkeypatch.setattr(run_cli, "STUCK_STEPS", 300)
    presses: list[int] = []
    real_recover = daemon.Controller.recover

    def recover(self: daemon.Controller) -> None:
        presses.append(1)
        real_recover(self)

    monkeypatch.setattr(daemon.Controller, "recover", recover)
    state = tmp_path / "state"
    assert (
        main(
            [
                "run",
                "--simulate",
                "--players",
                "2",
                "--seed",
                "3",
                "--no-web",
                "--state-dir",
                str(state),
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "no progress in 300 steps" in err and "stayed in a fault" in err
    assert "the way is never clear" in err and "run --simulate" in err
    assert len(presses) >= 2  # the players pressed spin to recover, more than once
    assert main(["game", "show", "--state-dir", str(state)]) == 0  # the game is kept


def test_game_show_finds_the_running_simulated_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bermuda_hw.cli.run import running_simulation, simulation_pointer

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    production = tmp_path / "production"
    production.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(production))
    sim = tmp_path / "bermuda-hw-sim-x"
    _journal_with_a_game(sim)
    simulation_pointer().write_text(f"{sim}\n", encoding="utf-8")
    assert running_simulation() is None  # named, but no simulation holds it: not running
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from bermuda_hw.controller.statedir import StateLock; "
            f"lock = StateLock(Path({str(sim)!r}), 'bermuda-hw run').acquire(); "
            "print('locked', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert running_simulation() == sim
        assert main(["game", "show"]) == 0
        captured = capsys.readouterr()
        assert f"the running simulated table: {sim}" in captured.err
        assert "round" in captured.out.lower()
    finally:
        holder.kill()
        holder.wait()


def test_game_undo_behind_a_running_daemon_without_its_page_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The daemon runs with no page (`run --no-web`): an undo written behind it would be
    re-appended by its next commit, so `game undo` refuses, naming it, and changes
    nothing."""
    state = tmp_path / "state"
    _journal_with_a_game(state)
    with Journal.in_state_dir(state) as journal:
        before = journal.current()
        assert before is not None
        entries = list(journal.stored(before.id).record()["journal"])
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from bermuda_hw.controller.statedir import StateLock; "
            f"lock = StateLock(Path({str(state)!r}), 'bermuda-hw run').acquire(); "
            "print('locked', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert main(["game", "undo", "--state-dir", str(state)]) == 1
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and "nothing was changed" in err
        assert "systemctl stop bermuda-hw" in err
    finally:
        holder.kill()
        holder.wait()
    with Journal.in_state_dir(state) as journal:
        assert list(journal.stored(before.id).record()["journal"]) == entries
    # with the daemon gone, the undo goes through
    assert main(["game", "undo", "--state-dir", str(state)]) == 0
    with Journal.in_state_dir(state) as journal:
        assert len(journal.stored(before.id).record()["journal"]) < len(entries)


def test_the_state_directory_and_journal_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert main(["game", "new", "--players", "2", "--seed", "1", "--state-dir", str(state)]) == 0
    assert state.stat().st_mode & 0o777 == 0o700
    written = [p for p in state.iterdir() if p.is_file()]
    assert {"bermuda.db", "bermuda.lock"} <= {p.name for p in written}
    for path in written:  # the journal, its WAL and the lock: no one else reads them
        assert path.stat().st_mode & 0o077 == 0, path.name


def test_an_unwritable_commit_mark_is_said_once_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    _journal_with_a_game(state)
    with Journal.in_state_dir(state) as journal:
        mark = journal.mark_path
        assert mark.name == "bermuda.db-commits" and mark.exists()
        mark.unlink()
        mark.mkdir()  # the mark cannot be replaced now
        current = journal.current()
        assert current is not None
        game = replay(journal.stored(current.id).record())
        for _ in range(3):  # a move, then the cloud's phase, then a move
            if game.phase is Phase.CLOUD:
                game.cloud_phase()
            else:
                game.set_die(1)
                game.push(game.legal_moves()[0])
            journal.sync(current.id, game)
        warnings = [r for r in caplog.records if "commit mark" in r.getMessage()]
        assert (
            len(warnings) == 1 and "lost meanwhile would not be noticed" in warnings[0].getMessage()
        )
        assert journal.mark_problem is not None
        assert len(journal.stored(current.id).record()["journal"]) == len(game.journal)


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    """A 4 MB tmpfs of the test's own (root only): filled, or remounted read-only, at will."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("a file system of the test's own needs root")
    yield disk
    subprocess.run(["mount", "-o", "remount,rw", str(disk)], capture_output=True)
    subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_full_disk_at_start_is_one_line_naming_the_file(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = small_disk / "state"
    assert main(["game", "new", "--state-dir", str(state), "--players", "2"]) == 0
    before = (state / "bermuda.db").read_bytes()
    with (small_disk / "filler").open("wb") as out, pytest.raises(OSError):
        while True:
            out.write(b"\0" * (1 << 20))
            out.flush()
    capsys.readouterr()
    for argv in (
        ["run", "--simulate", "--no-web", "--max-rounds", "1"],
        ["game", "new", "--players", "2"],
    ):
        assert main([*argv, "--state-dir", str(state)]) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert f"{state / 'bermuda.lock'}: " in err and "the disk is full" in err
    assert (state / "bermuda.db").read_bytes() == before


def test_a_read_only_file_system_is_named_and_the_record_still_shows(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = small_disk / "state"
    assert main(["game", "new", "--state-dir", str(state), "--players", "2"]) == 0
    assert subprocess.run(["mount", "-o", "remount,ro", str(small_disk)]).returncode == 0
    capsys.readouterr()
    for argv in (["run", "--simulate", "--no-web", "--max-rounds", "1"], ["game", "undo"]):
        assert main([*argv, "--state-dir", str(state)]) == 1
        err = capsys.readouterr().err
        assert "the file system holding the state directory is read-only" in err, err
        assert "chown" not in err
    assert main(["game", "show", "--state-dir", str(state), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["round"] == 1


@pytest.mark.parametrize("command", [["run", "--simulate"], ["token"], ["game", "show"]])
def test_a_state_directory_under_a_file_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    (tmp_path / "afile").write_text("not a directory")
    assert main([*command, "--state-dir", str(tmp_path / "afile" / "sub")]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'afile'} is a file" in err and "Errno" not in err and "sudo" not in err
