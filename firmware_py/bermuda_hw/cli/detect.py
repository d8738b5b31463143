"""`bermuda-hw detect IMAGE... --json`: what vision sees in image files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

from bermuda_hw.backends.camera import read_image_file
from bermuda_hw.errors import BermudaError, CameraError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.vision.annotate import annotate
from bermuda_hw.vision.colors import calibration_to_toml, load_calibration
from bermuda_hw.vision.reader import BoardReader


class AnnotateError(BermudaError, OSError):
    """An annotated image cannot be written."""


def detect_images(args: argparse.Namespace) -> tuple[list[dict[str, Any]], int]:
    """One JSON entry per image, in order, and the exit code."""
    board = load_board(args.board)
    calibration = load_calibration(args.calibration, board.ship_colors)
    entries: list[dict[str, Any]] = []
    code = 0
    annotate_dir = Path(args.annotate) if args.annotate else None
    if annotate_dir is not None:
        try:
            annotate_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise AnnotateError(f"{annotate_dir}: cannot create the folder: {exc}") from None
    for name in args.images:
        entry: dict[str, Any] = {"image": name}
        try:
            image = read_image_file(name)
        except CameraError as exc:
            entry.update(
                {
                    "board_found": False,
                    "occluded": False,
                    "ships": [],
                    "cloud": None,
                    "error": str(exc),
                }
            )
            entries.append(entry)
            code = 1
            continue
        reader = BoardReader(board, calibration)  # each image stands alone
        reading = reader.read(image)
        entry.update(reading.to_json())
        entries.append(entry)
        if annotate_dir is not None:
            drawn = annotate(
                image, board, reading, reader.tracker.pose if reading.board_found else None
            )
            out = annotate_dir / (Path(name).stem + ".annotated.png")
            if not cv2.imwrite(str(out), drawn):
                raise AnnotateError(f"{out}: cannot be written")
    return entries, code


def _print_text(entries: list[dict[str, Any]]) -> None:
    for e in entries:
        if not e["board_found"]:
            print(f"{e['image']}: no board: {e.get('error', '')}")
            continue
        cloud = e["cloud"]
        where = (
            f"cloud {cloud['letter']} at ({cloud['col']}, {cloud['row']})" if cloud else "no cloud"
        )
        hand = ", OCCLUDED" if e["occluded"] else ""
        print(f"{e['image']}: {len(e['ships'])} ships, {where}{hand}")
        for s in e["ships"]:
            print(
                f"  {s['color']:<7} {s['space'] or 'off-space':<9} "
                f"({s['x_mm']:.0f}, {s['y_mm']:.0f}) mm  {s['confidence']:.2f}"
            )


def run(args: argparse.Namespace) -> int:
    if args.calibrate:
        return _calibrate(args)
    entries, code = detect_images(args)
    if args.json:
        print(json.dumps(entries, indent=2))
    else:
        _print_text(entries)
    return code


def _calibrate(args: argparse.Namespace) -> int:
    """Measure colour profiles and learn the board's look from images of the start layout.

    Writes OUT (TOML) and, beside it, OUT's name with `.background.png`: the
    empty board's learned look, which the TOML names.
    """
    out = Path(args.calibrate)
    if out.is_dir() or not out.parent.is_dir():
        problem = "is a directory" if out.is_dir() else f"the folder {out.parent} does not exist"
        raise AnnotateError(f"--calibrate {out}: {problem}; name the calibration file to write")
    board = load_board(args.board)
    calibration = load_calibration(args.calibration, board.ship_colors)
    images = [read_image_file(name) for name in args.images]
    reader = BoardReader(board, calibration)
    measured = reader.calibrate(images)
    picture = out.with_name(out.stem + ".background.png")
    if measured.background is not None:
        measured.background.save(picture)
    text = calibration_to_toml(measured, picture.name if measured.background else None)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AnnotateError(
            f"--calibrate {out}: cannot be written: {exc.strerror or exc}"
        ) from None
    print(f"wrote {out} and {picture}" if measured.background is not None else f"wrote {out}")
    print(text, end="")
    for note in measured.light_notes:
        # The calibration holds, but the light of its images is unlike a good one at play.
        print(f"bermuda-hw: warning: the calibration light: {note}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "detect",
        help="read ships, cloud and hands from image files",
        description="Read each image on its own and print what vision sees. An image that "
        "cannot be read still gets an entry (board_found false, with an error) and makes the "
        "exit code 1; an image without the board is not an error.",
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE")
    parser.add_argument("--board", metavar="FILE", help="board file (default: the classic board)")
    parser.add_argument("--calibration", metavar="FILE", help="colour calibration file (TOML)")
    parser.add_argument("--json", action="store_true", help="print the stable JSON document")
    parser.add_argument(
        "--annotate", metavar="DIR", help="write each image with what was found drawn on it"
    )
    parser.add_argument(
        "--calibrate",
        metavar="OUT",
        help="measure colour profiles and learn the board's look from "
        "images of the start layout (the cloud off the board, or moved "
        "between images); write them to OUT and OUT.background.png",
    )
    parser.set_defaults(func=run)
