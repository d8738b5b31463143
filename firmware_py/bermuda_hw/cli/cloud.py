"""`bermuda-hw cloud`: home the rig, execute a spin with the cloud, print what it did."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from bermuda_hw.backends import create_backend
from bermuda_hw.config import DEFAULT_CONFIG_PATH, Config, load_config
from bermuda_hw.errors import HardwareError
from bermuda_hw.motion.build import build_motion
from bermuda_hw.motion.mover import SpinReport
from bermuda_hw.rules.board import LETTERS
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import Spin, start_pose

# the measured cloud this far from the planned pose (or at another letter) is a failed spin
POSE_TOLERANCE_MM = 2.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cloud",
        help="home the gantry and move the cloud through a spin",
        description=(
            "Home the gantry, bring the cloud to the centre dot at letter A, execute a "
            "spin (turn clockwise to the letter, then move along the grid) and print the "
            "final pose, the duration and the peak speed and acceleration."
        ),
    )
    parser.add_argument("--spin", default="C 2 N", help="the spin, e.g. 'C 2 N' or 'F North'")
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"configuration file (default {DEFAULT_CONFIG_PATH} if present, else built-in)",
    )
    parser.add_argument("--board", type=Path, default=None, help="board definition file")
    parser.add_argument(
        "--simulate",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run on the simulated rig",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    spin = Spin.parse(args.spin)
    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    config = load_config(path)
    board = load_board(args.board)
    simulate = bool(getattr(args, "simulate", False))
    with (
        create_backend(config, simulate) as backend,
        build_motion(config, backend, board) as motion,
    ):
        mover, controls = motion.mover, motion.controls
        controls.status_led.on()
        clock = backend.clock
        run_start_s = clock.monotonic()
        mover.home()
        start = start_pose(board.grid)
        mover.goto_dot(start.col, start.row)
        mover.assume_letter(start.letter)  # the start pose shows letter A
        spin_start_s = clock.monotonic()
        report = mover.execute_spin(spin)
        pose = mover.pose()
        x_mm, y_mm = mover.position_mm()
        measured = backend.measure(since_s=spin_start_s)
        if measured is not None:  # the simulated rig measures the carriage itself
            peak_speed, peak_accel = measured.peak_speed_mm_s, measured.peak_accel_mm_s2
            lost: int | None = measured.lost_steps
        elif report.move is not None:
            peak_speed, peak_accel = report.move.peak_speed_mm_s, report.move.peak_accel_mm_s2
            lost = None
        else:
            peak_speed, peak_accel, lost = 0.0, 0.0, None
        result = {
            "spin": str(spin),
            "backend": backend.name,
            "pose": {
                "col": pose.col,
                "row": pose.row,
                "letter": LETTERS[pose.letter],
                "x_mm": round(x_mm, 3),
                "y_mm": round(y_mm, 3),
            },
            "leaves_board": report.path.leaves_board,
            "turn_deg": round(report.turn_deg, 3),
            "duration_s": round(report.duration_s, 4),
            "total_s": round(clock.monotonic() - run_start_s, 4),
            "peak_speed_mm_s": round(peak_speed, 3),
            "peak_accel_mm_s2": round(peak_accel, 3),
            "limits": {
                "max_speed_mm_s": config.gantry.max_speed_mm_s,
                "accel_mm_s2": config.gantry.accel_mm_s2,
            },
            "lost_steps": lost,
        }
        mismatch = ""
        if measured is not None:
            measured_letter = board.cloud.letter_at(measured.heading_deg)
            result["sim_truth"] = {
                "x_mm": round(measured.x_mm, 3),
                "y_mm": round(measured.y_mm, 3),
                "heading_deg": round(measured.heading_deg, 3),
                "letter": LETTERS[measured_letter],
            }
            off_mm = math.hypot(measured.x_mm - x_mm, measured.y_mm - y_mm)
            if off_mm > POSE_TOLERANCE_MM or measured_letter != pose.letter:
                mismatch = (
                    f"the cloud was measured at x {measured.x_mm:.2f} mm, y "
                    f"{measured.y_mm:.2f} mm, letter {LETTERS[measured_letter]}, not at "
                    f"x {x_mm:.2f} mm, y {y_mm:.2f} mm, letter {LETTERS[pose.letter]} as "
                    f"planned ({measured.lost_steps} lost steps): check the configuration's "
                    "steps_per_mm, board_offset_mm and rotation against the rig "
                    "(`bermuda-hw calibrate`)"
                )
        controls.status_led.off()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result, report, spin, backend.name, config, lost)
    if mismatch:
        raise HardwareError(mismatch)
    return 0


def _print(
    result: dict[str, object],
    report: SpinReport,
    spin: Spin,
    backend: str,
    config: Config,
    lost: int | None,
) -> None:
    p = result["pose"]
    assert isinstance(p, dict)
    x_mm, y_mm = p["x_mm"], p["y_mm"]
    peak_speed, peak_accel = result["peak_speed_mm_s"], result["peak_accel_mm_s2"]
    print(
        f"spin {spin}: turned {report.turn_deg:g} degrees clockwise, "
        f"dots {' -> '.join(f'({c}, {r})' for c, r in report.path.dots)}"
    )
    print(
        f"final pose: dot ({p['col']}, {p['row']}), letter {p['letter']}, "
        f"x {x_mm:.2f} mm, y {y_mm:.2f} mm"
        + (", off the board" if report.path.leaves_board else "")
    )
    print(
        f"duration: {report.duration_s:.3f} s for the spin "
        f"({result['total_s']:.3f} s with homing), {backend} clock"
    )
    print(
        f"peak speed: {peak_speed:.2f} mm/s (limit {config.gantry.max_speed_mm_s:g}); "
        f"peak acceleration: {peak_accel:.2f} mm/s^2 (limit {config.gantry.accel_mm_s2:g})"
    )
    truth = result.get("sim_truth")
    if isinstance(truth, dict):
        print(
            f"simulated table: cloud at x {truth['x_mm']:.2f} mm, y {truth['y_mm']:.2f} mm, "
            f"heading {truth['heading_deg']:.2f} degrees; lost steps: {lost}"
        )
