"""`make chaos`: the reliability campaign, printed as one table of figures.

    python chaos/run.py [--only PARTS] [--games N] [--kills N] [--fuzz N] ...

Defaults are the full campaign: on the real `bermuda-hw run` process (chaos/process.py),
20 whole games killed 5 times each at aimed moments, 100 power cuts, 5 full and 5
read-only disks, 5 watchdog aborts, 5 games under WAL checkpoints, 10 double Ctrl-Cs; in
process (chaos/campaign.py), 1,000 journal power cuts, 10 moments per injected fault kind,
clock jumps and SIGTERMs; 1,000 fuzzed cases per input kind (chaos/fuzz.py). The smoke
version in `make test` runs each part with a few cases (tests/test_chaos_smoke.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "measurements" / "chaos.md"
sys.path[:0] = [str(ROOT), str(ROOT / "firmware_py")]

from chaos import campaign, fuzz, process  # noqa: E402
from chaos.report import source_commit  # noqa: E402


def table(rows: list[campaign.Row]) -> str:
    lines = [
        "| part | goal | cases | passed | tracebacks / failures | time |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.part} | {r.goal} | {r.cases} | {r.passed} | "
            f"{r.cases - r.passed} | {r.seconds:.0f} s |"
        )
    return "\n".join(lines)


def fuzz_rows(examples: int, seed: int) -> list[campaign.Row]:
    rows = []
    for fuzzer in fuzz.FUZZERS.values():
        started = time.monotonic()
        tally = fuzzer(examples, seed)
        row = campaign.Row(
            f"fuzz: {tally.kind}",
            f">= {examples} cases, 0 tracebacks",
            tally.cases,
            tally.cases - tally.tracebacks,
            time.monotonic() - started,
            tally.failures,
        )
        rows.append(row)
        print(
            f"  {row.part}: {tally.cases} cases ({tally.accepted} accepted, {tally.refused} "
            f"refused with a named error), {tally.tracebacks} tracebacks",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chaos", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="whole games of `run` killed")
    parser.add_argument("--kills", type=int, default=5, help="kill -9s aimed in each game")
    parser.add_argument("--run-cuts", type=int, default=100, help="power cuts of `run`")
    parser.add_argument("--disks", type=int, default=5, help="full and read-only disks each")
    parser.add_argument("--dogs", type=int, default=5, help="watchdog aborts")
    parser.add_argument("--wal", type=int, default=5, help="games under WAL checkpoints")
    parser.add_argument("--ints", type=int, default=10, help="double Ctrl-Cs")
    parser.add_argument("--fuzz", type=int, default=1000, help="cases per fuzzed input kind")
    parser.add_argument("--cuts", type=int, default=1000, help="journal power cuts")
    parser.add_argument("--moments", type=int, default=10, help="moments per fault kind")
    parser.add_argument("--sigterms", type=int, default=30, help="SIGTERMs at random moments")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--report", default=str(REPORT), help="where the dated report goes ('' for none)"
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated parts: fuzz, cuts, "
        "faults, clock, sigterm, kill, run-cuts, disk, watchdog, wal, sigint",
    )
    args = parser.parse_args(argv)
    started_utc = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    commit = source_commit(ROOT)
    parts = (
        set(args.only.split(","))
        if args.only
        else {
            "fuzz",
            "cuts",
            "faults",
            "clock",
            "sigterm",
            "kill",
            "run-cuts",
            "disk",
            "watchdog",
            "wal",
            "sigint",
        }
    )
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    started = time.monotonic()
    rows: list[campaign.Row] = []
    steps: list[tuple[str, Callable[[], list[campaign.Row]]]] = [
        ("fuzz", lambda: fuzz_rows(args.fuzz, args.seed)),
        ("cuts", lambda: [campaign.power_cuts(args.cuts, args.seed)]),
        ("faults", lambda: [campaign.inject_faults(args.moments, args.seed)]),
        ("clock", lambda: [campaign.clock_jumps(args.moments, args.seed)]),
        ("sigterm", lambda: [campaign.sigterms(args.sigterms, args.seed)]),
        ("kill", lambda: [process.kill_runs(args.games, args.seed, args.kills)]),
        ("run-cuts", lambda: [process.power_cuts(args.run_cuts, args.seed)]),
        ("disk", lambda: [process.disk_faults(args.disks, args.seed)]),
        ("watchdog", lambda: [process.watchdog_aborts(args.dogs, args.seed)]),
        ("wal", lambda: [process.checkpoints(args.wal, args.seed)]),
        ("sigint", lambda: [process.double_interrupts(args.ints, args.seed)]),
    ]
    for name, step in steps:
        if name in parts:
            print(f"chaos: {name} ...", flush=True)
            for row in step():
                rows.append(row)
                print(f"  {row.part}: {row.passed}/{row.cases} in {row.seconds:.0f} s", flush=True)
    load = os.getloadavg()
    summary = (
        f"total {time.monotonic() - started:.0f} s; load average {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs"
    )
    failed = [r for r in rows if r.passed != r.cases]
    notes = []
    for r in rows:
        if r.passed != r.cases:
            notes.append(f"- **{r.part}**: {r.cases - r.passed} failed")
            notes += [f"    - {n.strip()[:1500]}" for n in r.notes[:5]]
        elif r.notes:
            notes.append(f"- {r.part}: {'; '.join(n.strip() for n in r.notes[:3])}")
    print()
    print(table(rows))
    print(f"\n{summary}")
    print("\n".join(notes))
    if args.report:
        write_report(
            Path(args.report),
            rows,
            summary,
            notes,
            sys.argv[1:] if argv is None else argv,
            started_utc,
            commit,
        )
    return 1 if failed else 0


def write_report(
    path: Path,
    rows: list[campaign.Row],
    summary: str,
    notes: list[str],
    argv: list[str] | None,
    started_utc: str,
    commit: str,
) -> None:
    """The campaign's figures as a page of the documentation, dated, with the commit and the
    machine's load: written by the run, never copied by hand."""
    command = " ".join(["make chaos", *(['ARGS="' + " ".join(argv) + '"'] if argv else [])])
    text = [
        "# The chaos campaign: the last full run",
        "",
        f"Written by `{command}` (chaos/run.py) from {started_utc} on commit `{commit}`; "
        f"{summary}. The parts and their checks: [Reliability](../reliability.md).",
        "",
        table(rows),
        "",
        *notes,
        "",
    ]
    path.write_text("\n".join(text), encoding="utf-8")
    print(f"report: {path}")


if __name__ == "__main__":
    sys.exit(main())
