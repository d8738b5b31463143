"""`make bench` writes what it prints into a dated page of the documentation."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"


def test_the_runner_writes_each_benchmarks_output_with_the_commit_and_the_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("bench_runner", RUNNER)
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    (tmp_path / "bench_alpha.py").write_text(
        "def main():\n    print('alpha: 12.5 ms per frame')\n", encoding="utf-8"
    )
    (tmp_path / "bench_beta.py").write_text(
        "def main(argv=None):\n    assert argv == []\n    print('beta: 3 of 3')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(runner, "HERE", tmp_path)
    report = tmp_path / "bench.md"
    assert runner.main(["--report", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "alpha: 12.5 ms per frame" in printed and "beta: 3 of 3" in printed
    text = report.read_text(encoding="utf-8")
    assert "## bench_alpha" in text and "alpha: 12.5 ms per frame" in text
    assert "## bench_beta" in text and "beta: 3 of 3" in text
    assert "load average" in text and "on commit `" in text
    # one picked by name: only its figures
    assert runner.main(["beta", "--report", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert "bench_beta" in text and "bench_alpha" not in text
    assert "python benchmarks/run.py beta" in text
