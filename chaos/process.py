"""The chaos campaign on the program itself: `bermuda-hw run --simulate` as a process.

Every part starts the real command (its own process, the command line, the
journal, the page, the players), reads what it prints as it prints it, and
hurts it at an aimed moment: kill -9 just after a move is announced, during
a spin's motion, while a question waits, during homing, right after `bermuda-hw
game new` or `game undo` went through the page; a power cut (the process
frozen and its files copied as they are on disk); a disk that fills or turns
read-only under it (tmpfs, as root); a hang that systemd's watchdog ends with
SIGABRT; a WAL checkpoint from another process; Ctrl-C pressed twice. It then
restarts the command on the same state directory until the game is over, and
checks:

- every move the table announced is in the journal, and none twice as often as
  it was announced (lost or doubled: the table told players something the
  record does not hold);
- a round's spin, re-spun after a kill, is the same spin;
- each restart resumes exactly the journal as it was left (the journal read
  after a kill is a prefix of the one read after the next run);
- the game reaches its end; nothing printed a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bermuda_hw.controller.journal import Journal, made
from chaos.campaign import Row
from chaos.table import FAST_TABLE

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from bermuda_hw.cli import main; sys.exit(main())"
# a game of 2-4 players to its end at the fastest settings takes 30-90 s here; a run that
# prints nothing for this long is stuck
SILENT_S = 120.0
MAX_RUNS = 12

MOVE = re.compile(r"\] (\w+) \(die \d\): (\S+ \S+)$")
SPIN = re.compile(r"\] spin: (.+)$")
ROUND = re.compile(r"\] round (\d+): ")
GAME = re.compile(r"\] (?:new game|resuming game) (\d+)")
AIMS = ("commit", "spin", "question", "homing", "game new", "undo")


@dataclass
class Line:
    at: float
    text: str


class Run:
    """One `bermuda-hw run --simulate` on a state directory, its output read as it comes."""

    def __init__(
        self,
        folder: Path,
        state: Path,
        max_rounds: int | None = None,
        *,
        first: tuple[int, int, str] | None,
        web: bool,
        env: dict[str, str] | None = None,
    ) -> None:
        config = folder / "chaos-table.toml"
        if not config.exists():
            config.write_text(FAST_TABLE, encoding="utf-8")
        argv = [
            sys.executable,
            "-c",
            CLI,
            "run",
            "--simulate",
            "--config",
            str(config),
            "--state-dir",
            str(state),
        ]
        if first is not None:
            players, seed, die = first
            argv += ["--players", str(players), "--seed", str(seed), "--die", die]
        argv += ["--bind", "127.0.0.1:0"] if web else ["--no-web"]
        if max_rounds is not None:  # the smoke runs in `make test`: a few rounds, not a game
            argv += ["--max-rounds", str(max_rounds)]
        self.lines: list[Line] = []
        self.errors: list[str] = []
        self.changed = threading.Condition()
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=folder,
            env={**os.environ, **_pythonpath(), "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self._readers = [
            threading.Thread(target=self._read, args=(stream, sink), daemon=True)
            for stream, sink in ((self.process.stdout, self.lines), (self.process.stderr, None))
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: object, sink: list[Line] | None) -> None:
        assert hasattr(stream, "readline")
        for raw in iter(stream.readline, ""):
            text = raw.rstrip("\n")
            with self.changed:
                if sink is None:
                    self.errors.append(text)
                else:
                    sink.append(Line(time.monotonic() - self.started, text))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(
        self, matches: Callable[[str], bool], after: int = 0, timeout: float = SILENT_S
    ) -> int | None:
        """The index of the first line from `after` on that matches, or None if the process
        ended (or printed nothing that matched within `timeout`)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for i in range(after, len(self.lines)):
                    if matches(self.lines[i].text):
                        return i
                after = len(self.lines)
                if self.process.poll() is not None and not any(r.is_alive() for r in self._readers):
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(min(left, 0.5))

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signum)

    def finish(self, timeout: float = 600) -> int:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            code = self.process.wait()
        for reader in self._readers:
            reader.join(10)
        return code

    @property
    def text(self) -> list[str]:
        return [line.text for line in self.lines]


def _pythonpath() -> dict[str, str]:
    paths = [str(ROOT), str(ROOT / "firmware_py"), os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def _cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **_pythonpath()},
        cwd=ROOT,
    )


def _log(state: Path) -> tuple[int | None, list[dict[str, object]]]:
    """The current game's id and every row of its journal (undo rows too)."""
    if not (state / "bermuda.db").exists():
        return None, []
    with Journal.in_state_dir(state) as journal:
        current = journal.current()
        if current is None:
            return None, []
        return current.id, [dict(e) for e in current.log]


@dataclass
class Game:
    """What one game's runs announced, and what its journal held after each."""

    seed: int
    announced: dict[int, Counter[str]] = field(default_factory=dict)
    spins: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    runs: int = 0
    aims: Counter[str] = field(default_factory=Counter)

    def read(self, run: Run, game_id: int | None) -> None:
        """Take in a finished run's output: its announced moves and spins, by game."""
        current, round_ = game_id, 0
        for text in run.text:
            if (m := GAME.search(text)) is not None:
                current = int(m.group(1))
            elif (m := ROUND.search(text)) is not None:
                round_ = int(m.group(1))
            elif (m := MOVE.search(text)) is not None and current is not None:
                self.announced.setdefault(current, Counter())[m.group(2)] += 1
            elif (m := SPIN.search(text)) is not None and current is not None:
                self.spins.setdefault((current, round_), set()).add(m.group(1))
        if any("Traceback" in e for e in run.errors) or any("Traceback" in t for t in run.text):
            tail = "\n".join(run.errors[-8:])
            self.problems.append(f"run {self.runs}: a traceback:\n{tail}")

    def check(self, state: Path, *, moves_expected: bool = True) -> None:
        """Every announced move journalled; no action journalled twice; a round's spins all
        the same.

        The same move can be made twice in a game (a ship sent back to its port sails the
        same way again), and a move can be journalled without being announced (a kill
        between the commit and the line); what must never happen is an action taken twice
        in one round (a move or pass re-journalled after a resume): each player moves once
        a round, so the game's effective entries hold each move at most once per round.
        """
        if moves_expected and not any(self.announced.values()):
            # a game of a few rounds announces moves: none read means the check read nothing
            self.problems.append("no announced move was read from the runs' output")
        with Journal.in_state_dir(state) as journal:
            for game_id, moves in self.announced.items():
                stored = journal.stored(game_id)
                journalled = Counter(str(e["move"]) for e in stored.log if "move" in e)
                for move, times in moves.items():
                    if journalled[move] < times:
                        self.problems.append(
                            f"game {game_id}: {move} announced {times}x, "
                            f"journalled {journalled[move]}x"
                        )
                round_, seen = 1, set()
                for entry in stored.entries:
                    if "cloud" in entry:
                        round_, seen = round_ + 1, set()
                    elif "move" in entry:
                        if entry["move"] in seen:
                            self.problems.append(
                                f"game {game_id} round {round_}: {entry['move']} journalled "
                                "twice in one round"
                            )
                        seen.add(entry["move"])
        for (game_id, round_), texts in self.spins.items():
            if len(texts) > 1:
                self.problems.append(f"game {game_id} round {round_}: spun {sorted(texts)}")


def _over(run: Run) -> bool:
    """The run ended by itself: the game is over (or its last round, with --max-rounds)."""
    return run.process.returncode == 0


# --- kill -9 at aimed moments -------------------------------------------------------------


def _aim(run: Run, aim: str, rng: random.Random, state: Path) -> bool:
    """Wait for the aimed moment in `run` and kill -9 there; False if it never came."""
    announced = lambda t: MOVE.search(t) is not None  # noqa: E731
    at: int | None
    if aim == "commit":
        at = None
        for _ in range(rng.randint(1, 6)):
            at = run.wait_for(announced, 0 if at is None else at + 1)
            if at is None:
                return False
        time.sleep(rng.uniform(0, 0.05))
    elif aim == "spin":
        at = run.wait_for(lambda t: SPIN.search(t) is not None)
        if at is None:
            return False
        time.sleep(rng.uniform(0, 0.6))  # the cloud turns and moves, the captures
    elif aim == "question":
        at = run.wait_for(lambda t: t.rstrip().endswith(")") and "?" in t, timeout=40)
        if at is None:
            return False
        time.sleep(rng.uniform(0, 0.3))
    elif aim == "homing":
        at = run.wait_for(lambda t: "homing the gantry" in t)
        if at is None:
            return False
        time.sleep(rng.uniform(0, 0.4))
    else:  # "game new", "undo": through the running daemon's page
        at = run.wait_for(announced)
        if at is None or run.wait_for(lambda t: "to move" in t, at + 1) is None:
            return False
        if aim == "game new":
            done = _cli("game", "new", "--state-dir", str(state), "--players", "2")
            marker = "] new game"
        else:
            done = _cli("game", "undo", "--state-dir", str(state))
            marker = "] undone: "
        if done.returncode != 0:
            return False  # refused now (a spin under way, say): aimed elsewhere
        if run.wait_for(lambda t: marker in t, at, timeout=30) is None:
            return False
        time.sleep(rng.uniform(0, 0.2))
    run.signal(signal.SIGKILL)
    return True


def kill_game(
    players: int,
    die: str,
    game: Game,
    kills: int,
    rng: random.Random,
    hit: Counter[str],
    max_rounds: int | None = None,
) -> int:
    """One whole game of `run`, killed `kills` times at aimed moments and restarted until it
    ends; its problems are kept on `game`, and the kills that hit counted in `hit`. Returns
    the kills it did not take (the game ended first). A failed game's state directory is
    kept, and named, to replay it."""
    folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-run-"))
    state = folder / "state"
    left = kills
    try:
        previous: tuple[int | None, list[dict[str, object]]] = (None, [])
        while game.runs < MAX_RUNS:
            aim = rng.choice(AIMS) if left else ""
            run = Run(
                folder,
                state,
                max_rounds,
                first=(players, game.seed, die) if game.runs == 0 else None,
                web=aim in ("game new", "undo"),
            )
            game.runs += 1
            if aim and _aim(run, aim, rng, state):
                hit[aim] += 1
                left -= 1
            elif aim:
                # the aimed moment did not come (no question in this game, say): kill at a
                # random moment instead, or let the game end
                time.sleep(rng.uniform(0.2, 3.0))
                if run.process.poll() is None:
                    run.signal(signal.SIGKILL)
                    hit["random"] += 1
                    left -= 1
            code = run.finish()
            game.read(run, previous[0])
            now = _log(state)
            if now[0] == previous[0] and now[1][: len(previous[1])] != previous[1]:
                game.problems.append(f"run {game.runs}: the journal lost rows a kill left")
            previous = now
            if code == 0 and _over(run):
                break
            if code not in (0, -signal.SIGKILL):
                game.problems.append(
                    f"run {game.runs}: exit {code}: {' | '.join(run.errors[-3:] or run.text[-3:])}"
                )
                break
        else:
            game.problems.append(f"not over after {MAX_RUNS} runs")
        game.check(state)
    except Exception:
        game.problems.append(traceback.format_exc(limit=-3))
    finally:
        if game.problems:
            game.problems.append(f"its state directory is kept: {state}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return left


def kill_runs(games: int, seed: int = 0, kills: int = 5, max_rounds: int | None = None) -> Row:
    """Whole games of 2-4 players with both dice, `games * kills` kill -9s at aimed moments
    in all: each game is killed `kills` times and restarted until it ends. A game that ends
    before it took all of its kills passes the rest to the next; after the last game, more
    games are played (at most half as many again) until every kill has been made."""
    row = Row(
        "kill -9 of `run` at aimed moments",
        f"{games}/{games} games (and any played for kills left over), {games * kills} "
        "kills: exact resumes, no announced move lost or doubled, same re-spins",
    )
    rng = random.Random(seed)
    started = time.monotonic()
    hit: Counter[str] = Counter()
    owed, g = 0, 0
    while g < games or (owed > 0 and g < games + max(1, games // 2)):
        row.cases += 1
        players, die = 2 + g % 3, ("table", "virtual")[(g // 3) % 2]
        game = Game(rng.randrange(1_000_000))
        owed = kill_game(players, die, game, kills * (g < games) + owed, rng, hit, max_rounds)
        for problem in game.problems:
            row.fail(f"game {g} ({players} players, {die} die, seed {game.seed}): {problem}")
        row.passed += not game.problems
        g += 1
    made = sum(hit.values())
    if made < games * kills:
        row.fail(f"only {made} of the {games * kills} kills were made: the games ended first")
        row.passed = min(row.passed, row.cases - 1)
    row.notes.insert(
        0,
        f"{made} kills in {row.cases} games; aimed kills that hit: "
        + ", ".join(f"{k} {v}" for k, v in sorted(hit.items())),
    )
    row.seconds = time.monotonic() - started
    return row


# --- a power cut: the process frozen, its files copied as they are --------------------------

#: every file a power cut leaves of the journal: the rollback journal too, which SQLite
#: keeps while it writes the new journal's first page (before WAL mode is set)
DB_FILES = (
    "bermuda.db",
    "bermuda.db-journal",
    "bermuda.db-wal",
    "bermuda.db-shm",
    "bermuda.db-commits",
)


def power_cuts(cases: int, seed: int = 0, per_game: int = 10, max_rounds: int | None = None) -> Row:
    """Cuts at random moments of whole games: each copy must open, hold a prefix of what the
    game journalled after it, and (one in `per_game`) resume and play on."""
    row = Row("power cut of `run` (files copied while frozen)", f"{cases}/{cases} copies resume")
    rng = random.Random(seed)
    started = time.monotonic()
    while row.cases < cases:
        folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-cut-"))
        state = folder / "state"
        try:
            run = Run(
                folder,
                state,
                max_rounds,
                first=(2 + row.cases % 3, rng.randrange(10**6), "table"),
                web=False,
            )
            copies: list[Path] = []
            while run.process.poll() is None and len(copies) < min(per_game, cases - row.cases):
                time.sleep(rng.uniform(0.1, 2.5))
                run.signal(signal.SIGSTOP)
                try:
                    copy = folder / f"cut-{len(copies)}"
                    copy.mkdir(mode=0o700)
                    for name in DB_FILES:
                        with contextlib.suppress(FileNotFoundError):
                            shutil.copy2(state / name, copy / name)
                    copies.append(copy)
                finally:
                    run.signal(signal.SIGCONT)
            run.finish()
            final_id, final = _log(state)
            for i, copy in enumerate(copies):
                row.cases += 1
                problem = _check_cut(
                    copy, final_id, final, resume=i == 0, folder=folder, max_rounds=max_rounds
                )
                if problem:
                    row.fail(f"cut {row.cases}: {problem}")
                else:
                    row.passed += 1
        except Exception:
            row.cases += 1
            row.fail(traceback.format_exc(limit=-3))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


def _check_cut(
    copy: Path,
    final_id: int | None,
    final: list[dict[str, object]],
    *,
    resume: bool,
    folder: Path,
    max_rounds: int | None,
) -> str | None:
    if not made(copy / "bermuda.db"):
        return None  # cut before the journal's first write committed: nothing to keep
    shown = _cli("game", "show", "--state-dir", str(copy), "--json")
    if shown.returncode != 0:
        # a cut after the database was made and before the first game was written: nothing
        # to keep, said as such
        empty = "no game" in shown.stderr or "no current game" in shown.stderr
        if "Traceback" in shown.stderr or not empty:
            return f"game show: {shown.stderr.strip()[-300:]}"
        return None
    game_id, log = _log(copy)
    if game_id == final_id and log != final[: len(log)]:
        return "the cut's journal is not a prefix of the game's"
    if resume:
        run = Run(folder, copy, max_rounds, first=None, web=False)
        code = run.finish()
        if code != 0 or any("Traceback" in e for e in run.errors):
            return f"resumed run: exit {code}: {' | '.join(run.errors[-3:])}"
    return None


# --- the disk fills, or turns read-only, under the running game -------------------------------


def _sh(*argv: str) -> bool:
    return subprocess.run(argv, capture_output=True, text=True).returncode == 0


@contextlib.contextmanager
def _disk(folder: Path, kind: str) -> Iterator[Path | None]:
    """A small file system of its own: tmpfs for a full disk; for a read-only one, ext4 in
    a loop image mounted `errors=remount-ro` (as Raspberry Pi OS mounts its root), which an
    error turns read-only under the process. None where mounting is not allowed (not
    root, no loop devices)."""
    mount = folder / "disk"
    mount.mkdir()
    if kind == "ENOSPC":
        ok = _sh("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mount))
    else:
        image = folder / "disk.img"
        with image.open("wb") as out:
            out.truncate(64 << 20)
        ok = _sh("mkfs.ext4", "-q", "-F", str(image)) and _sh(
            "mount", "-o", "loop,errors=remount-ro", str(image), str(mount)
        )
    if not ok:
        yield None
        return
    try:
        yield mount
    finally:
        _sh("umount", str(mount)) or _sh("umount", "-l", str(mount))


def _turn_read_only(disk: Path) -> None:
    """An ext4 error (what a failing SD card gives): errors=remount-ro makes it read-only."""
    source = subprocess.run(
        ["findmnt", "-no", "SOURCE", str(disk)], capture_output=True, text=True
    ).stdout.strip()
    Path(f"/sys/fs/ext4/{Path(source).name}/trigger_fs_error").write_text("1\n")


def _mend(disk: Path, folder: Path) -> None:
    """What an owner does after a disk error: unmount, check the file system, mount again."""
    image = folder / "disk.img"
    _sh("umount", str(disk))
    _sh("e2fsck", "-fy", str(image))
    if not _sh("mount", "-o", "loop,errors=remount-ro", str(image), str(disk)):
        raise RuntimeError("the mended disk does not mount")


def disk_faults(moments: int, seed: int = 0, max_rounds: int | None = None) -> Row:
    """A real ENOSPC (tmpfs) and EROFS (ext4, errors=remount-ro) under `run`: the table says
    so and keeps the game; once the disk is mended the game goes on (or resumes) to its
    end."""
    row = Row(
        "full and read-only disk under `run`",
        f"{2 * moments}/{2 * moments} games kept and finished",
    )
    rng = random.Random(seed)
    started = time.monotonic()
    for kind in ("ENOSPC", "EROFS"):
        for _ in range(moments):
            row.cases += 1
            folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-disk-"))
            try:
                with _disk(folder, kind) as disk:
                    if disk is None:
                        row.cases -= 1
                        row.notes.append(
                            f"{kind} skipped: mounting a file system of its own "
                            "needs root (and loop devices for ext4)"
                        )
                        break
                    problem = _one_disk_fault(kind, folder, disk, rng, max_rounds)
                if problem:
                    row.fail(f"{kind}: {problem}")
                else:
                    row.passed += 1
            except Exception:
                row.fail(f"{kind}: {traceback.format_exc(limit=-3)}")
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


def _one_disk_fault(
    kind: str, folder: Path, disk: Path, rng: random.Random, max_rounds: int | None
) -> str | None:
    state = disk / "state"
    game = Game(rng.randrange(10**6))
    run = Run(folder, state, max_rounds, first=(2, game.seed, "table"), web=False)
    at = None
    for _ in range(rng.randint(1, 6)):
        at = run.wait_for(lambda t: MOVE.search(t) is not None, 0 if at is None else at + 1)
        if at is None:
            return "the game ended before the fault"
    filler = disk / "filler"
    if kind == "ENOSPC":
        with contextlib.suppress(OSError), filler.open("wb") as out:
            while True:
                out.write(b"\0" * (1 << 20))
    else:
        _turn_read_only(disk)
    said = run.wait_for(lambda t: "cannot write the journal" in t, at, timeout=60)
    game.runs += 1
    if said is None:
        run.signal(signal.SIGKILL)
        run.finish()
        game.read(run, None)
        return f"no clean message: {' | '.join(run.errors[-3:] or run.text[-3:])}"
    time.sleep(rng.uniform(0.5, 2.0))
    if kind == "ENOSPC":
        filler.unlink()  # space freed: the running table goes on, or (if the simulated
        # players gave up on the fault first) it ended saying the game is saved
        code = run.finish()
        game.read(run, None)
        if code != 0 and not any("the game is saved" in e for e in run.errors):
            return f"exit {code}: {' | '.join(run.errors[-3:] or run.text[-3:])}"
        if not _over(run):
            run = Run(folder, state, max_rounds, first=None, web=False)
            game.runs += 1
    else:
        run.signal(signal.SIGTERM)  # the owner stops the service to mend the disk
        code = run.finish()
        game.read(run, None)
        # 0: stopped by the SIGTERM; 1: the simulated players gave up on the fault first,
        # and the run ended saying the game is saved
        if code != 0 and not any("the game is saved" in e for e in run.errors):
            return f"stopped with exit {code}: {' | '.join(run.errors[-3:])}"
        _mend(disk, folder)
        run = Run(folder, state, max_rounds, first=None, web=False)
        game.runs += 1
    code = run.finish()
    game.read(run, None)
    while not _over(run) and game.runs < MAX_RUNS:
        if code != 0:
            return f"exit {code}: {' | '.join(run.errors[-3:] or run.text[-3:])}"
        run = Run(folder, state, max_rounds, first=None, web=False)
        code = run.finish()
        game.runs += 1
        game.read(run, None)
    game.check(state)
    if not _over(run):
        game.problems.append("the game did not end")
    return "; ".join(game.problems) or None


# --- systemd's watchdog ends a hung process ---------------------------------------------------


def watchdog_aborts(
    cases: int, seed: int = 0, period_s: float = 3.0, max_rounds: int | None = None
) -> Row:
    """The process pings a NOTIFY_SOCKET as under systemd; frozen at a random moment, it
    misses the watchdog's period and gets SIGABRT (what `WatchdogSec=` does); restarted, it
    resumes the game to its end."""
    row = Row("watchdog abort of a hung `run`", f"{cases}/{cases} pinged, aborted, resumed")
    rng = random.Random(seed)
    started = time.monotonic()
    for _ in range(cases):
        row.cases += 1
        folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-dog-"))
        address = folder / "notify"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(str(address))
        listener.settimeout(0.2)
        try:
            game = Game(rng.randrange(10**6))
            state = folder / "state"
            env = {"NOTIFY_SOCKET": str(address), "WATCHDOG_USEC": str(int(period_s * 1e6))}
            run = Run(
                folder, state, max_rounds, first=(3, game.seed, "virtual"), web=False, env=env
            )
            pings: list[float] = []
            hang_at = time.monotonic() + rng.uniform(1.0, 6.0)
            frozen = False
            while run.process.poll() is None:
                with contextlib.suppress(TimeoutError):
                    if b"WATCHDOG=1" in listener.recv(4096):
                        pings.append(time.monotonic())
                now = time.monotonic()
                if not frozen and now >= hang_at:
                    run.signal(signal.SIGSTOP)  # hung: no more pings
                    frozen = True
                last = pings[-1] if pings else hang_at
                if frozen and now - last > period_s:
                    run.signal(signal.SIGABRT)  # as systemd does when the period passes
                    run.signal(signal.SIGCONT)
            code = run.finish()
            game.runs += 1
            game.read(run, None)
            if not pings:
                game.problems.append("no WATCHDOG=1 ping before the hang")
            if code != -signal.SIGABRT and not _over(run):
                game.problems.append(f"exit {code}, not the watchdog's SIGABRT")
            while not _over(run) and game.runs < MAX_RUNS:
                run = Run(folder, state, max_rounds, first=None, web=False)
                code = run.finish()
                game.runs += 1
                game.read(run, None)
                if code != 0:
                    game.problems.append(f"resumed run: exit {code}")
                    break
            game.check(state)
            if game.problems:
                row.fail("; ".join(game.problems))
            else:
                row.passed += 1
        except Exception:
            row.fail(traceback.format_exc(limit=-3))
        finally:
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


# --- a WAL checkpoint from outside, and Ctrl-C twice ----------------------------------------


def checkpoints(cases: int, seed: int = 0, max_rounds: int | None = None) -> Row:
    """Another process checkpoints the journal's WAL (as a backup tool would) again and
    again during a whole game: the game goes on, every announced move journalled."""
    row = Row("WAL checkpoints during `run`", f"{cases}/{cases} games finished")
    rng = random.Random(seed)
    started = time.monotonic()
    for _ in range(cases):
        row.cases += 1
        folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-wal-"))
        state = folder / "state"
        try:
            game = Game(rng.randrange(10**6))
            run = Run(folder, state, max_rounds, first=(2, game.seed, "table"), web=False)
            done = 0
            while run.process.poll() is None:
                time.sleep(rng.uniform(0.05, 0.8))
                with contextlib.suppress(sqlite3.Error):
                    conn = sqlite3.connect(state / "bermuda.db", timeout=5)
                    try:
                        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                        done += 1
                    finally:
                        conn.close()
            code = run.finish()
            game.runs += 1
            game.read(run, None)
            if code != 0 or not _over(run):
                game.problems.append(f"exit {code}: {' | '.join(run.errors[-3:])}")
            if done == 0:
                game.problems.append("no checkpoint was made")
            game.check(state)
            if game.problems:
                row.fail("; ".join(game.problems))
            else:
                row.passed += 1
        except Exception:
            row.fail(traceback.format_exc(limit=-3))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


def double_interrupts(cases: int, seed: int = 0, max_rounds: int | None = None) -> Row:
    """Ctrl-C pressed twice at a random moment (0.5 ms to 0.3 s apart): exit 130 with the
    game saved and no traceback; the next run resumes it exactly."""
    row = Row("Ctrl-C twice during `run`", f"{cases}/{cases} clean, resumed")
    rng = random.Random(seed)
    started = time.monotonic()
    for _ in range(cases):
        row.cases += 1
        folder = Path(tempfile.mkdtemp(prefix="bermuda-hw-chaos-int-"))
        state = folder / "state"
        try:
            game = Game(rng.randrange(10**6))
            run = Run(folder, state, max_rounds, first=(2, game.seed, "table"), web=False)
            time.sleep(rng.uniform(0.3, 8.0))
            run.signal(signal.SIGINT)
            time.sleep(rng.choice((0.0005, 0.01, 0.1, 0.3)))
            run.signal(signal.SIGINT)
            code = run.finish()
            game.runs += 1
            game.read(run, None)
            if code not in (0, 130) or (code == 0 and not _over(run)):
                game.problems.append(f"exit {code}: {' | '.join(run.errors[-3:])}")
            left_id, left = _log(state)
            if not _over(run):
                resumed = Run(folder, state, max_rounds, first=None, web=False)
                if resumed.wait_for(lambda t: "resuming game" in t or "new game" in t) is None:
                    game.problems.append("the next run did not resume")
                resumed.signal(signal.SIGKILL)
                resumed.finish()
                game.read(resumed, left_id)
                now_id, now = _log(state)
                if now_id == left_id and now[: len(left)] != left:
                    game.problems.append("the resumed journal lost rows")
            game.check(state, moves_expected=False)
            if game.problems:
                row.fail("; ".join(game.problems))
            else:
                row.passed += 1
        except Exception:
            row.fail(traceback.format_exc(limit=-3))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    row.seconds = time.monotonic() - started
    return row


if __name__ == "__main__":  # pragma: no cover
    part = sys.argv[1] if len(sys.argv) > 1 else "kill"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    parts: dict[str, Callable[[int], Row]] = {
        "kill": kill_runs,
        "cut": power_cuts,
        "disk": disk_faults,
        "dog": watchdog_aborts,
        "wal": checkpoints,
        "int": double_interrupts,
    }
    result = parts[part](n)
    print(
        json.dumps(
            {
                "part": result.part,
                "cases": result.cases,
                "passed": result.passed,
                "seconds": round(result.seconds),
                "notes": result.notes[:6],
            },
            indent=1,
        )
    )
