"""Nothing that times motion, waits or faults reads the wall clock, which NTP may step.

Moves, timeouts, the watchdog and the step thread run on the monotonic clock
(`bermuda_hw.clock.Clock`); the wall clock is read only to stamp records. A
new wall-clock read anywhere else fails here (`make chaos` steps the wall
clock during moves to check the whole table).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "firmware_py" / "bermuda_hw"

# module -> why it may read the wall clock
ALLOWED = {
    "controller/journal.py": "the journal's timestamps (records only; it orders by id and seq)",
    "controller/snapshot.py": "the snapshot's stamp, for the page's latency figure",
}
WALL_READS = {
    ("time", "time"),
    ("time", "time_ns"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("date", "today"),
    ("time", "localtime"),
    ("time", "gmtime"),
    ("time", "ctime"),
}


def wall_clock_reads(source: str) -> list[str]:
    """Calls in `source` that read the wall clock (`time.time()`, `datetime.now()`...)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = (
                owner.id
                if isinstance(owner, ast.Name)
                else owner.attr
                if isinstance(owner, ast.Attribute)
                else None
            )
            if (name, node.func.attr) in WALL_READS:
                found.append(f"{name}.{node.func.attr}() on line {node.lineno}")
    return found


def test_the_check_finds_wall_clock_reads() -> None:
    assert wall_clock_reads("import time\nx = time.time()\n") == ["time.time() on line 2"]
    assert wall_clock_reads("import datetime\nx = datetime.datetime.now()\n") == [
        "datetime.now() on line 2"
    ]
    assert wall_clock_reads("import time\nx = time.monotonic()\n") == []


def test_only_records_read_the_wall_clock() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("sim/") or rel in ALLOWED:
            continue  # the simulator runs on its own virtual clock
        reads = wall_clock_reads(path.read_text(encoding="utf-8"))
        if reads:
            offenders[rel] = reads
    assert offenders == {}, f"wall-clock reads outside {sorted(ALLOWED)}: {offenders}"


def test_the_allowed_modules_still_read_it() -> None:
    # if they stop, the allowance goes too
    for rel in ALLOWED:
        assert wall_clock_reads((PACKAGE / rel).read_text(encoding="utf-8")), rel
