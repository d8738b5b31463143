"""`benchmarks/bench_suite.py`: what it reads of pytest's output (the run itself is `make
bench`'s: it takes as long as `make test`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_suite.py"

OUTPUT = """\
........................................................................ [ 99%]
....                                                                     [100%]
============================= slowest 3 durations ==============================
61.20s call     tests/controller/test_sim_players_people.py::test_a_whole_game
28.02s call     tests/controller/test_controller_truth.py::test_four_players_seed_3_finish
0.51s setup    tests/web/test_web_browser.py::test_the_page
================ 1252 passed, 3 warnings in 301.77s (0:05:01) =================
"""


def _bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_suite", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_suite", bench)  # dataclasses look it up there
    spec.loader.exec_module(bench)
    return bench


def test_the_slowest_tests_and_the_summary_are_read_from_pytest_s_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = _bench(monkeypatch)
    rows = bench.slowest(OUTPUT, 2)
    assert [r.split()[0] for r in rows] == ["61.20s", "28.02s"]
    assert bench.summary(OUTPUT) == "1252 passed, 3 warnings in 301.77s (0:05:01)"
    assert bench.slowest("no table here") == [] and bench.summary("") == "(no summary)"
    # with -q twice the line is bare, and nothing but the durations' header above it is
    # framed in "="
    bare = [*OUTPUT.splitlines()[:6], "1325 passed, 2 skipped in 329.82s (0:05:29)"]
    assert bench.summary("\n".join(bare)) == "1325 passed, 2 skipped in 329.82s (0:05:29)"
    assert bench.summary("============ slowest 10 durations ============") == "(no summary)"


def test_the_totals_are_set_against_the_goals(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench(monkeypatch)
    ran: list[str] = []

    def run(name: str, commands: list[list[str]]) -> object:
        ran.append(name)
        seconds = 40.0 if name.startswith("lint") else 45.0 if "check" in name else 400.0
        return bench.Timed(name, seconds, 2 * seconds, True, "0.1", "0.2", OUTPUT)

    monkeypatch.setattr(bench, "run", run)
    assert bench.main([]) == 0
    out = capsys.readouterr().out
    assert len(ran) == 3 and "make test" in ran[2]
    assert "make check: 85 s, within its goal of 90 s" in out
    assert "make test: 440 s, OVER its goal of 360 s" in out
    assert "61.20s call" in out and "goals: make check 90 s, make test 6 min" in out
    ran.clear()
    assert bench.main(["check"]) == 0
    assert len(ran) == 2
