"""The seams between layers: one place builds each thing; the rig and the simulator share it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "firmware_py" / "bermuda_hw"
# every place a table could be put together: the package, the chaos campaign, the tests
SOURCES = (PACKAGE, ROOT / "chaos", ROOT / "tests", ROOT / "benchmarks")


def _calls(name: str) -> set[str]:
    """The files (relative to the checkout) that call `name(...)`, unit tests left out."""
    found: set[str] = set()
    for folder in SOURCES:
        for path in folder.rglob("*.py"):
            if path.name.startswith("test_"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                called = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else "")
                if called == name:
                    found.add(path.relative_to(ROOT).as_posix())
    return found


def test_one_place_wires_a_controller_to_its_devices() -> None:
    # the rig (`run`) and the simulated table (`sim.table`) both go through `build_parts`
    assert _calls("Controller") <= {"firmware_py/bermuda_hw/controller/table.py",
                                    "benchmarks/bench_web.py"}  # bench_web: a stand-in class


def test_one_builder_puts_the_simulated_table_together() -> None:
    assert _calls("SimulatedPlayers") == {"firmware_py/bermuda_hw/sim/table.py"}
    assert _calls("build_parts") == {"firmware_py/bermuda_hw/sim/table.py",
                                     "firmware_py/bermuda_hw/cli/run.py"}


def test_the_composition_root_builds_backends_through_the_factory() -> None:
    # `run --simulate` too: only the factory and the simulated-table builder make one
    package = {p for p in _calls("SimBackend") if p.startswith("firmware_py/")}
    assert package == {"firmware_py/bermuda_hw/backends/__init__.py",
                       "firmware_py/bermuda_hw/sim/table.py"}
