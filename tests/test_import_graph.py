"""The layers hold: import-linter's contracts (pyproject.toml) pass on this tree, an import that
crosses a layer makes `lint-imports` fail, and at run time no production module loads the
simulator."""

from __future__ import annotations

import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import bermuda_hw

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(bermuda_hw.__file__).parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
# the composition root (the CLI, the simulated backend the factory builds) and the simulator
COMPOSITION = ("bermuda_hw.cli", "bermuda_hw.sim", "bermuda_hw.backends.sim")


def lint_imports(tree: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the package under `tree/firmware_py` with `tree/pyproject.toml`."""
    args = [str(LINT_IMPORTS), "--no-cache", "--no-logo"]
    for contract in contracts:
        args += ["--contract", contract]
    env = {**os.environ, "PYTHONPATH": str(tree / "firmware_py"), "COLUMNS": "200"}
    return subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the package and its pyproject.toml, to add an import to."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(
        PACKAGE,
        tmp_path / "firmware_py" / "bermuda_hw",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Contracts: [1-9][0-9]* kept, 0 broken\.", result.stdout), result.stdout


# (module, the lines added at its end, the contract they break, the import it reports)
FORBIDDEN = [
    (
        "controller/table.py",
        "import bermuda_hw.sim.table",
        "simulator",
        "bermuda_hw.controller.table -> bermuda_hw.sim.table",
    ),
    (
        "vision/types.py",
        "from bermuda_hw.sim.world import World",
        "simulator",
        "bermuda_hw.vision.types -> bermuda_hw.sim.world",
    ),
    (
        "backends/real.py",
        "from bermuda_hw.backends.sim import SimBackend",
        "simulator",
        "bermuda_hw.backends.real -> bermuda_hw.backends.sim",
    ),
    # an import inside a function counts, and so does one through another module
    (
        "web/service.py",
        "def _later() -> None:\n    import bermuda_hw.sim.rig",
        "simulator",
        "bermuda_hw.web.service -> bermuda_hw.sim.rig",
    ),
    (
        "geometry.py",
        "import bermuda_hw.cli.run",
        "simulator",
        "bermuda_hw.geometry -> bermuda_hw.cli.run",
    ),
    (
        "rules/game.py",
        "import bermuda_hw.vision.reader",
        "pure",
        "bermuda_hw.rules.game -> bermuda_hw.vision.reader",
    ),
    (
        "planning/route.py",
        "from bermuda_hw.devices.stepper import Stepper",
        "pure",
        "bermuda_hw.planning.route -> bermuda_hw.devices.stepper",
    ),
    (
        "rules/moves.py",
        "from bermuda_hw.clock import Clock",
        "pure",
        "bermuda_hw.rules.moves -> bermuda_hw.clock",
    ),
    (
        "vision/reader.py",
        "import bermuda_hw.controller.daemon",
        "below-controller",
        "bermuda_hw.vision.reader -> bermuda_hw.controller.daemon",
    ),
    (
        "motion/mover.py",
        "import bermuda_hw.web.app",
        "below-controller",
        "bermuda_hw.motion.mover -> bermuda_hw.web.app",
    ),
    (
        "devices/stepper.py",
        "from bermuda_hw.cli import main",
        "below-controller",
        "bermuda_hw.devices.stepper -> bermuda_hw.cli",
    ),
    (
        "web/app.py",
        "from bermuda_hw.cli.board import register",
        "layers",
        "bermuda_hw.web.app -> bermuda_hw.cli.board",
    ),
    (
        "controller/referee.py",
        "import bermuda_hw.web.hub",
        "layers",
        "bermuda_hw.controller.referee -> bermuda_hw.web.hub",
    ),
    # the shared configuration importing a backend puts planning above the backends
    (
        "config.py",
        "from bermuda_hw.backends.camera import CameraSource",
        "layers",
        "bermuda_hw.config -> bermuda_hw.backends.camera",
    ),
    # the circles that types only for type checking used to make
    (
        "rules/events.py",
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from bermuda_hw.rules.game import Game",
        "no-circles",
        "No cycles are allowed in bermuda_hw.rules",
    ),
    (
        "vision/lighting.py",
        "from bermuda_hw.vision.colors import LIGHTNESS_WEIGHT",
        "no-circles",
        "No cycles are allowed in bermuda_hw.vision",
    ),
    (
        "vision/types.py",
        "from bermuda_hw.vision.evidence import combine",
        "no-circles",
        "No cycles are allowed in bermuda_hw.vision",
    ),
]


@pytest.mark.parametrize(
    ("module", "lines", "contract", "reported"),
    FORBIDDEN,
    ids=[f"{c}:{m}" for m, _, c, _ in FORBIDDEN],
)
def test_a_forbidden_import_breaks_its_contract(
    tree: Path, module: str, lines: str, contract: str, reported: str
) -> None:
    path = tree / "firmware_py" / "bermuda_hw" / module
    path.write_text(path.read_text() + "\n\n" + lines + "\n")
    result = lint_imports(tree, contract)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 1 broken." in result.stdout
    assert reported in result.stdout


def test_the_simulator_contract_names_every_production_module() -> None:
    """A module added beside the others is checked too: the contract's sources cover every
    top-level module and package except the composition root and the simulator."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    simulator = next(c for c in contracts["contracts"] if c["id"] == "simulator")
    sources = set(simulator["source_modules"])
    backends = PACKAGE / "backends"
    expected = {
        f"bermuda_hw.{m.name}"
        for m in pkgutil.iter_modules([str(PACKAGE)])
        if m.name not in ("backends", "cli", "sim")
    }
    expected |= {
        f"bermuda_hw.backends.{m.name}"
        for m in pkgutil.iter_modules([str(backends)])
        if m.name != "sim"
    }
    assert sources == expected


def production_modules(path: Path, prefix: str) -> Iterator[str]:
    """Every module of the package outside the composition root, without importing any."""
    for info in pkgutil.iter_modules([str(path)], prefix):
        if info.name in COMPOSITION:
            continue
        yield info.name
        if info.ispkg:
            yield from production_modules(path / info.name.rsplit(".", 1)[1], info.name + ".")


def test_no_production_module_loads_the_simulator_at_run_time() -> None:
    """What static analysis cannot see (`importlib.import_module` of a computed name): every
    production module imported, and neither the simulator nor the CLI is loaded."""
    modules = list(production_modules(PACKAGE, "bermuda_hw."))
    assert "bermuda_hw.controller.table" in modules and "bermuda_hw.backends.real" in modules
    code = (
        "import importlib, sys\n"
        "for m in sys.argv[1:]:\n"
        "    importlib.import_module(m)\n"
        f"roots = {COMPOSITION!r}\n"
        "print(' '.join(sorted(m for m in sys.modules\n"
        "                      if any(m == r or m.startswith(r + '.') for r in roots))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
