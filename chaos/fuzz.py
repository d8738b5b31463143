"""Fuzzing every input: config, board, colour calibration and journal files, CLI options, images.

Each input kind is a hypothesis property run with a given number of examples:
random mutations of a valid file (values of the wrong type, wrong shape,
NaN, huge, empty; lines dropped, doubled, unknown keys; truncation; bytes
that are not UTF-8), plus files that are empty, huge, directories or
unreadable. The property holds when the input is accepted, or refused with
bermuda-hw's own error naming the file (or the option) -- never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import sqlite3
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from unittest import mock

import cv2
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bermuda_hw.config import default_config_text, load_config
from bermuda_hw.controller.journal import Journal
from bermuda_hw.errors import BermudaError, ConfigError
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.limits import SoftLimits
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import board_to_json, load_board
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.vision.colors import load_calibration

CLASSIC_TEXT = resources.files("bermuda_hw.rules").joinpath("data/classic.toml").read_text("utf-8")
COLORS_TEXT = (
    Path(__file__).resolve().parents[1] / "calibration" / "colors.example.toml"
).read_text("utf-8")
SHIP_COLORS = ("blue", "yellow", "green", "red")
# the configuration's [camera] table goes through the same checks: mutations reach it too
CAMERA_TEXT = """
[camera]
source = "picamera2"
width_px = 1280
height_px = 960
timeout_s = 2.0
calibration = "colors.toml"
stable_frames = 3
exposure_time_us = 8000
colour_gains = [1.8, 1.4]
af_mode = "manual"
lens_position = 2.5
flicker_hz = 50
"""
# problems of a whole file (it cannot be read or parsed): the only errors without a key
WHOLE_FILE = (
    "file not found",
    "is a directory",
    "cannot be read",
    "is larger than",
    "is not UTF-8",
    "is not valid TOML",
    "is not a regular file",
)

# TOML values a user (or a damaged file) could write where another was expected
NASTY_VALUES = (
    "nan",
    "inf",
    "-inf",
    "-0.0",
    "1e308",
    "-1e308",
    "0",
    "-1",
    "1",
    "99",
    "400",
    "9223372036854775807",
    "-9223372036854775808",
    '""',
    '"blue"',
    '"é"',
    "true",
    "false",
    "[]",
    "[1, 2]",
    "[99, 99]",
    "[-1, -1]",
    '["blue", 3]',
    "[1, 2, 3, 4, 5]",
    "[[1]]",
    "{}",
    "{ a = 1 }",
    "1979-05-27",
    "0x40",
    "0o7",
    "1_000",
    "3.5",
)


@dataclass
class Tally:
    """What one input kind's fuzzing found."""

    kind: str
    cases: int = 0
    accepted: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def tracebacks(self) -> int:
        return len(self.failures)


# --- strategies ---------------------------------------------------------------------------

values = st.one_of(
    st.sampled_from(NASTY_VALUES),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=6).map(lambda s: json.dumps(s)),
)

mutation = st.tuples(
    st.sampled_from(
        ("value", "value", "value", "drop", "double", "unknown", "truncate", "bytes", "header")
    ),
    st.floats(0.0, 1.0),
    values,
    st.binary(min_size=1, max_size=8),
)


def mutate(text: str, mutations: list[tuple[str, float, str, bytes]]) -> bytes:
    """Apply mutations to a valid TOML text; the result may be anything."""
    lines = text.splitlines()
    tail = b""
    for kind, where, value, noise in mutations:
        if not lines:
            break
        i = min(int(where * len(lines)), len(lines) - 1)
        if kind == "value":
            keyed = [
                n
                for n, line in enumerate(lines)
                if "=" in line and not line.lstrip().startswith("#")
            ]
            if keyed:
                n = keyed[min(int(where * len(keyed)), len(keyed) - 1)]
                lines[n] = lines[n].split("=", 1)[0] + "= " + value
        elif kind == "drop":
            del lines[i]
        elif kind == "double":
            lines.insert(i, lines[i])
        elif kind == "unknown":
            lines.insert(i, f"unknown_key = {value}")
        elif kind == "header":
            lines.insert(i, "[" + value.strip('"[]{} ') + "]")
        elif kind == "truncate":
            joined = "\n".join(lines)
            lines = joined[: int(where * len(joined))].splitlines()
        elif kind == "bytes":
            tail = noise
    data = "\n".join(lines).encode("utf-8") + b"\n"
    if tail:
        cut = int(len(data) * mutations[0][1])
        data = data[:cut] + tail + data[cut:]
    return data


def file_bytes(valid: str) -> st.SearchStrategy[bytes]:
    """Mutated copies of a valid file, and a few whole files of their own kind."""
    return st.one_of(
        st.lists(mutation, min_size=1, max_size=4).map(lambda m: mutate(valid, m)),
        st.sampled_from(
            (
                b"",
                b"\xef\xbb\xbf",
                b"\x00" * 64,
                b"\xff\xfe[a]\n",
                valid.encode("utf-16"),
                b"[" * 10_000,
                b"a = " + b"9" * 5000 + b"\n",
                valid.encode("utf-8") * 3,
            )
        ),
        st.binary(max_size=200),
    )


# --- running a property and counting ------------------------------------------------------


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="bermuda-hw-fuzz-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


CASE_DEADLINE_S = 60


class Hung(Exception):
    """A case that did not end within its deadline (a read that waits forever)."""


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Raise `Hung` in this (main) thread if the block takes longer than `seconds`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def hung(signum: int, frame: object) -> None:
        raise Hung(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _judge(
    tally: Tally, what: str, action: Callable[[], object], named: str, keyed: bool = False
) -> None:
    """Run one case: accepted, refused naming `named`, or a failure (with its traceback).

    `keyed`: a file's error must also name the key, unless the whole file is at fault.
    """
    tally.cases += 1
    try:
        with _deadline(CASE_DEADLINE_S):
            action()
    except BermudaError as exc:
        if named not in str(exc):
            tally.failures.append(f"{what}: the error does not name {named}: {exc}")
        elif keyed and not (
            isinstance(exc, ConfigError) and (exc.key or exc.problem.startswith(WHOLE_FILE))
        ):
            tally.failures.append(f"{what}: the error does not name the key: {exc}")
        else:
            tally.refused += 1
        return
    except Exception:
        tally.failures.append(f"{what}:\n{traceback.format_exc(limit=-3)}")
        return
    tally.accepted += 1


def _run(prop: Callable[..., None], examples: int, seed: int) -> None:
    runner = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )(prop)
    import hypothesis

    hypothesis.seed(seed)(runner)()


# --- the input kinds ------------------------------------------------------------------------


def _fuzz_file(
    kind: str, valid: str, use: Callable[[Path], object], examples: int, seed: int
) -> Tally:
    """Mutations of a valid file, then the special files, each given to `use`."""
    tally = Tally(kind)
    with workdir() as tmp:
        path = tmp / "input.toml"

        @given(file_bytes(valid))
        def prop(data: bytes) -> None:
            path.write_bytes(data)
            _judge(tally, f"{kind} {data[:120]!r}", lambda: use(path), str(path), keyed=True)

        _run(prop, examples, seed)
        _special_files(tally, tmp, use)
    return tally


def _use_config(path: Path) -> None:
    """Read a config as `run` does before anything moves."""
    config = load_config(path)
    board = load_board()
    limits = SoftLimits.for_grid(GantryKinematics.from_config(config.gantry), board.grid)
    limits.check_rig(config.source, config.gantry.park_dot, board.grid)


def _use_board(path: Path) -> None:
    """Load a board and start a game on it; a board that is accepted must also be drawn by
    `render`, and one whose geometry differs from the classic board's must go through the
    simulated rig's `selftest` and a round of `run --simulate` to a verdict: passed, or
    refused naming what to change (a rig that cannot reach the board), never a crash."""
    board = load_board(path)
    game = Game.new(min(len(board.ship_colors), 4), seed=1, board=board)
    game.legal_moves(3)
    commands = [
        ["render", "--simulate", "--board", str(path), "--start", str(path.with_suffix(".png"))]
    ]
    if _geometry(board) != _geometry(load_board()):
        state = path.parent / "state"
        shutil.rmtree(state, ignore_errors=True)
        commands += [
            ["selftest", "--simulate", "--board", str(path)],
            [
                "run",
                "--simulate",
                "--board",
                str(path),
                "--state-dir",
                str(state),
                "--no-web",
                "--players",
                "2",
                "--max-rounds",
                "1",
            ],
        ]
    from bermuda_hw.cli import main

    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        said = [
            line
            for line in (out.getvalue() + err.getvalue()).splitlines()
            if "FAIL" in line or "error:" in line
        ]
        # the board alone must draw; the rig (the built-in configuration) may refuse a board
        # it cannot reach, naming the key to change: that is the self-test's verdict
        if code != 0 and (argv[0] == "render" or not said):
            raise AssertionError(
                f"an accepted board fails `bermuda-hw {argv[0]}`: "
                f"{' | '.join(said)[-600:] or 'exit ' + str(code)}"
            )


def _geometry(board: Board) -> object:
    """What of a board the rig, the camera and the simulator use (all but names and text)."""
    data = board_to_json(board)
    return {k: v for k, v in data.items() if k not in ("name", "source", "spinner")}


def fuzz_config(examples: int, seed: int = 0) -> Tally:
    return _fuzz_file(
        "config file", default_config_text() + CAMERA_TEXT, _use_config, examples, seed
    )


def fuzz_board(examples: int, seed: int = 0) -> Tally:
    return _fuzz_file("board file", CLASSIC_TEXT, _use_board, examples, seed)


def fuzz_calibration(examples: int, seed: int = 0) -> Tally:
    return _fuzz_file(
        "colour calibration",
        COLORS_TEXT,
        lambda p: load_calibration(p, SHIP_COLORS),
        examples,
        seed,
    )


# names a file system refuses: one name of 300 characters, a path of 4,200
LONG_NAMES = {
    "a 300-character name": "x" * 296 + ".toml",
    "a 4,200-character path": "/".join(["y" * 200] * 21) + ".toml",
}


def _special_files(tally: Tally, tmp: Path, load: Callable[[Path], object]) -> None:
    """A directory, a missing file, an unreadable file (when not root), a huge file."""
    folder = tmp / "folder.toml"
    folder.mkdir()
    _judge(tally, "a directory", lambda: load(folder), str(folder), keyed=True)
    missing = tmp / "missing.toml"
    _judge(tally, "a missing file", lambda: load(missing), str(missing), keyed=True)
    huge = tmp / "huge.toml"
    huge.write_bytes(b"# " + b"x" * (8 << 20) + b"\n")
    _judge(tally, "an 8 MB comment", lambda: load(huge), str(huge), keyed=True)
    empty = tmp / "empty.toml"
    empty.write_bytes(b"")
    _judge(tally, "an empty file", lambda: load(empty), str(empty), keyed=True)
    locked = tmp / "locked.toml"
    locked.write_text("[a]\n")
    locked.chmod(0)
    _judge(tally, "an unreadable file", lambda: load(locked), str(locked), keyed=True)
    pipe = tmp / "pipe.toml"
    os.mkfifo(pipe)
    _judge(tally, "a named pipe", lambda: load(pipe), str(pipe), keyed=True)
    for what, name in LONG_NAMES.items():
        _judge(tally, what, lambda name=name: load(tmp / name), str(tmp / name), keyed=True)


def _valid_journal(path: Path) -> None:
    game = Game.new(2, seed=3)
    with Journal(path) as journal:
        game_id = journal.start(game)
        for die in (3, 5, 2, 6, 1):
            if game.phase is Phase.CLOUD:
                game.cloud_phase(None)
            else:
                game.set_die(die)
                game.push(game.legal_moves()[0])
            journal.sync(game_id, game)


DEEP_JSON = "[" * 100_000 + "]" * 100_000


def fuzz_journal(examples: int, seed: int = 0) -> Tally:
    tally = Tally("journal file")
    board = load_board()
    with workdir() as tmp:
        source = tmp / "source.db"
        _valid_journal(source)
        valid = source.read_bytes()
        path = tmp / "bermuda.db"

        @given(
            st.lists(st.tuples(st.integers(0, len(valid) - 1), st.integers(0, 255)), max_size=6),
            st.one_of(st.none(), st.integers(0, len(valid))),
            st.one_of(
                st.none(),
                st.sampled_from(
                    (
                        '{"roll": 9}',
                        '{"move": "blue-1 HOME-S99"}',
                        "[1, 2]",
                        "null",
                        "{",
                        '{"engine": true, "cloud": "Z 3 N"}',
                        '"text"',
                        "{}",
                        DEEP_JSON,
                        '{"roll": ' + "9" * 5000 + "}",
                    )
                ),
            ),
            st.sampled_from((None, None, "9" * 5000, "²", "-1", "", "12")),
            st.sampled_from((None, None, "9" * 5000, "²", "99999999", "x")),
        )
        def prop(
            flips: list[tuple[int, int]],
            cut: int | None,
            entry: str | None,
            commits: str | None,
            mark: str | None,
        ) -> None:
            for name in ("bermuda.db", "bermuda.db-wal", "bermuda.db-shm", "bermuda.db-commits"):
                (tmp / name).unlink(missing_ok=True)
            data = bytearray(valid)
            for offset, byte in flips:
                data[offset] = byte
            path.write_bytes(bytes(data if cut is None else data[:cut]))
            if entry is not None:
                with (
                    contextlib.suppress(sqlite3.Error, UnicodeDecodeError),
                    sqlite3.connect(path) as conn,
                ):
                    if entry.startswith("{") and len(entry) % 2:  # the game's header too
                        conn.execute("UPDATE games SET setup = ?", (entry,))
                    conn.execute(
                        "UPDATE entries SET entry = ? WHERE seq = (SELECT MAX(seq) FROM entries)",
                        (entry,),
                    )
            if commits is not None:
                with contextlib.suppress(sqlite3.Error), sqlite3.connect(path) as conn:
                    conn.execute("UPDATE meta SET value = ? WHERE key = 'commits'", (commits,))
            if mark is not None:
                (tmp / "bermuda.db-commits").write_text(mark + "\n", encoding="utf-8")

            def action() -> None:
                with Journal(path) as journal:
                    journal.load(board)

            _judge(
                tally,
                f"journal flips={flips} cut={cut} entry={str(entry)[:40]!r} "
                f"commits={str(commits)[:12]} mark={str(mark)[:12]}",
                action,
                str(path),
            )

        _run(prop, examples, seed)
    return tally


# --- the command line -----------------------------------------------------------------------

OPTION_VALUES = (
    "-1",
    "0",
    "1",
    "nan",
    "inf",
    "-inf",
    "1e-300",
    "1e6",
    "1e308",
    "",
    "99999999999999999999",
    "3",
    "x",
    "-",
    "--",
    "DIR",
    "MISSING",
    "FILE",
    "²",
    "١٢",
    "9" * 5000,
    "127.0.0.1:²",
    "127.0.0.1:" + "9" * 5000,
    "[::1]:80",
    "LONGNAME",
    "LONGPATH",
    "PIPE",
)
COMMANDS: dict[str, tuple[str, ...]] = {
    "board show": ("--board", "--json"),
    "render OUT": (
        "--seed",
        "--perturb",
        "--truth",
        "--board",
        "--start",
        "--empty",
        "--hand",
        "--still",
    ),
    "detect IMAGE": ("--board", "--calibration", "--annotate", "--calibrate", "--json"),
    "run --simulate": (
        "--config",
        "--state-dir",
        "--board",
        "--players",
        "--seed",
        "--speed",
        "--max-rounds",
        "--bind",
    ),
    "game show": ("--state-dir", "--board", "--json"),
    "game new": ("--state-dir", "--board", "--players", "--seed"),
    "game undo": ("--state-dir", "--board"),
    "render LONGNAME": ("--start", "--seed"),
    "detect IMAGE --calibrate": ("LONGNAME", "LONGPATH", "DIR", "MISSING"),
    "": ("--players", "--seed", "--board", "--simulate"),
}
FLAGS = {"--json", "--start", "--empty", "--hand", "--still", "--simulate"}


def _cli_case(tmp: Path, command: str, options: list[tuple[str, str]], first: bool) -> list[str]:
    places = {
        "DIR": str(tmp),
        "MISSING": str(tmp / "missing" / "x"),
        "FILE": str(tmp / "file.txt"),
        "OUT": str(tmp / "out.png"),
        "IMAGE": str(tmp / "image.png"),
        "PIPE": str(tmp / "pipe"),
        "LONGNAME": str(tmp / LONG_NAMES["a 300-character name"]),
        "LONGPATH": str(tmp / LONG_NAMES["a 4,200-character path"]),
    }
    words = [places.get(w, w) for w in command.split()]
    extra: list[str] = []
    for option, value in options:
        extra.append(option)
        if option not in FLAGS:
            extra.append(places.get(value, value))
    return (extra + words) if first else (words + extra)


def fuzz_cli(examples: int, seed: int = 0) -> Tally:
    """Every command's options with negative, NaN, huge, empty and path values, in-process.

    `run` stops where the daemon would start the rig: everything it checks
    before anything moves is exercised.
    """
    from bermuda_hw.cli import main

    tally = Tally("CLI options")
    with workdir() as tmp:
        (tmp / "file.txt").write_text("not a board\n")
        os.mkfifo(tmp / "pipe")
        cv2.imwrite(str(tmp / "image.png"), np.full((48, 64, 3), 90, np.uint8))

        @given(
            st.sampled_from(sorted(COMMANDS)).flatmap(
                lambda c: st.tuples(
                    st.just(c),
                    st.lists(
                        st.tuples(st.sampled_from(COMMANDS[c]), st.sampled_from(OPTION_VALUES)),
                        max_size=3,
                    ),
                    st.booleans(),
                )
            )
        )
        def prop(case: tuple[str, list[tuple[str, str]], bool]) -> None:
            command, options, first = case
            argv = _cli_case(tmp, command, options, first and command != "")
            err = io.StringIO()
            tally.cases += 1
            try:
                with (
                    _deadline(CASE_DEADLINE_S),
                    contextlib.chdir(tmp),  # relative paths land in the scratch folder
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(err),
                    mock.patch("bermuda_hw.cli.run._run_locked", return_value=0),
                ):
                    code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            except Exception:
                tally.failures.append(f"bermuda-hw {argv}:\n{traceback.format_exc(limit=-3)}")
                return
            finally:
                for name in ("out.png",):
                    (tmp / name).unlink(missing_ok=True)
            text = err.getvalue()
            if code == 0:
                tally.accepted += 1
            elif "Traceback" in text or not text.strip():
                tally.failures.append(f"bermuda-hw {argv}: exit {code} without a message")
            else:
                tally.refused += 1

        _run(prop, examples, seed)
    return tally


# --- images for detect ----------------------------------------------------------------------


def _image_bytes(kind: str, size: tuple[int, int], noise: bytes, cut: float) -> bytes:
    h, w = size
    if kind == "gray":
        ok, data = cv2.imencode(".png", np.full((h, w), 128, np.uint8))
    elif kind == "16-bit":
        ok, data = cv2.imencode(".png", np.full((h, w, 3), 40000, np.uint16))
    elif kind == "alpha":
        ok, data = cv2.imencode(".png", np.full((h, w, 4), 200, np.uint8))
    elif kind == "jpeg":
        ok, data = cv2.imencode(".jpg", np.full((h, w, 3), 60, np.uint8))
    elif kind == "noise":
        return noise
    elif kind == "text":
        return b"P3\n1 1\n255\n0 0 " + noise
    else:
        rng = np.random.default_rng(len(noise))
        ok, data = cv2.imencode(".png", rng.integers(0, 255, (h, w, 3), np.uint8))
    assert ok
    raw = data.tobytes()
    return raw[: max(1, int(len(raw) * cut))] if cut < 1.0 else raw


def fuzz_images(examples: int, seed: int = 0) -> Tally:
    """Truncated, 1x1, grayscale, 16-bit, with alpha, long and thin, not images at all."""
    from bermuda_hw.cli import main

    tally = Tally("detect images")
    with workdir() as tmp:

        @given(
            st.sampled_from(("gray", "16-bit", "alpha", "jpeg", "noise", "text", "colour")),
            st.tuples(st.sampled_from((1, 2, 7, 64, 480)), st.sampled_from((1, 3, 640, 4000))),
            st.binary(max_size=64),
            st.sampled_from((1.0, 1.0, 0.5, 0.9, 0.01)),
            st.sampled_from((".png", ".jpg", "", ".txt")),
        )
        def prop(kind: str, size: tuple[int, int], noise: bytes, cut: float, suffix: str) -> None:
            path = tmp / f"image{suffix}"
            path.write_bytes(_image_bytes(kind, size, noise, cut))
            err = io.StringIO()
            tally.cases += 1
            try:
                with (
                    contextlib.chdir(tmp),
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(err),
                ):
                    code = main(["detect", str(path), "--json"])
            except BaseException:
                tally.failures.append(
                    f"detect {kind} {size} cut {cut}:\n{traceback.format_exc(limit=-3)}"
                )
                return
            if code == 0:
                tally.accepted += 1
            else:
                tally.refused += 1

        _run(prop, examples, seed)
        folder = tmp / "folder.png"
        folder.mkdir()
        for what, path in (("a directory", folder), ("a missing file", tmp / "none.png")):
            tally.cases += 1
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    code = main(["detect", str(path), "--json"])
                tally.refused += code != 0
                tally.accepted += code == 0
            except BaseException:
                tally.failures.append(f"detect {what}:\n{traceback.format_exc(limit=-3)}")
    return tally


def fuzz_http(examples: int, seed: int = 0) -> Tally:
    """The page's server (chaos/fuzz_http.py, which builds on this module)."""
    from chaos.fuzz_http import fuzz_http as run

    return run(examples, seed)


FUZZERS: dict[str, Callable[[int, int], Tally]] = {
    "config": fuzz_config,
    "board": fuzz_board,
    "calibration": fuzz_calibration,
    "journal": fuzz_journal,
    "cli": fuzz_cli,
    "images": fuzz_images,
    "http": fuzz_http,
}


def fuzz_all(examples: int, seed: int = 0) -> list[Tally]:
    return [fuzz(examples, seed) for fuzz in FUZZERS.values()]
