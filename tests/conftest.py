"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import functools
import importlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FunctionType, ModuleType

import pytest
from hypothesis import settings

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board

# Hypothesis checks what a property holds, not how fast: a loaded CI machine must not fail a
# test on its 200 ms per-example deadline (speed is measured in `make bench`).
settings.register_profile("bermuda", deadline=None)
settings.load_profile("bermuda")

# The tiers of the suite, marked from the fixtures a test uses (directly or through another
# fixture) and from the renderers its module draws with: `make check` deselects them,
# `make test` runs everything.
TIER_FIXTURES = {
    "make_table": "table",  # tests/controller/conftest.py: a whole simulated table
    "table_dir": "table",  # below: a whole simulated table that the test runs itself
    "whole_game": "table",  # tests/controller/test_controller_truth.py: whole games
    "browser": "browser",  # tests/web/test_web_browser.py: Debian's Chromium
    "shoot": "frames",  # tests/vision/conftest.py: a rendered camera frame
}
#: The camera frames' renderers: the simulator's and the tests' independent one. A test that
#: draws with either (itself, or through a helper of the tests that does) is `frames`: a frame
#: takes 0.1-1 s to draw and read, a rules test 0.01 s.
RENDERERS = ("bermuda_hw.sim.render", "independent_render")
TESTS = Path(__file__).resolve().parent


def _is_renderer(name: str) -> bool:
    return any(name == r or name.startswith(r + ".") or name.endswith("." + r) for r in RENDERERS)


def _in_tests(module_name: str) -> bool:
    path = getattr(sys.modules.get(module_name), "__file__", None)
    return path is not None and TESTS in Path(path).resolve().parents


def _names(code: CodeType) -> Iterator[str]:
    """The global names a function's code (and the code nested in it) refers to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


@functools.cache
def _module_files() -> frozenset[str]:
    """The names of the tests' own modules (their files' stems)."""
    return frozenset(path.stem for path in TESTS.rglob("*.py"))


def _test_helper(name: str) -> ModuleType | None:
    """A helper module of the tests by its name (imported if no test has imported it yet),
    or None."""
    if name not in sys.modules:
        if name not in _module_files():
            return None
        try:
            importlib.import_module(name)
        except ImportError:
            return None
    return sys.modules[name] if _in_tests(name) else None


def _defined_in(value: object, module: str) -> bool:
    return isinstance(value, FunctionType | type) and value.__module__ == module


def _draws(value: object, seen: dict[int, bool]) -> bool:
    """Whether a test function, or a helper of the tests that it calls, draws a frame."""
    if value is None:
        return False
    if isinstance(value, ModuleType):
        return _is_renderer(value.__name__)
    key = id(value)
    if key in seen:
        return seen[key]
    seen[key] = False  # a cycle of helpers draws nothing by itself
    owner = getattr(value, "__module__", None) or ""
    found = _is_renderer(owner)
    if not found and isinstance(value, FunctionType) and _in_tests(owner):
        scope = value.__globals__
        names = set(_names(value.__code__))
        used = [scope[n] for n in names if n in scope]
        # modules imported inside the function: a renderer, or a helper of the tests
        # (all of it: which of its names the function takes is not followed)
        local = names - set(scope)
        found = any(_is_renderer(name) for name in local)
        for name in local:
            module = _test_helper(name)
            if module is not None:
                used += [v for v in vars(module).values() if _defined_in(v, name)]
        used += [cell.cell_contents for cell in value.__closure__ or ()]  # a wrapper's own
        # the test inside a decorator: functools.wraps' and Hypothesis' @given
        used += [getattr(value, "__wrapped__", None)]
        used += [getattr(getattr(value, "hypothesis", None), "inner_test", None)]
        found = found or any(_draws(v, seen) for v in used)
    elif not found and isinstance(value, type) and _in_tests(owner):
        found = any(_draws(v, seen) for v in vars(value).values() if isinstance(v, FunctionType))
    seen[key] = found
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seen: dict[int, bool] = {}
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        for fixture, marker in TIER_FIXTURES.items():
            if fixture in uses:
                item.add_marker(marker)
        # the test's own function and the fixtures it uses
        info = getattr(item, "_fixtureinfo", None)
        fixtures = info.name2fixturedefs.values() if info is not None else ()
        functions = [getattr(item, "function", None)] + [d.func for ds in fixtures for d in ds]
        if any(f is not None and _draws(f, seen) for f in functions):
            item.add_marker("frames")
    # The longest tests first (whole games, then whole tables, the browser, drawn frames),
    # so that with `-n 2` (and `--maxschedchunk 2`: `make test`) the workers start on them
    # and share out the many short ones at the end, instead of one worker being left with
    # a whole game when the other is done.
    items.sort(key=_duration_rank)


#: The markers of the longer tests, longest first (`slow`: whole games, written by hand).
DURATION_RANKS = ("slow", "table", "browser", "frames")


def _duration_rank(item: pytest.Item) -> int:
    for rank, marker in enumerate(DURATION_RANKS):
        if item.get_closest_marker(marker) is not None:
            return rank
    return len(DURATION_RANKS)


@pytest.fixture(scope="session")
def classic_board() -> Board:
    """The classic board shipped with the package (immutable, so shared)."""
    return load_board()


@pytest.fixture
def table_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder for a whole simulated table that a test runs itself (`bermuda-hw run
    --simulate` in or out of process, `sim.session`, the benchmarks, the chaos campaign, a
    `--simulate` command that moves the simulated rig or reads its camera end to end): the
    run's temporary folders (tempfile's, and TMPDIR for its subprocesses) are made in it too,
    where pytest keeps them after a failure."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path
