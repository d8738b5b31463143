"""`bermuda-hw run --simulate` and `bermuda-hw game show|new` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bermuda_hw.cli import main
from bermuda_hw.controller.journal import Journal
from bermuda_hw.sim.truth import TRUTH_FILE, TruthLog, compare_moves


def test_run_simulate_then_game_show_and_new(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(table_dir / "state")
    code = main(
        [
            "run",
            "--simulate",
            "--players",
            "2",
            "--seed",
            "3",
            "--state-dir",
            state,
            "--max-rounds",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "new game 1" in out and "spin: " in out and "frames read:" in out
    # the simulated players' true moves lie beside the journal, one for each committed move
    with Journal.in_state_dir(state) as journal:
        stored = journal.current()
    assert stored is not None
    checks = compare_moves(stored.record(), TruthLog.read(Path(state) / TRUTH_FILE))
    assert len(checks) >= 4 and all(c.truth is not None for c in checks)
    assert main(["game", "show", "--json", "--state-dir", state]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["game_id"] == 1 and shown["round"] == 3 and shown["players"] == ["blue", "yellow"]
    assert len(shown["ships"]) == 8 and {s["status"] for s in shown["ships"]} <= {
        "board",
        "under-cloud",
        "cloud",
        "out",
    }
    assert main(["game", "show", "--state-dir", state]) == 0
    assert "standings:" in capsys.readouterr().out
    assert main(["game", "new", "--players", "3", "--seed", "9", "--state-dir", state]) == 0
    assert "game 1 archived" in capsys.readouterr().out
    with Journal.in_state_dir(state) as journal:
        games = journal.games()
    assert [g[0] for g in games] == [1, 2] and games[0][3] is not None


@pytest.mark.parametrize("empty_file", [False, True])
def test_game_show_without_a_journal_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], empty_file: bool
) -> None:
    # the daemon creates the file empty before SQLite writes to it: a power cut between
    # the two leaves an empty file, which is no journal yet, not a foreign file
    if empty_file:
        (tmp_path / "bermuda.db").touch(mode=0o600)
    assert main(["game", "show", "--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no journal yet" in err and "not an SQLite database" not in err


def test_run_refuses_a_foreign_state_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bermuda.db").write_text("not a database")
    assert main(["run", "--simulate", "--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "bermuda.db" in err and "nothing was changed" in err
    assert (tmp_path / "bermuda.db").read_text() == "not a database"


def test_sigterm_stops_the_daemon_cleanly(table_dir: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    state = table_dir / "state"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from bermuda_hw.cli import main; sys.exit(main())",
            "run",
            "--simulate",
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
        deadline = time.monotonic() + 60
        db = state / "bermuda.db"
        while time.monotonic() < deadline:  # wait until the game is journalled and moving
            if db.exists():
                with Journal(db) as journal:
                    current = journal.current()
                    if current is not None and len(current.entries) >= 4:
                        break
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    with Journal(state / "bermuda.db") as journal:
        current = journal.current()
    assert current is not None and len(current.entries) >= 4
