"""One geometry: only `bermuda_hw.geometry` wraps angles or derives headings from letters.

Every other module calls it, so that the rules' sweep, the planner, the
devices, vision and the simulated table cannot drift apart on which heading
shows which letter or which way is clockwise.
"""

from __future__ import annotations

import ast
from pathlib import Path

import bermuda_hw

PACKAGE = Path(bermuda_hw.__file__).parent
GEOMETRY = PACKAGE / "geometry.py"
# Where a call below is not about board headings at all.
ALLOWED = {
    # the electrical angle of the rotation motor's field, in the coils' own frame: a
    # motor phase (eight half steps a cycle), not a heading on the board
    ("sim/rig.py", "atan2"),
}
TURN = {360}  # 360.0 == 360: one entry matches both
GEOMETRY_NAMES = {
    "DEGREES_PER_LETTER",
    "CLASSIC_LETTER_ANGLES_DEG",
    "CLASSIC_LETTER_HEADINGS_DEG",
    "FULL_TURN_DEG",
    "LETTERS",
}


def _is_turn(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value in TURN
    )


def _called(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def problems(source: str, where: str) -> list[str]:
    """What in one module's source re-derives the geometry (empty when nothing does)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.BinOp) and (_is_turn(node.left) or _is_turn(node.right)):
            kind = (
                "wraps an angle (% 360)"
                if isinstance(node.op, ast.Mod)
                else "computes with a whole turn (360)"
            )
            found.append(f"{line}: {kind}: use bermuda_hw.geometry")
        elif isinstance(node, ast.Call) and _called(node) in ("atan2", "arctan2"):
            if (where, "atan2") not in ALLOWED:
                found.append(f"{line}: a bearing from atan2: use geometry.bearing_deg")
        elif (
            isinstance(node, ast.Call)
            and _called(node) in ("sin", "cos")
            and any(isinstance(a, ast.Call) and _called(a) == "radians" for a in node.args)
        ):
            found.append(f"{line}: a heading's vector: use geometry.heading_vector")
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "letter_angles_deg"
        ):
            found.append(
                f"{line}: a letter's heading from letter_angles_deg: "
                "use CloudGeometry.heading_deg or geometry.letter_heading_deg"
            )
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in GEOMETRY_NAMES:
                    found.append(f"{line}: {target.id} is defined in bermuda_hw.geometry")
    return found


def test_no_module_but_geometry_wraps_angles_or_derives_letter_headings() -> None:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == GEOMETRY:
            continue
        found += problems(path.read_text("utf-8"), path.relative_to(PACKAGE).as_posix())
    assert found == []


def test_the_check_sees_each_kind_of_copy() -> None:
    copies = {
        "a % 360.0": "wraps an angle",
        "(a - b + 180.0) % 360 - 180.0": "wraps an angle",
        "k * (360.0 / 8)": "whole turn",
        "math.degrees(math.atan2(dx, -dy))": "atan2",
        "(math.sin(math.radians(h)), -math.cos(math.radians(h)))": "heading's vector",
        "(360.0 - cloud.letter_angles_deg[k])": "letter_angles_deg",
        "DEGREES_PER_LETTER = 45.0": "defined in bermuda_hw.geometry",
    }
    for source, kind in copies.items():
        found = problems(source, "x.py")
        assert found and any(kind in p for p in found), (source, found)
    assert problems("rng.uniform(0.0, 360.0)\nrange(0, 360, 45)\nangle % 90", "x.py") == []
