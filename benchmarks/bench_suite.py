"""How long the test suite takes: `make check` and `make test`, timed as they run.

The same commands as the Makefile's targets, from this checkout with this Python: the
checks both targets run first (ruff check and format, mypy --strict, lint-imports, the
documentation site), then `make check`'s tier (`pytest -n 2 -m "not table and not browser
and not frames"`) and `make test`'s whole suite (`pytest -n 2 --maxschedchunk 2`). Printed:
the seconds of each, the CPU seconds they took (user and system, all processes), the
totals of both targets against their goals (`make check` within 90 s, `make test` within
6 minutes, on two cores of an idle machine), the load average before and after each (a
loaded machine stretches every figure), and the slowest tests of the whole suite.

    python benchmarks/bench_suite.py [check] [test]

With no argument, both; it takes about as long as `make test` does (6-8 minutes).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CHECK_GOAL_S = 90.0
TEST_GOAL_S = 6 * 60.0
TYPED = "firmware_py/bermuda_hw"
LINTED = ["firmware_py", "tests", "benchmarks", "chaos", "scripts/mutation.py"]
FAST_TIER = "not table and not browser and not frames"
SLOWEST = 10  # the slowest tests of the whole suite, as pytest reports them


@dataclass
class Timed:
    name: str
    seconds: float
    cpu_s: float
    ok: bool
    load_before: str
    load_after: str
    output: str


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(name: str, commands: list[list[str]]) -> Timed:
    """Run the commands one after the other (all of them, as make would stop at the first
    that fails only after its output), timed together."""
    load_before = _load()
    cpu = _children_cpu_s()
    started = time.perf_counter()
    ok, output = True, []
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    for command in commands:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        ok = ok and done.returncode == 0
        output.append(done.stdout + done.stderr)
    seconds = time.perf_counter() - started
    timed = Timed(
        name, seconds, _children_cpu_s() - cpu, ok, load_before, _load(), "\n".join(output)
    )
    state = "passed" if ok else "FAILED"
    print(
        f"{name:<34} {seconds:6.0f} s  ({timed.cpu_s:5.0f} s CPU; {state}; "
        f"load {load_before} -> {timed.load_after})",
        flush=True,
    )
    return timed


def checks(scratch: Path) -> list[list[str]]:
    """What `make lint typecheck layers docs` runs, with no cache kept from an earlier run
    (as in a fresh clone: mypy's cache and ruff's make a second run a few seconds)."""
    python = sys.executable
    return [
        [python, "-m", "ruff", "check", "--no-cache", *LINTED],
        [python, "-m", "ruff", "format", "--check", "--no-cache", *LINTED],
        [python, "-m", "mypy", "--strict", "--cache-dir", str(scratch / "mypy"), TYPED],
        [str(BIN / "lint-imports"), "--no-logo"],
        [str(BIN / "mkdocs"), "build", "--strict", "--quiet", "--site-dir", str(scratch / "site")],
    ]


def slowest(output: str, n: int = SLOWEST) -> list[str]:
    """The first n lines of pytest's --durations table."""
    lines = output.splitlines()
    start = next((k for k, line in enumerate(lines) if "slowest" in line and "=" in line), None)
    if start is None:
        return []
    rows = [line for line in lines[start + 1 :] if line[:1].isdigit()]
    return rows[:n]


SUMMARY = re.compile(
    r"^=*\s*(\d+ (passed|failed|error|errors|skipped|deselected)\b.* in [\d.]+s.*?)\s*=*$"
)


def summary(output: str) -> str:
    """pytest's last line: how many passed, failed, ... in how long (framed in "=" with the
    project's one -q, bare with two; with two and no durations table it is left out)."""
    found = [m.group(1) for line in output.splitlines() if (m := SUMMARY.match(line.strip()))]
    return found[-1] if found else "(no summary)"


def main(argv: list[str]) -> int:
    targets = [a for a in argv if a in ("check", "test")] or ["check", "test"]
    python = sys.executable
    print(
        f"{os.cpu_count()} CPUs; goals: make check {CHECK_GOAL_S:.0f} s, make test "
        f"{TEST_GOAL_S / 60:.0f} min (two cores, idle)",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        before = run("lint, types, layers, docs", checks(Path(tmp)))
    totals = []
    if "check" in targets:
        fast = run(
            "pytest, make check's tier",
            [[python, "-m", "pytest", "-n", "2", "-m", FAST_TIER, "-p", "no:cacheprovider"]],
        )
        print(f"   {summary(fast.output)}")
        totals.append(("make check", before.seconds + fast.seconds, CHECK_GOAL_S, fast.ok))
    if "test" in targets:
        whole = run(
            "pytest, make test's whole suite",
            [
                [
                    python, "-m", "pytest", "-n", "2", "--maxschedchunk", "2",
                    "-p", "no:cacheprovider", f"--durations={SLOWEST}",
                ]
            ],
        )  # fmt: skip
        print(f"   {summary(whole.output)}")
        totals.append(("make test", before.seconds + whole.seconds, TEST_GOAL_S, whole.ok))
        rows = slowest(whole.output)
        if rows:
            print(f"the {len(rows)} slowest tests of the whole suite:")
            for row in rows:
                print(f"   {row}")
    for name, seconds, goal, ok in totals:
        verdict = "within" if seconds <= goal else "OVER"
        failed = "" if ok and before.ok else " (something FAILED)"
        print(f"{name}: {seconds:.0f} s, {verdict} its goal of {goal:.0f} s{failed}")
    return 0 if before.ok and all(ok for *_, ok in totals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
