"""Mutation scores of the rules, planning, referee and vision suites: `make mutation`.

Each target file is mutated by mutmut, one file at a time, against the tests that cover it,
and the script prints caught/tested per file. mutmut 3 imports the mutated package from
`mutants/` and names mutants after their path, so it expects the package under `./`, `src/`
or `source/`; ours lives under `firmware_py/`. Each target therefore gets its own small
project under `mutants/<target>/`: `src` and `tests` are links to the real ones, and its
pyproject.toml is this project's `[tool.pytest.ini_options]` and `[tool.mutmut]` with the
target's `only_mutate` and test selection added. Runs are niced and, unless `--jobs` says
more, use one child process.

    python scripts/mutation.py                 # every target
    python scripts/mutation.py moves profile   # some of them
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "mutants"


@dataclass(frozen=True)
class Target:
    name: str
    module: str  # path under firmware_py/bermuda_hw
    tests: tuple[str, ...]  # the tests that cover it
    # more [tool.mutmut] settings for this file alone
    settings: tuple[tuple[str, str], ...] = ()


TARGETS = (
    Target(
        "moves",
        "rules/moves.py",
        (
            "tests/rules/test_game.py",
            "tests/rules/test_notation.py",
            "tests/rules/test_rulings.py",
            "tests/rules/test_scenarios.py",
            "tests/rules/test_moves_edges.py",
            "tests/rules/test_docstrings.py",
        ),
    ),
    Target(
        "cloud",
        "rules/cloud.py",
        (
            "tests/rules/test_cloud_geometry.py",
            "tests/rules/test_cloud_sweep_boards.py",
            "tests/rules/test_rulings.py",
            "tests/hardware/test_hw_cloud_letters.py",
        ),
    ),
    Target(
        "profile",
        "planning/profile.py",
        ("tests/hardware/test_hw_planning.py", "tests/hardware/test_hw_profile_edges.py"),
    ),
    Target("identify", "controller/identify.py", ("tests/controller/test_controller_identify.py",)),
    Target(
        "ships",
        "vision/ships.py",
        (
            "tests/vision/test_vision_ships.py",
            "tests/vision/test_vision_ships_boards.py",
            "tests/vision/test_vision_ships_table.py",
            "tests/vision/test_vision_ships_places.py",
            "tests/vision/test_vision_evidence.py",
        ),
    ),
)

# mutmut's exit codes (mutmut.stats.status_by_exit_code): a mutant is caught when a test
# fails (1, 3) or it runs out of time (timeouts); it survives when every test passes (0).
KILLED = {1, 3}
TIMEOUT = {36, -24, 24, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")


def _table(name: str, values: dict[str, object]) -> str:
    lines = [f"[{name}]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def prepare(target: Target, fresh: bool) -> Path:
    """The target's project under mutants/<name>/, laid out as mutmut expects."""
    here = WORK / target.name
    if fresh and here.exists():
        shutil.rmtree(here)
    here.mkdir(parents=True, exist_ok=True)
    for link, real in (
        ("src", "firmware_py"),
        ("tests", "tests"),
        ("firmware_py", "firmware_py"),
        ("calibration", "calibration"),
    ):
        path = here / link
        if not path.is_symlink():
            path.symlink_to(ROOT / real, target_is_directory=True)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mutmut = dict(project["tool"]["mutmut"])
    mutmut["source_paths"] = ["src/bermuda_hw"]
    mutmut["only_mutate"] = [f"src/bermuda_hw/{target.module}"]
    mutmut["pytest_add_cli_args_test_selection"] = list(target.tests)
    mutmut.update(dict(target.settings))
    (here / "pyproject.toml").write_text(
        _table("tool.pytest.ini_options", project["tool"]["pytest"]["ini_options"])
        + "\n"
        + _table("tool.mutmut", mutmut),
        encoding="utf-8",
    )
    return here


@dataclass(frozen=True)
class Score:
    caught: int
    total: int  # the mutants tested
    made: int  # every mutant of the file (more than `total` when sampled)
    survived: tuple[str, ...]
    untested: tuple[str, ...]  # no test runs the mutated line
    other: dict[str, int]


def _meta(here: Path, target: Target) -> Path:
    return here / "mutants" / "src" / "bermuda_hw" / (target.module + ".meta")


def score(here: Path, target: Target, only: list[str] | None = None) -> Score:
    codes: dict[str, int | None] = json.loads(_meta(here, target).read_text(encoding="utf-8"))[
        "exit_code_by_key"
    ]
    made = len(codes)
    if only is not None:
        codes = {name: codes[name] for name in only}
    else:  # what was tested (all of them, unless the last run tested a sample)
        codes = {name: code for name, code in codes.items() if code is not None}
    caught = sum(1 for c in codes.values() if c in KILLED or c in TIMEOUT)
    survived = tuple(sorted(k for k, c in codes.items() if c in SURVIVED))
    untested = tuple(sorted(k for k, c in codes.items() if c in NO_TESTS))
    other: dict[str, int] = {}
    for c in codes.values():
        if c in KILLED or c in TIMEOUT or c in SURVIVED:
            continue
        kind = "no tests" if c in NO_TESTS else f"exit {c}"
        other[kind] = other.get(kind, 0) + 1
    return Score(caught, len(codes), made, survived, untested, other)


def _mutmut(here: Path, target: Target, command: list[str], log_name: str = "run.log") -> int:
    log = here / log_name
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            command,
            cwd=here,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "BERMUDA_HW_KEEP_FRAMES": "1"},
            check=False,
        )
    return done.returncode


def _sample(here: Path, target: Target, sample: int, seed: int) -> list[str]:
    """A uniform random sample of the file's mutants (the same for the same seed)."""
    names = sorted(json.loads(_meta(here, target).read_text("utf-8"))["exit_code_by_key"])
    return sorted(random.Random(seed).sample(names, min(sample, len(names))))


def run(target: Target, fresh: bool, sample: int = 0, seed: int = 1, jobs: int = 1) -> Score:
    here = prepare(target, fresh)
    mutmut = Path(sys.executable).with_name("mutmut")
    command = ["nice", "-n", "19", str(mutmut), "run", "--max-children", str(jobs)]
    only: list[str] | None = None
    if fresh and sample:
        # make the mutants (and the tests' coverage) with a name that matches none of them,
        # then test a uniform random sample of them
        probe = f"bermuda_hw.{target.module[:-3].replace('/', '.')}.no-such-mutant"
        _mutmut(here, target, [*command, probe], "generate.log")
        if not _meta(here, target).exists():
            raise SystemExit(
                f"bermuda-hw: error: mutmut made no mutants of {target.module}; "
                f"see {here / 'generate.log'}"
            )
        only = _sample(here, target, sample, seed)
        command += only
    elif not fresh and (here / "mutants").exists():
        # re-test only what survived the last run (mutmut re-runs mutants named to it), and,
        # with --sample, the sample's mutants that an interrupted run left untested; which
        # tests reach which function is found again, as edited tests may reach more
        (here / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        codes: dict[str, int | None] = json.loads(_meta(here, target).read_text(encoding="utf-8"))[
            "exit_code_by_key"
        ]
        if sample:
            only = _sample(here, target, sample, seed)
        survivors = score(here, target, only)
        left = [name for name in only or () if codes[name] is None]
        names = [*survivors.survived, *survivors.untested, *left]
        if not names:
            return survivors
        command += names
    code = _mutmut(here, target, command)
    if code != 0:
        raise SystemExit(
            f"bermuda-hw: error: mutmut failed on {target.module} "
            f"(exit {code}); see {here / 'run.log'}"
        )
    return score(here, target, only)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [t.name for t in TARGETS]
    parser.add_argument(
        "targets", nargs="*", help=f"which files, of {', '.join(names)} (default: all)"
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the last run's results and re-test only its survivors "
        "(with --sample and --seed: also the sample's untested mutants)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="test a random sample of N mutants per file (0: all of them)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the sample's random seed")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="mutants tested at once (default 1: a machine stays usable)",
    )
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument(
        "--report",
        action="store_true",
        help="only print the figures of the last run (or of its part done)",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.targets) - set(names))
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}: choose from {', '.join(names)}")
    chosen = [t for t in TARGETS if not args.targets or t.name in args.targets]
    print(f"{'file':<24} {'caught/tested':>13} {'score':>7} {'mutants':>8}  other")
    for target in chosen:
        if args.report:
            result = score(WORK / target.name, target)
        else:
            result = run(
                target,
                fresh=not args.keep,
                sample=max(0, args.sample),
                seed=args.seed,
                jobs=max(1, args.jobs),
            )
        percent = 100.0 * result.caught / result.total if result.total else 0.0
        other = ", ".join(f"{n} {k}" for k, n in sorted(result.other.items()))
        print(
            f"{target.module:<24} {f'{result.caught}/{result.total}':>13} {percent:6.1f}% "
            f"{result.made:>8}  {other}",
            flush=True,
        )
        if args.survivors:
            for name in result.survived:
                print(f"    survived: {name}")
            for name in result.untested:
                print(f"    no tests: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
