"""`bermuda-hw board show`: print the loaded board definition."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board


def board_to_json(board: Board) -> dict[str, Any]:
    """The board as the stable JSON document that `board show --json` prints."""
    grid = board.grid
    return {
        "name": board.name,
        "source": board.source,
        "board": {"width_mm": board.width_mm, "height_mm": board.height_mm},
        "spaces": [
            {
                "id": s.id,
                "kind": s.kind,
                "x_mm": s.x_mm,
                "y_mm": s.y_mm,
                "heading_deg": s.heading_deg,
                "neighbours": sorted(board.adjacency[s.id]),
            }
            for s in board.spaces.values()
        ],
        "ports": [
            {
                "id": p.id,
                "product": p.product,
                "x_mm": p.x_mm,
                "y_mm": p.y_mm,
                "berths": [{"x_mm": x, "y_mm": y} for x, y in p.berths],
            }
            for p in board.ports.values()
        ],
        "grid": {
            "cols": grid.cols,
            "rows": grid.rows,
            "pitch_mm": grid.pitch_mm,
            "centre": {"col": grid.centre[0], "row": grid.centre[1]},
            "dots": [
                {
                    "col": col,
                    "row": row,
                    "x_mm": grid.dot_mm(col, row)[0],
                    "y_mm": grid.dot_mm(col, row)[1],
                    "centre": (col, row) == grid.centre,
                    "outside": grid.is_outside(col, row),
                }
                for col, row in grid.dots()
            ],
        },
        "markers": {
            "dictionary": board.markers.dictionary,
            "corners": [
                {"id": m.id, "x_mm": m.x_mm, "y_mm": m.y_mm, "size_mm": m.size_mm}
                for m in board.markers.corners
            ],
            # The cloud's marker moves with the cloud: its centre at the start pose.
            "cloud": {
                "id": board.markers.cloud_id,
                "x_mm": grid.dot_mm(*grid.centre)[0],
                "y_mm": grid.dot_mm(*grid.centre)[1],
                "size_mm": board.markers.cloud_size_mm,
            },
        },
        "cloud": {
            "footprint_radius_mm": board.cloud.footprint_radius_mm,
            "capture_radius_mm": board.cloud.capture_radius_mm,
            "magnets": [
                {"radius_mm": m.radius_mm, "angle_deg": m.angle_deg} for m in board.cloud.magnets
            ],
            "letter_angles_deg": list(board.cloud.letter_angles_deg),
        },
        "spinner": {
            "letters": list(board.spinner.letters),
            "numbers": list(board.spinner.numbers),
            "directions": list(board.spinner.directions),
        },
        "ship_colors": list(board.ship_colors),
    }


def _show(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    if args.json:
        print(json.dumps(board_to_json(board), indent=2))
        return 0
    paths = sum(1 for s in board.spaces.values() if s.kind == "path")
    print(f"board {board.name!r} from {board.source}: {board.width_mm:g} x {board.height_mm:g} mm")
    print(f"  {len(board.spaces)} spaces ({paths} path spaces, {len(board.ports)} ports)")
    for port in board.ports.values():
        print(f"  port {port.id:<8} {port.product:<8} {len(port.berths)} berths")
    g = board.grid
    print(f"  dot grid {g.cols} x {g.rows}, pitch {g.pitch_mm:g} mm, centre {g.centre}")
    print(f"  cloud footprint radius {board.cloud.footprint_radius_mm:g} mm,"
          f" {len(board.cloud.magnets)} magnets")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("board", help="inspect the board definition")
    actions = parser.add_subparsers(dest="board_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the loaded board")
    show.add_argument("--board", metavar="FILE", help="board file (default: the classic board)")
    show.add_argument("--json", action="store_true", help="print the stable JSON document")
    show.set_defaults(func=_show)
