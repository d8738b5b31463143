"""A short smoke run of every part of `make chaos` (the full campaign is `make chaos`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chaos import campaign, fuzz, process  # noqa: E402


@pytest.mark.parametrize("kind", sorted(fuzz.FUZZERS))
def test_fuzz_smoke(kind: str) -> None:
    tally = fuzz.FUZZERS[kind](12, 1)
    assert tally.cases >= 12
    assert tally.failures == []


def test_power_cut_smoke() -> None:
    row = campaign.power_cuts(30, seed=1)
    assert row.passed == row.cases == 30, row.notes


def test_injected_fault_smoke(table_dir: Path) -> None:
    row = campaign.inject_faults(1, seed=1, kinds=("read-only journal", "PCA9685 vanishes"))
    assert row.passed == row.cases == 2, row.notes


def test_sigterm_smoke(table_dir: Path) -> None:
    row = campaign.sigterms(1, seed=3)
    assert row.passed == row.cases == 1, row.notes


# the parts on the real `bermuda-hw run` process, each on a few rounds of one game


def test_kill_smoke(table_dir: Path) -> None:
    row = process.kill_runs(1, seed=2, kills=2, max_rounds=3)
    # every kill is made, in a second game if the first (3 rounds) ended before both
    assert row.passed == row.cases and row.cases in (1, 2), row.notes
    assert row.notes[0].startswith(f"2 kills in {row.cases} games"), row.notes


def test_power_cut_of_run_smoke(table_dir: Path) -> None:
    row = process.power_cuts(2, seed=1, per_game=2, max_rounds=3)
    assert row.passed == row.cases == 2, row.notes


def test_disk_smoke(table_dir: Path) -> None:
    row = process.disk_faults(1, seed=1, max_rounds=4)
    if row.cases == 0:  # not root, or a container that may not mount
        assert "skipped" in row.notes[0] and (os.geteuid() != 0 or "loop" in row.notes[0])
        pytest.skip(row.notes[0])
    assert row.passed == row.cases == 2, row.notes


def test_watchdog_smoke(table_dir: Path) -> None:
    row = process.watchdog_aborts(1, seed=1, max_rounds=4)
    assert row.passed == row.cases == 1, row.notes


def test_checkpoint_smoke(table_dir: Path) -> None:
    row = process.checkpoints(1, seed=1, max_rounds=3)
    assert row.passed == row.cases == 1, row.notes


def test_double_interrupt_smoke(table_dir: Path) -> None:
    row = process.double_interrupts(1, seed=1, max_rounds=3)
    assert row.passed == row.cases == 1, row.notes


def test_clock_jump_smoke(table_dir: Path) -> None:
    row = campaign.clock_jumps(1, seed=4)
    assert row.passed == row.cases == 1, row.notes


def test_the_report_names_the_commit_the_load_and_every_failure(tmp_path: Path) -> None:
    from chaos import run

    rows = [
        campaign.Row("power cut", "10/10 copies resume", 10, 10, 2.0),
        campaign.Row("kill -9", "4/4 games", 4, 3, 9.0, ["game 2: stalled in round 5"]),
    ]
    path = tmp_path / "chaos.md"
    notes = ["- **kill -9**: 1 failed", "    - game 2: stalled in round 5"]
    run.write_report(
        path, rows, "total 11 s; load average 1.0", notes, ["--only", "kill"], "now", "abc1234"
    )
    text = path.read_text(encoding="utf-8")
    assert "| kill -9 | 4/4 games | 4 | 3 | 1 | 9 s |" in text
    assert "| power cut | 10/10 copies resume | 10 | 10 | 0 | 2 s |" in text
    assert "commit `abc1234`" in text and "load average 1.0" in text
    assert "game 2: stalled in round 5" in text
    assert 'make chaos ARGS="--only kill"' in text
    # the commit is read from git, with a word when the tree differs from it
    commit = run.source_commit(ROOT)
    assert commit.split(",")[0].isalnum()
