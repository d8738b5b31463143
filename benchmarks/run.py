"""`make bench`: runs every benchmark in this folder (bench_*.py), prints its figures, and
writes them as a page of the documentation (docs/measurements/bench.md), dated, with the
commit and the machine's load: the figures are never copied by hand.

    python benchmarks/run.py [NAME ...] [--report PATH | --no-report]

NAMEs pick benchmarks by part of their name (`computer` runs bench_computer.py).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REPORT = ROOT / "docs" / "measurements" / "bench.md"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chaos.report import source_commit  # noqa: E402


class _Tee(io.TextIOBase):
    """Printed output that also goes into the report."""

    def __init__(self, out: io.TextIOBase) -> None:
        self.out = out
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.out.write(text)
        self.out.flush()
        return self.kept.write(text)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    report: Path | None = REPORT
    if "--no-report" in args:
        report, args = None, [a for a in args if a != "--no-report"]
    if "--report" in args:
        k = args.index("--report")
        report, args = Path(args[k + 1]), args[:k] + args[k + 2 :]
    files = sorted(HERE.glob("bench_*.py"))
    if args:
        files = [f for f in files if any(n in f.stem for n in args)]
    started_utc = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    commit = source_commit(ROOT)
    sections = []
    for path in files:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        print(f"== {path.stem} ==", flush=True)
        tee = _Tee(sys.stdout)  # type: ignore[arg-type]
        started = time.perf_counter()
        with contextlib.redirect_stdout(tee):
            module.main([]) if _takes_argv(module) else module.main()
        seconds = time.perf_counter() - started
        print(f"   ({seconds:.1f} s, {_load()})", flush=True)
        sections.append((path.stem, tee.kept.getvalue(), seconds, _load()))
    if report is not None and sections:
        _write(report, sections, args, started_utc, commit)
    return 0


def _takes_argv(module: Any) -> bool:
    """Whether a benchmark's `main` takes its arguments (else it reads none)."""
    return bool(inspect.signature(module.main).parameters)


def _write(
    path: Path,
    sections: list[tuple[str, str, float, str]],
    names: list[str],
    started_utc: str,
    commit: str,
) -> None:
    command = "make bench" if not names else f"python benchmarks/run.py {' '.join(names)}"
    lines = [
        "# The benchmarks: the last run",
        "",
        f"Written by `{command}` (benchmarks/run.py) from {started_utc} on commit "
        f"`{commit}`. Each benchmark's output as printed, with its time and the machine's "
        "load when it ended. Earlier figures: the dated pages beside this one.",
        "",
    ]
    for name, text, seconds, load in sections:
        lines += [f"## {name}", "", f"{seconds:.0f} s; {load}.", "", "```text", text.rstrip()]
        lines += ["```", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    print(f"report: {path}")


if __name__ == "__main__":
    sys.exit(main())
