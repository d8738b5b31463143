"""`bermuda-hw board show`: print the loaded board definition."""

from __future__ import annotations

import argparse
import json

from bermuda_hw.rules.boardfile import board_to_json, load_board


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
    print(
        f"  cloud footprint radius {board.cloud.footprint_radius_mm:g} mm,"
        f" {len(board.cloud.magnets)} magnets"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("board", help="inspect the board definition")
    actions = parser.add_subparsers(dest="board_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the loaded board")
    show.add_argument("--board", metavar="FILE", help="board file (default: the classic board)")
    show.add_argument("--json", action="store_true", help="print the stable JSON document")
    show.set_defaults(func=_show)
