"""`benchmarks/bench_computer.py` in a short run: it plays every pairing and states each goal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_computer.py"


def test_bench_computer_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_computer", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.wilson(0, 10)[0] == 0.0
    low, high = bench.wilson(80, 100)
    assert low < 0.8 < high
    bench.main(["--games", "2"])
    out = capsys.readouterr().out
    for pairing in (
        "best vs random mover",
        "best vs greedy card-taker",
        "easy vs random mover",
        "easy vs greedy card-taker",
        "best vs easy",
        "greedy vs random mover",
    ):
        assert f"{pairing} " in out and "of 2 games" in out
    assert out.count("goal: ") == 4
    assert "best chooses a move in" in out
