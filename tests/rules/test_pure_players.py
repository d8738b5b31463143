"""The computer player and the hints are pure: they import only the rules and plain values."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "firmware_py" / "bermuda_hw" / "rules"
PLAIN = {
    "__future__",
    "collections",
    "collections.abc",
    "dataclasses",
    "fractions",
    "random",
    "typing",
    "math",
    "itertools",
}
OURS = ("bermuda_hw.rules.", "bermuda_hw.errors", "bermuda_hw.geometry")
IO = {"open", "print", "input"}


def imports_and_io(source: str) -> tuple[set[str], set[str]]:
    tree = ast.parse(source)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return imported, calls & IO


def test_the_check_sees_an_import_and_a_file() -> None:
    assert imports_and_io("import time\nopen('x')\n") == ({"time"}, {"open"})


@pytest.mark.parametrize("name", ["computer.py", "hints.py", "danger.py"])
def test_module_is_pure(name: str) -> None:
    imported, io = imports_and_io((RULES / name).read_text(encoding="utf-8"))
    strays = {m for m in imported if m not in PLAIN and not m.startswith(OURS)}
    assert strays == set()
    assert io == set()
