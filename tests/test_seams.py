"""The seams between layers: one place builds each thing; the rig and the simulator share it."""

from __future__ import annotations

import ast
import inspect
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
                called = (
                    func.id
                    if isinstance(func, ast.Name)
                    else (func.attr if isinstance(func, ast.Attribute) else "")
                )
                if called == name:
                    found.add(path.relative_to(ROOT).as_posix())
    return found


def test_one_place_wires_a_controller_to_its_devices() -> None:
    # the rig (`run`) and the simulated table (`sim.table`) both go through `build_parts`
    assert _calls("Controller") <= {
        "firmware_py/bermuda_hw/controller/table.py",
        "benchmarks/bench_web.py",
    }  # bench_web: a stand-in class


def test_one_builder_puts_the_simulated_table_together() -> None:
    assert _calls("SimulatedPlayers") == {"firmware_py/bermuda_hw/sim/table.py"}
    assert _calls("build_parts") == {
        "firmware_py/bermuda_hw/sim/table.py",
        "firmware_py/bermuda_hw/cli/run.py",
    }


def test_the_composition_root_builds_backends_through_the_factory() -> None:
    # `run --simulate` too: only the factory and the simulated-table builder make one
    package = {p for p in _calls("SimBackend") if p.startswith("firmware_py/")}
    assert package == {
        "firmware_py/bermuda_hw/backends/__init__.py",
        "firmware_py/bermuda_hw/sim/table.py",
    }


def _annotations(func: object) -> dict[str, str]:
    return {name: str(p.annotation) for name, p in inspect.signature(func).parameters.items()}  # type: ignore[arg-type]


def test_the_controller_is_handed_typed_seams() -> None:
    from bermuda_hw.controller.daemon import Controller
    from bermuda_hw.controller.signals import TableSignals
    from bermuda_hw.devices.rotation import PCA9685Board, create_rotation

    hints = _annotations(Controller.__init__)
    assert (hints["mover"], hints["controls"], hints["clock"], hints["reader"]) == (
        "Mover",
        "Controls",
        "Clock",
        "BoardReader | None",
    )
    for func in (create_rotation, TableSignals.__init__, PCA9685Board.__init__):
        assert not [n for n, a in _annotations(func).items() if "Any" in a], func


def test_the_rig_and_the_simulator_share_the_backend_abc() -> None:
    from bermuda_hw.backends import Backend
    from bermuda_hw.backends.real import RealBackend
    from bermuda_hw.backends.sim import SimBackend

    assert inspect.isabstract(Backend)
    assert not inspect.isabstract(RealBackend) and not inspect.isabstract(SimBackend)
    # every abstract method is implemented by both, not inherited as a stub
    for name in Backend.__abstractmethods__:
        assert name in vars(RealBackend) and name in vars(SimBackend), name


def _reaches(path: Path) -> list[str]:
    """`a.b.c.d(...)`-style chains that go through a part's parts (`mover.rotation.x`)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner = node.value
            if (inner.attr, node.attr) in {
                ("rotation", "assume_letter"),
                ("rotation", "letter"),
                ("stabilizer", "reset"),
                ("stabilizer", "current"),
                ("rotation", "kind"),
            }:
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_reaching_through_the_mover_or_the_stream() -> None:
    for folder in ("controller", "cli"):
        for path in (PACKAGE / folder).glob("*.py"):
            assert not _reaches(path), _reaches(path)


def test_no_command_duck_types_its_backend() -> None:
    for path in (PACKAGE / "cli").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"getattr", "hasattr"}
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "backend"
            ):
                raise AssertionError(f"{path.name}:{node.lineno} asks its backend what it is")


def test_the_backends_measure_the_rig_or_say_they_cannot() -> None:
    from bermuda_hw.backends.real import RealBackend
    from bermuda_hw.backends.sim import SimBackend
    from bermuda_hw.config import load_config
    from bermuda_hw.rules.boardfile import load_board

    config = load_config()
    assert RealBackend(config).measure() is None
    with SimBackend(config, board=load_board()) as sim:
        sim.rig.world.set_carriage(100.0, 50.0)
        sim.rig.world.set_heading(90.0)
        measured = sim.measure()
        assert (measured.x_mm, measured.y_mm, measured.heading_deg) == (
            *sim.rig.world.cloud_mm,
            90.0,
        )
        assert measured.lost_steps == 0 and measured.peak_speed_mm_s == 0.0
