"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import pytest

from bermuda_hw.rules.board import Board, load_board


@pytest.fixture(scope="session")
def classic_board() -> Board:
    """The classic board shipped with the package (immutable, so shared)."""
    return load_board()
