"""The examples in the rules engine's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "bermuda_hw.rules.game",
        "bermuda_hw.rules.moves",
        "bermuda_hw.rules.play",
        "bermuda_hw.rules.candidates",
        "bermuda_hw.rules.boardfile",
        "bermuda_hw.rules.board",
        "bermuda_hw.rules.record",
        "bermuda_hw.rules.computer",
        "bermuda_hw.rules.hints",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
