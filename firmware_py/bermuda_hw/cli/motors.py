"""`bermuda-hw motors-off`: cut the gantry drivers' current and release the rotation coils.

It homes nothing and needs no camera: the service runs it as `ExecStopPost=`,
after the daemon has exited however it exited, so the drivers are left
disabled (with the 10 kohm pull-up on ENABLE holding them so once the pin is
released).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bermuda_hw.backends import Backend, create_backend
from bermuda_hw.config import DEFAULT_CONFIG_PATH, Config, load_config
from bermuda_hw.devices.rotation import PCA9685Board
from bermuda_hw.devices.stepper import MotorEnable
from bermuda_hw.errors import HardwareError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "motors-off",
        help="disable the gantry drivers and release the rotation motor (no homing)",
        description=(
            "Drive the drivers' shared ENABLE to its disabled level and switch every PCA9685 "
            "output off. Nothing moves and nothing is homed: safe to run at any time, and "
            "run by the service after the daemon stops."
        ),
    )
    parser.add_argument("--config", type=Path, default=None,
                        help=f"configuration file (default {DEFAULT_CONFIG_PATH} if present)")
    parser.add_argument("--simulate", action="store_true", default=argparse.SUPPRESS,
                        help="on the simulated rig")
    parser.set_defaults(func=run, config_error_exit=78)  # EX_CONFIG, as `run`


def motors_off(config: Config, backend: Backend) -> list[str]:
    """Disable the drivers, then switch the PCA9685's outputs off; what was done, in words.

    The ENABLE pin comes first: it cannot fail for want of the I2C bus. A PCA9685
    that does not answer is reported, and the drivers stay disabled.
    """
    gantry = config.gantry
    done = []
    enable = MotorEnable(gantry.enable_pin, active_high=gantry.enable_active_high,
                         pin_factory=backend.pin_factory)
    enable.close()  # claimed at its disabled level, and left there
    done.append(f"gantry drivers disabled (ENABLE, BCM {gantry.enable_pin})")
    address = config.rotation.i2c_address
    try:
        pca = PCA9685Board(backend.i2c(), address=address, frequency_hz=1600.0,
                           lock=backend.i2c_lock)
        pca.close()  # every output off
        done.append(f"rotation outputs off (PCA9685 at 0x{address:02x})")
    except HardwareError as exc:
        done.append(f"rotation outputs not reached: {exc}")
    return done


def run(args: argparse.Namespace) -> int:
    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    config = load_config(path)
    with create_backend(config, bool(getattr(args, "simulate", False))) as backend:
        for line in motors_off(config, backend):
            print(line)
    return 0
