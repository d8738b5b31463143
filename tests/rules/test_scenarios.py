"""Perft-style scenarios: a position, a die and the exact set of legal moves, from TOML files.

Each file in `scenarios/` describes a tiny board (its paths) and scenarios on
it; the expected move sets were worked out by hand from the rulings.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move

HERE = Path(__file__).resolve().parent / "scenarios"


def _load() -> list[Any]:
    cases = []
    for file in sorted(HERE.glob("*.toml")):
        data = tomllib.loads(file.read_text(encoding="utf-8"))
        for i, scenario in enumerate(data["scenario"]):
            cases.append(
                pytest.param(data["paths"], scenario, id=f"{file.stem}-{i:02d}-{scenario['name']}")
            )
    return cases


CASES = _load()


def test_there_are_enough_scenarios() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize(("paths", "scenario"), CASES)
def test_scenario(
    paths: list[list[str]],
    scenario: dict[str, Any],
    tiny_board: Callable[..., Board],
    position: Callable[..., Game],
) -> None:
    board = tiny_board(paths, scenario.get("blocked", []))
    game = position(
        board, scenario["players"], scenario["ships"], scenario["active"], scenario["die"]
    )
    got = sorted(str(m) for m in game.legal_moves())
    assert got == sorted(scenario["moves"])
    # the text form of every expected move parses back to the same move
    for text in scenario["moves"]:
        assert str(Move.parse(text)) == text
