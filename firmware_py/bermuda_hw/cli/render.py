"""`bermuda-hw render --simulate OUT.png`: draw what the camera over the simulated table sees."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import cv2

from bermuda_hw.cli.options import number, whole
from bermuda_hw.errors import BermudaError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.sim.render import (
    CameraModel,
    CloudState,
    Palette,
    Scene,
    ShipToken,
    random_scene,
    render,
)
from bermuda_hw.vision.reader import start_layout


class RenderError(BermudaError, ValueError):
    """The render command was asked for something it cannot draw or write."""


MAX_PERTURB = 10.0


def _writable(option: str, path: Path) -> None:
    """Refuse an output path that cannot be a file before anything is drawn."""
    if path.is_dir():
        raise RenderError(f"{option} {path}: is a directory, not a file name")
    if not path.parent.is_dir():
        raise RenderError(f"{option} {path}: the folder {path.parent} does not exist")


def run(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp"):
        raise RenderError(f"{out}: the output must be .png, .jpg or .bmp")
    _writable("OUT", out)
    if args.truth:
        _writable("--truth", Path(args.truth))
    drawn = {name for name, _bgr in Palette().ships}
    for i, color in enumerate(board.ship_colors):
        if color not in drawn:
            raise RenderError(
                f"{board.source}: board.ship_colors[{i}]: the simulated table "
                f"cannot draw ships of colour {color!r} (it has "
                f"{', '.join(sorted(drawn))})"
            )
    rng = random.Random(args.seed)
    if args.start:
        ships = []
        for (space, berth), color in start_layout(board).items():
            x, y = board.ports[space].berths[berth or 0]
            ships.append(ShipToken(color, x, y, 0.0))
        cx, cy = board.grid.dot_mm(*board.grid.centre)
        scene = Scene(tuple(ships), CloudState(cx, cy, 0.0))
    else:
        scene = random_scene(board, rng, ships=0 if args.empty else None, hand=args.hand)
    if args.still:
        camera = CameraModel()
        palette = Palette()
    else:
        camera = CameraModel.random(rng, board, strength=args.perturb)
        palette = Palette.random(rng, strength=args.perturb)
    image = render(board, scene, camera, seed=args.seed, palette=palette)
    if not cv2.imwrite(str(out), image):
        raise RenderError(f"{out}: cannot be written")
    if args.truth:
        truth = {
            "ships": [
                {"color": s.color, "x_mm": s.x_mm, "y_mm": s.y_mm, "heading_deg": s.heading_deg}
                for s in scene.ships
            ],
            "cloud": None
            if scene.cloud is None
            else {
                "x_mm": scene.cloud.x_mm,
                "y_mm": scene.cloud.y_mm,
                "heading_deg": scene.cloud.heading_deg,
            },
            "hand": scene.hand is not None,
            "seed": args.seed,
        }
        try:
            Path(args.truth).write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise RenderError(
                f"--truth {args.truth}: cannot be written: {exc.strerror or exc}"
            ) from None
    print(f"wrote {out} ({image.shape[1]}x{image.shape[0]}, {len(scene.ships)} ships)")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a frame of the simulated table",
        description="Render what the camera above the simulated table sees: a random table "
        "(or the start layout) through a randomly placed and lit camera, from a seed.",
    )
    parser.add_argument("out", metavar="OUT", help="image file to write (.png or .jpg)")
    parser.add_argument(
        "--simulate",
        action="store_true",
        default=argparse.SUPPRESS,
        help="(rendering always uses the simulated table)",
    )
    parser.add_argument("--board", metavar="FILE", help="board file (default: the classic board)")
    parser.add_argument(
        "--seed", type=whole(0, 2**63 - 1), default=0, help="random seed (default 0)"
    )
    parser.add_argument(
        "--start", action="store_true", help="ships at their start places (for colour calibration)"
    )
    parser.add_argument("--empty", action="store_true", help="no ships")
    parser.add_argument("--hand", action="store_true", help="a hand over the board")
    parser.add_argument(
        "--still",
        action="store_true",
        help="the default camera straight above, no random perturbation",
    )
    parser.add_argument(
        "--perturb",
        type=number(0.0, MAX_PERTURB),
        default=1.0,
        metavar="K",
        help=f"strength of the random camera and lighting, 0 to {MAX_PERTURB:g} (default 1)",
    )
    parser.add_argument("--truth", metavar="JSON", help="also write where everything truly is")
    parser.set_defaults(func=run)
