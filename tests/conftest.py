"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import pytest
from hypothesis import settings

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board

# Hypothesis checks what a property holds, not how fast: a loaded CI machine must not fail a
# test on its 200 ms per-example deadline (speed is measured in `make bench`).
settings.register_profile("bermuda", deadline=None)
settings.load_profile("bermuda")


@pytest.fixture(scope="session")
def classic_board() -> Board:
    """The classic board shipped with the package (immutable, so shared)."""
    return load_board()
