"""The game-level parts of the chaos campaign: kill -9, power cuts, injected faults, SIGTERM."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.status import Mode
from bermuda_hw.errors import BermudaError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.record import to_dict
from chaos.table import Table, fast_config

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from bermuda_hw.cli import main; sys.exit(main())"


@dataclass
class Row:
    """One line of the campaign's table."""

    part: str
    goal: str
    cases: int = 0
    passed: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def fail(self, note: str) -> None:
        self.notes.append(note)


def _entries(state_dir: Path) -> list[object]:
    with Journal.in_state_dir(state_dir) as journal:
        current = journal.current()
        return [] if current is None else list(current.entries)


# --- power cut of the journal -----------------------------------------------------------------


def power_cuts(cases: int, seed: int = 0) -> Row:
    """Copies of the database and its WAL torn at random byte offsets of a commit's writes.

    Each copy must open at a committed action (the one before the torn
    commit, or the torn commit itself if all of it reached the disk), or be
    refused with an error naming the file. Nothing committed earlier may be
    missing.
    """
    row = Row("journal power cut (torn WAL)", f"{cases}/{cases} at a commit or refused")
    rng = random.Random(seed)
    started = time.monotonic()
    board = load_board()
    folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-cut-"))
    try:
        live = folder / "live"
        snapshots: list[tuple[bytes, bytes, list[object]]] = []
        journal = Journal.in_state_dir(live)
        game = Game.new(2, seed=seed)
        game_id = journal.start(game)

        def snap() -> None:
            wal = live / "bermuda.db-wal"
            snapshots.append(
                (
                    (live / "bermuda.db").read_bytes(),
                    wal.read_bytes() if wal.exists() else b"",
                    list(journal.stored(game_id).entries),
                )
            )

        snap()
        while len(snapshots) < 30 and not game.is_over():
            if game.phase is Phase.CLOUD:
                game.cloud_phase(None)
            else:
                game.set_die(rng.randint(1, 6))
                game.push(rng.choice(game.legal_moves()))
            journal.sync(game_id, game)
            snap()
        journal.close()
        copy = folder / "copy"
        for _ in range(cases):
            row.cases += 1
            i = rng.randrange(len(snapshots) - 1)
            _db_a, wal_a, entries_a = snapshots[i]
            db_b, wal_b, entries_b = snapshots[i + 1]
            low = min(len(wal_a), len(wal_b))
            cut = rng.randint(low, len(wal_b))
            shutil.rmtree(copy, ignore_errors=True)
            copy.mkdir()
            (copy / "bermuda.db").write_bytes(db_b)
            (copy / "bermuda.db-wal").write_bytes(wal_b[:cut])
            try:
                with Journal.in_state_dir(copy) as reopened:
                    loaded = reopened.load(board)
                    held = list(reopened.stored(loaded[0]).entries) if loaded else []
            except BermudaError as exc:
                if "bermuda.db" in str(exc):
                    row.passed += 1
                else:
                    row.fail(f"refused without naming the file: {exc}")
                continue
            except Exception:
                row.fail(f"commit {i} cut {cut}: {traceback.format_exc(limit=-2)}")
                continue
            if held in (entries_a, entries_b):
                row.passed += 1
            else:
                row.fail(
                    f"commit {i} cut {cut}: {len(held)} entries, expected "
                    f"{len(entries_a)} or {len(entries_b)}"
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


# --- injected faults --------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """How to cause a fault at a random moment and how to remove its cause."""

    name: str
    inject: Callable[[Table], None]
    remove: Callable[[Table], None]


def _stall(t: Table) -> None:
    assert t.backend.camera is not None
    t.backend.camera.stall_after = 0


def _unstall(t: Table) -> None:
    t.backend.camera_missing = False


def _camera_gone(t: Table) -> None:
    _stall(t)
    t.backend.camera_missing = True  # reopening it fails too


def _estop(t: Table) -> None:
    t.backend.rig.press_estop(True)  # at its pin as wired (normally closed by default)


def _estop_release(t: Table) -> None:
    t.backend.rig.press_estop(False)


def _bus_errors(t: Table) -> None:
    t.backend.bus.fail_next(100_000)
    _estop_pulse(t)  # the next homing turns the cloud: the bus is used at once


def _bus_ok(t: Table) -> None:
    t.backend.bus.fail_next(0)


def _pca_gone(t: Table) -> None:
    t.backend.bus.remove(t.config.rotation.i2c_address)
    _estop_pulse(t)


def _pca_back(t: Table) -> None:
    t.backend.bus.restore(t.config.rotation.i2c_address)


def _estop_pulse(t: Table) -> None:
    """A brief e-stop: the fault and the recovery that follow re-home the rig."""
    _estop(t)
    _estop_release(t)


def _endstop(fault: str) -> Callable[[Table], None]:
    def inject(t: Table) -> None:
        t.backend.rig.break_endstop(random.choice(("x", "y")), fault)
        _estop_pulse(t)

    return inject


def _endstop_repair(t: Table) -> None:
    for axis in ("x", "y"):
        t.backend.rig.break_endstop(axis, "")


def _disk_full(t: Table) -> None:
    conn = t.journal.conn
    conn.execute("CREATE TABLE IF NOT EXISTS chaos_filler (x BLOB)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    try:
        while True:
            conn.execute("INSERT INTO chaos_filler VALUES (zeroblob(100))")
    except sqlite3.OperationalError:
        pass


def _disk_freed(t: Table) -> None:
    conn = t.journal.conn
    conn.execute("DROP TABLE IF EXISTS chaos_filler")
    conn.execute("PRAGMA max_page_count = 1073741823")


def _read_only(t: Table) -> None:
    t.journal.conn.execute("PRAGMA query_only = ON")


def _writable(t: Table) -> None:
    t.journal.conn.execute("PRAGMA query_only = OFF")


FAULTS = (
    Fault("camera stall", _stall, _unstall),
    Fault("camera disappears", _camera_gone, _unstall),
    Fault("I2C transfer errors", _bus_errors, _bus_ok),
    Fault("PCA9685 vanishes", _pca_gone, _pca_back),
    Fault("endstop never triggers", _endstop("open"), _endstop_repair),
    Fault("endstop stuck closed", _endstop("stuck"), _endstop_repair),
    Fault("e-stop", _estop, _estop_release),
    Fault("disk full (SQLITE_FULL)", _disk_full, _disk_freed),
    Fault("read-only journal", _read_only, _writable),
)


def inject_faults(moments: int, seed: int = 0, kinds: tuple[str, ...] | None = None) -> Row:
    """Every fault kind at random moments of a game: FAULT, motors off, game kept, a press."""
    faults = [f for f in FAULTS if kinds is None or f.name in kinds]
    total = moments * len(faults)
    row = Row(f"injected faults ({len(faults)} kinds)", f"{total}/{total} recovered")
    rng = random.Random(seed)
    started = time.monotonic()
    for fault in faults:
        for _ in range(moments):
            row.cases += 1
            note = _one_fault(fault, rng.randrange(1_000_000), rng.randint(2, 120))
            if note is None:
                row.passed += 1
            else:
                row.fail(f"{fault.name}: {note}")
    row.seconds = time.monotonic() - started
    return row


def _one_fault(fault: Fault, seed: int, at_frame: int) -> str | None:
    folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-fault-"))
    random.seed(seed)
    table: Table | None = None
    try:
        table = Table.on(folder / "state", fast_config(folder), players=2, seed=seed)
        c = table.controller
        c.start()
        table.steps(at_frame)
        if table.mode() is Mode.OVER:
            return None
        fault.inject(table)
        table.steps(1500, until=lambda: table.mode() is Mode.FAULT)
        if table.mode() is not Mode.FAULT:
            return f"no FAULT at frame {at_frame} (mode {table.mode().value})"
        if not table.mover.stopped or table.backend.rig.enabled:
            return "motors not stopped and disabled"
        if "press spin" not in c.status.message:
            return f"the message does not say what to do: {c.status.message}"
        assert c.game is not None
        held = list(table.journal.current().entries)  # type: ignore[union-attr]
        if held != [dict(e) for e in c.game.journal[: len(held)]]:
            return "the journal differs from the game"
        fault.remove(table)
        seq = c.status.seq
        for _ in range(4):  # a press recovers (a fault found while recovering takes another)
            if table.mode() is Mode.FAULT:
                table.press()
            table.steps(1)
            table.steps(600, until=lambda: c.status.seq > seq or table.mode() is Mode.FAULT)
            if c.status.seq > seq:
                break
        if table.mode() is Mode.FAULT or c.status.seq <= seq:
            return f"not recovered: {table.mode().value}: {c.status.message}"
        loaded = table.journal.load(table.board)
        if loaded is None or to_dict(loaded[1]) != to_dict(c.game):
            return "the journal does not rebuild the game after recovery"
        return None
    except Exception:
        return traceback.format_exc(limit=-3)
    finally:
        if table is not None:
            table.close()
        shutil.rmtree(folder, ignore_errors=True)


# --- the wall clock jumps ------------------------------------------------------------------

JUMPS_S = (3600.0, -3600.0, 86_400.0, -86_400.0, 37.5, -0.5)


def clock_jumps(moments: int, seed: int = 0) -> Row:
    """The wall clock stepped (as NTP does) during a move: no fault, the game goes on.

    Motion, timeouts and the step thread run on the monotonic clock, which NTP
    never steps; only the journal's timestamps and the snapshots' read the
    wall clock. Each case steps `time.time` by one of `JUMPS_S` while the
    cloud is moving, then plays on: the move must finish without a fault, the
    game must make progress, and the journal must still rebuild the game.
    """
    row = Row("clock jumps (NTP step) during a move", f"{moments}/{moments} no fault, game goes on")
    rng = random.Random(seed)
    started = time.monotonic()
    for _ in range(moments):
        row.cases += 1
        note = _one_jump(rng.randrange(1_000_000), rng.choice(JUMPS_S), rng.randint(1, 3))
        if note is None:
            row.passed += 1
        else:
            row.fail(note)
    row.seconds = time.monotonic() - started
    return row


def _one_jump(seed: int, jump_s: float, nth_move: int) -> str | None:
    folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-clock-"))
    random.seed(seed)
    table: Table | None = None
    real_time = time.time
    offset = [0.0]
    moves_seen = [0]
    reads_after = [0]

    def wall() -> float:
        if offset[0]:
            reads_after[0] += 1
        return real_time() + offset[0]

    def on_line(_text: str) -> None:
        if table is not None and table.mode() is Mode.MOVING:
            moves_seen[0] += 1
            if moves_seen[0] == nth_move:
                offset[0] = jump_s

    try:
        with mock.patch("time.time", wall):
            table = Table.on(folder / "state", fast_config(folder), players=2, seed=seed)
            c = table.controller
            c.listeners.append(on_line)
            c.start()
            table.steps(
                4000,
                until=lambda: (
                    offset[0] != 0.0 or table.mode() is Mode.OVER or table.mode() is Mode.FAULT
                ),
            )
            if table.mode() is Mode.FAULT:
                return f"FAULT before the jump: {c.status.message}"
            if offset[0] == 0.0:
                return f"no move {nth_move} to jump during (mode {table.mode().value})"
            seq = c.status.seq
            table.steps(
                3000,
                until=lambda: c.status.seq >= seq + 3 or table.mode() in (Mode.FAULT, Mode.OVER),
            )
            if table.mode() is Mode.FAULT:
                return f"jump {jump_s:+g} s: FAULT: {c.status.message}"
            if c.status.seq < seq + 3 and table.mode() is not Mode.OVER:
                return f"jump {jump_s:+g} s: no progress ({table.mode().value}: {c.status.message})"
            assert c.game is not None
            loaded = table.journal.load(table.board)
            if loaded is None or to_dict(loaded[1]) != to_dict(c.game):
                return f"jump {jump_s:+g} s: the journal does not rebuild the game"
            if reads_after[0] == 0:
                return "the wall clock was not read after the jump: the case proves nothing"
        return None
    except Exception:
        return traceback.format_exc(limit=-3)
    finally:
        if table is not None:
            table.close()
        shutil.rmtree(folder, ignore_errors=True)


# --- SIGTERM ----------------------------------------------------------------------------------


def sigterms(cases: int, seed: int = 0) -> Row:
    """SIGTERM to `bermuda-hw run --simulate` at random moments, homing included."""
    row = Row("SIGTERM at random moments", f"{cases}/{cases} exit 0, stopping, game kept")
    rng = random.Random(seed)
    started = time.monotonic()
    for _ in range(cases):
        row.cases += 1
        folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-term-"))
        try:
            note = _one_sigterm(folder, rng)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if note is None:
            row.passed += 1
        else:
            row.fail(note)
    row.seconds = time.monotonic() - started
    return row


def _one_sigterm(folder: Path, rng: random.Random) -> str | None:
    state = folder / "state"
    config = folder / "table.toml"
    fast_config(folder)
    shutil.copy(folder / "chaos-table.toml", config)
    speed = rng.choice(("0", "1", "5"))  # real time makes homing and moves long enough to hit
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CLI,
            "run",
            "--simulate",
            "--config",
            str(config),
            "--players",
            "2",
            "--seed",
            str(rng.randrange(10_000)),
            "--speed",
            speed,
            "--state-dir",
            str(state),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "firmware_py")},
    )
    try:
        assert process.stdout is not None
        # wait for the daemon to be under way (it prints a line at each step), then a moment
        target = rng.randint(1, 25)
        for n, _line in enumerate(process.stdout):
            if n >= target:
                break
        time.sleep(rng.uniform(0.0, 1.0))
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        return f"exit {process.returncode}: {err.strip()[-300:]}"
    if "stopping" not in out:
        return "no 'stopping' line"
    if "Traceback" in err:
        return err[-300:]
    if (state / "bermuda.db").exists():
        with Journal.in_state_dir(state) as journal:
            if journal.current() is None:
                return "the game is gone"
    return None
