"""`bermuda-hw motors-off`: cut the gantry drivers' current and release the rotation coils.

It homes nothing and needs no camera: the service runs it as `ExecStopPost=`,
after the daemon has exited however it exited, so the drivers are left
disabled (with the pull-up on ENABLE holding them so once the pin is released).

It must work when other parts of the program do not: its module imports nothing
at the top, the command line builds its parser alone (`cli.main`), a mistake in
the configuration outside the motors' tables is said and passed over, and the
ENABLE pin is driven to its disabled level before the PCA9685 driver stack is
even imported.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.config import Config

# as bermuda_hw.config.DEFAULT_CONFIG_PATH (a test keeps them the same)
DEFAULT_CONFIG_PATH = Path("/etc/bermuda-hw/config.toml")


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
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"configuration file (default {DEFAULT_CONFIG_PATH} if present)",
    )
    parser.add_argument(
        "--simulate", action="store_true", default=argparse.SUPPRESS, help="on the simulated rig"
    )
    parser.set_defaults(func=run, config_error_exit=78)  # EX_CONFIG, as `run`


def motors_off(config: Config, backend: Backend) -> list[str]:
    """Disable the drivers, then switch the PCA9685's outputs off; what was done, in words.

    The ENABLE pin comes first: it needs neither the I2C bus nor the PCA9685 driver
    stack, which is imported only afterwards. A PCA9685 that does not answer, or a
    driver stack that fails to import, is reported, and the drivers stay disabled.
    """
    from bermuda_hw.devices.stepper import MotorEnable

    gantry = config.gantry
    done = []
    enable = MotorEnable(
        gantry.enable_pin, active_high=gantry.enable_active_high, pin_factory=backend.pin_factory
    )
    enable.close()  # claimed at its disabled level, and left there
    done.append(f"gantry drivers disabled (ENABLE, BCM {gantry.enable_pin})")
    address = config.rotation.i2c_address
    try:
        from bermuda_hw.devices.rotation import PCA9685Board

        pca = PCA9685Board(
            backend.i2c(), address=address, frequency_hz=1600.0, lock=backend.i2c_lock
        )
        pca.close()  # every output off
        done.append(f"rotation outputs off (PCA9685 at 0x{address:02x})")
    except Exception as exc:  # a bus fault, or a driver that cannot load: say so, go on
        reason = str(exc) or type(exc).__name__
        done.append(f"rotation outputs not reached: {reason}")
    return done


#: the configuration's tables that cutting the motors does not need: a mistake in one of
#: them (the page's, the voice's, the simulator's) must not leave the drivers enabled
#: after a stop. A mistake anywhere else (a misspelt table too: its pins might be the
#: motors') is said and nothing is driven, as ever
NOT_MOTORS = ("web", "voice", "sim")


def run(args: argparse.Namespace) -> int:
    import sys

    from bermuda_hw.backends import create_backend
    from bermuda_hw.config import load_config
    from bermuda_hw.errors import ConfigError

    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    try:
        config = load_config(path)
    except ConfigError as exc:
        # read again without the tables the motors do not need: a mistake elsewhere is
        # said as ever, and nothing is driven
        config = load_config(path, leave_out=NOT_MOTORS)
        print(
            f"{exc}; the motors are cut with the rest of the file (its "
            f"[{'], ['.join(NOT_MOTORS)}] left out): mend the file before the next start",
            file=sys.stderr,
        )
    with create_backend(config, bool(getattr(args, "simulate", False))) as backend:
        for line in motors_off(config, backend):
            print(line)
    return 0
