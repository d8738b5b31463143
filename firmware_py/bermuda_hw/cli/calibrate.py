"""`bermuda-hw calibrate gantry|rotation|camera`: the rig measures itself; the config is updated."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bermuda_hw.backends import create_backend
from bermuda_hw.cli.selftest import add_rig_arguments, config_path, make_owner
from bermuda_hw.config import load_config
from bermuda_hw.errors import ConfigError
from bermuda_hw.motion.build import build_motion
from bermuda_hw.rigcheck.calibrate import (
    CalibrationFailed,
    GantryFit,
    RotationFit,
    calibrate_gantry,
    calibrate_rotation,
)
from bermuda_hw.rigcheck.configfile import Value, config_diff, update_config_text
from bermuda_hw.rigcheck.owner import Owner
from bermuda_hw.rules.boardfile import load_board

WHAT = ("gantry", "rotation", "camera")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="measure the gantry, the rotation or the camera and write the configuration",
        description=(
            "gantry: drive the cloud to dots across the board and fit each axis's steps/mm, "
            "board offset and the skew from where the camera sees the cloud's marker. "
            "rotation: turn the cloud once round and fit the half steps per turn and where "
            "letter A lies; you confirm the letter at the notch. camera: let auto exposure and "
            "white balance settle on the board, then lock them. The changes to the "
            "configuration file are shown as a diff before they are written."
        ),
    )
    parser.add_argument("what", choices=WHAT)
    add_rig_arguments(parser)
    parser.add_argument("--yes", action="store_true", help="write without asking")
    parser.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    simulate = bool(getattr(args, "simulate", False))
    path = config_path(args)
    config = load_config(path)
    board = load_board(args.board)
    with create_backend(config, simulate) as backend:
        owner = make_owner(backend, config, simulate)
        if args.what == "camera":
            camera = backend.open_camera(board)
            with camera:
                values = camera.settle_and_lock(2.0)
            print(
                "auto exposure and white balance settled and locked at: "
                + ", ".join(f"{k} = {v}" for k, v in values.items())
            )
            changes: dict[str, dict[str, Value]] = {"camera": values}
        else:
            with build_motion(config, backend, board) as motion:
                mover = motion.mover
                camera = backend.open_camera(board)
                with camera:
                    mover.pause_during_moves(camera)
                    if args.what == "gantry":
                        height = config.camera.height_mm
                        if height <= 0:
                            print(
                                "[camera] height_mm is not set: the marker's apparent size "
                                "stands in for it (about 0.4 % less accurate)"
                            )
                        fit: GantryFit | RotationFit = calibrate_gantry(
                            mover, camera, board, camera_height_mm=height
                        )
                    else:
                        fit = calibrate_rotation(mover, camera, board, config, owner)
                mover.park()
            _print_fit(fit)
            if isinstance(fit, RotationFit) and not fit.confirmed:
                raise CalibrationFailed(
                    f"you saw letter {fit.owner_letter} at the notch where the rig expects "
                    f"{fit.expected_letter}: the letters run the other way round the rim, or "
                    "the marker sits turned on the cloud; check [cloud] letter_angles_deg in the "
                    "board file. Nothing was written"
                )
            changes = fit.changes()
    return _write(path, changes, owner, yes=args.yes, dry_run=args.dry_run)


def _print_fit(fit: GantryFit | RotationFit) -> None:
    if isinstance(fit, GantryFit):
        print(f"gantry from {fit.points} sightings of the cloud's marker:")
        for i, name in enumerate("xy"):
            print(
                f"  {name}: {fit.steps_per_mm[i]:.4f} steps/mm, board offset "
                f"{fit.board_offset_mm[i]:.2f} mm"
            )
        print(
            f"  skew {fit.skew_deg:+.3f} degrees; sightings within {fit.worst_mm:.2f} mm of "
            f"the fit (rms {fit.rms_mm:.2f} mm)"
        )
    else:
        print(
            f"rotation from one turn of the cloud: {fit.half_steps_per_cloud_rev:.2f} half "
            f"steps per turn; at the start letter A was {fit.letter_offset_deg:+.1f} degrees "
            f"(clockwise) from the notch ({fit.zero_offset_steps} half steps); fit rms "
            f"{fit.rms_deg:.2f} degrees"
        )
        if fit.owner_letter is not None:
            print(
                f"  letter at the notch after the turn: {fit.owner_letter} "
                f"(expected {fit.expected_letter})"
            )


def _write(
    path: Path | None,
    changes: dict[str, dict[str, Value]],
    owner: Owner,
    *,
    yes: bool,
    dry_run: bool,
) -> int:
    name = str(path) if path is not None else "config.toml"
    old = ""
    if path is not None:
        try:
            old = path.read_text("utf-8")
        except OSError as exc:
            raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    new = update_config_text(old, changes)
    diff = config_diff(old, new, name)
    print(diff or "the configuration already holds these values", end="" if diff else "\n")
    if not diff or dry_run:
        return 0
    if path is None:
        print("no configuration file to write (pass --config FILE): nothing written")
        return 0
    if not yes and not owner.confirm("write", f"write these changes to {path}?"):
        print("nothing written")
        return 0
    path.write_text(new, "utf-8")
    print(f"written to {path}")
    return 0
