"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board

# Hypothesis checks what a property holds, not how fast: a loaded CI machine must not fail a
# test on its 200 ms per-example deadline (speed is measured in `make bench`).
settings.register_profile("bermuda", deadline=None)
settings.load_profile("bermuda")

# The tiers of the suite, marked from the fixtures a test uses (directly or through another
# fixture): `make check` deselects them, `make test` runs everything.
TIER_FIXTURES = {
    "make_table": "table",  # tests/controller/conftest.py: a whole simulated table
    "table_dir": "table",  # below: a whole simulated table that the test runs itself
    "whole_game": "table",  # tests/controller/test_controller_truth.py: whole games
    "browser": "browser",  # tests/web/test_web_browser.py: Debian's Chromium
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        for fixture, marker in TIER_FIXTURES.items():
            if fixture in uses:
                item.add_marker(marker)


@pytest.fixture(scope="session")
def classic_board() -> Board:
    """The classic board shipped with the package (immutable, so shared)."""
    return load_board()


@pytest.fixture
def table_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder for a whole simulated table that a test runs itself (`bermuda-hw run
    --simulate` in or out of process, `sim.session`, the benchmarks, the chaos campaign, a
    `--simulate` command that moves the simulated rig or reads its camera end to end): the
    run's temporary folders (tempfile's, and TMPDIR for its subprocesses) are made in it too,
    where pytest keeps them after a failure."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path
