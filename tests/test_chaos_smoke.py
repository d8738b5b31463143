"""A short smoke run of every part of `make chaos` (the full campaign is `make chaos`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chaos import campaign, fuzz  # noqa: E402


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


def test_kill_smoke(table_dir: Path) -> None:
    row = campaign.kill_games(1, seed=2, max_rounds=1, kills=1)
    assert row.passed == row.cases == 1, row.notes


def test_clock_jump_smoke(table_dir: Path) -> None:
    row = campaign.clock_jumps(1, seed=4)
    assert row.passed == row.cases == 1, row.notes
