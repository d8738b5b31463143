"""`bermuda-hw selftest`: the rig's checklist, each line pass or fail with what to do."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import Backend, create_backend
from bermuda_hw.config import DEFAULT_CONFIG_PATH, Config, load_config, pin_map
from bermuda_hw.rigcheck.owner import Owner, Reading, TerminalOwner
from bermuda_hw.rigcheck.selftest import CheckLine, run_selftest
from bermuda_hw.rules.board import LETTERS
from bermuda_hw.rules.boardfile import load_board

if TYPE_CHECKING:
    from bermuda_hw.backends.sim import SimBackend


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "selftest",
        help="check the rig's wiring, switches, camera, homing and rotation",
        description=(
            "Run the rig's checklist: configuration, pin factory, I2C, each endstop, the "
            "e-stop and the spin button (you are asked to press each), LED, buzzer, camera, "
            "markers, homing and one full turn of the cloud. Each line says PASS or FAIL "
            "and what to do. With --simulate the presses are scripted; the simulated rig's "
            "[sim] faults (dead_endstop, missing_pca9685, covered_marker) fail their lines."
        ),
    )
    add_rig_arguments(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="S",
        help="seconds to wait for each press (default 15)",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="instead of the checklist: play a step train on STEP x with the "
        "drivers disabled and time its edges read back on a second GPIO "
        "(a jumper from STEP x to --readback-pin)",
    )
    parser.add_argument(
        "--readback-pin",
        type=int,
        default=None,
        metavar="BCM",
        help="the spare GPIO input wired to STEP x, for --timing",
    )
    parser.set_defaults(func=run)


def add_rig_arguments(parser: argparse.ArgumentParser) -> None:
    """--config, --board and --simulate, as every rig command takes them."""
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
        help="run on the simulated rig, with the owner's actions scripted",
    )


def config_path(args: argparse.Namespace) -> Path | None:
    """The configuration file, made absolute now: the real backend's lgpio later changes
    the working directory to $LG_WD, and `calibrate` writes the file at the end."""
    path: Path | None = args.config
    if path is None and DEFAULT_CONFIG_PATH.exists():
        path = DEFAULT_CONFIG_PATH
    return None if path is None else path.absolute()


# the optional parts of the reference rig (hardware/config.example.toml's commented keys)
REFERENCE_ESTOP_PIN = 4
REFERENCE_BUZZER_PIN = 12


def reference_rig(config: Config) -> Config:
    """The built-in configuration with the reference rig's e-stop and buzzer wired."""
    controls = config.controls
    wired = controls.model_copy(
        update={
            "estop_pin": REFERENCE_ESTOP_PIN if controls.estop_pin is None else controls.estop_pin,
            "buzzer_pin": (
                REFERENCE_BUZZER_PIN if controls.buzzer_pin is None else controls.buzzer_pin
            ),
        }
    )
    return config.model_copy(update={"controls": wired})


def make_owner(backend: Backend, config: Config, simulate: bool) -> Owner:
    """The owner at the terminal, or on the simulated rig a script acting on the simulation."""
    if not simulate and backend.name != "sim":
        return TerminalOwner()
    from bermuda_hw.backends.sim import SimBackend

    assert isinstance(backend, SimBackend)  # `--simulate` or `backend = "sim"`
    return ScriptedOwner(backend, config)


class ScriptedOwner:
    """Acts on the simulated rig as an owner would: presses switches, looks at the table."""

    def __init__(self, backend: SimBackend, config: Config) -> None:
        self.backend = backend
        self.config = config

    def _say(self, text: str) -> None:
        print(f"  -> {text} (scripted)", flush=True)

    def _set(self, key: str, pressed: bool, is_pressed: Reading) -> None:
        if key.startswith("endstop "):
            self.backend.rig.press_endstop(key.split()[1], pressed)
            return
        controls = self.config.controls
        bcm = controls.estop_pin if key == "estop" else controls.spin_button_pin
        assert bcm is not None
        pin = self.backend.pin(bcm)
        # whichever level reads as pressed (the contact may be normally open or closed)
        pin.drive_low()
        if bool(is_pressed()) != pressed:
            pin.drive_high()

    def press(self, key: str, text: str, is_pressed: Reading) -> None:
        self._say(text)
        self._set(key, True, is_pressed)

    def release(self, key: str, text: str, is_pressed: Reading) -> None:
        self._say(text)
        self._set(key, False, is_pressed)

    def confirm(self, key: str, question: str) -> bool | None:
        if key == "write":
            print(f"  ?? {question} y (scripted)")
            return True
        controls = self.config.controls
        bcm = controls.status_led_pin if key == "led" else controls.buzzer_pin
        answer = bcm is not None and bool(self.backend.pin(bcm).state)
        print(f"  ?? {question} {'y' if answer else 'n'} (scripted)")
        return answer

    def choose(self, key: str, question: str, options: str) -> str | None:
        world = self.backend.rig.world
        board = world.board
        assert board is not None
        letter = LETTERS[board.cloud.letter_at(world.cloud_heading_deg)]
        print(f"  ?? {question} {letter} (scripted: read off the simulated cloud)")
        return letter


def run_timing(args: argparse.Namespace, config: Config, simulate: bool) -> int:
    """`selftest --timing`: the STEP edges read back on a second GPIO, against the plan."""
    from bermuda_hw.rigcheck.timing import measure_step_timing

    if simulate or config.backend.kind == "sim":
        print(
            CheckLine(
                "step edge timing",
                None,
                "measured on the rig only: the simulated rig's pins have no wire between them",
            )
        )
        return 0
    if args.readback_pin is None:
        print(
            CheckLine(
                "step edge timing",
                False,
                "no --readback-pin given",
                f"wire STEP x (BCM {config.gantry.x.step_pin}) to a spare GPIO with a "
                "jumper and name it: --readback-pin BCM",
            )
        )
        return 2
    taken = [key for key, bcm in pin_map(config).items() if bcm == args.readback_pin]
    if taken:
        print(
            CheckLine(
                "step edge timing",
                False,
                f"BCM {args.readback_pin} is {taken[0]}",
                "wire STEP x to a spare GPIO and name that one",
            )
        )
        return 2
    try:
        with create_backend(config, simulate) as backend:
            report = measure_step_timing(config, backend, args.readback_pin)
    except Exception as exc:  # lgpio's "GPIO busy", a factory that cannot start...
        print(
            CheckLine(
                "step edge timing",
                False,
                f"{type(exc).__name__}: {exc}",
                "stop the service first (sudo systemctl stop bermuda-hw): it holds "
                "the GPIO lines; check the pin numbers",
            )
        )
        return 1
    todo = (
        f"check the jumper from STEP x (BCM {config.gantry.x.step_pin}) to BCM {args.readback_pin}"
        if report.seen == 0
        else "install python3-lgpio (lgpio's wave queue times the edges in C), give the "
        "service LimitRTPRIO, and stop other heavy work on the Pi"
    )
    print(CheckLine("step edge timing", report.ok, report.summary(), todo))
    return 0 if report.ok else 1


def run(args: argparse.Namespace) -> int:
    simulate = bool(getattr(args, "simulate", False))
    path = config_path(args)
    try:
        config = load_config(path)
    except Exception as exc:
        print(CheckLine("config", False, str(exc), "fix the key it names, then run again"))
        return 1
    if getattr(args, "timing", False):
        return run_timing(args, config, simulate)
    board = load_board(args.board)
    print(f"bermuda-hw selftest on the {'simulated' if simulate else 'configured'} rig")
    if simulate and path is None:
        config = reference_rig(config)
        print(
            "the simulated rig is the reference rig of hardware/config.example.toml, with "
            f"its e-stop on BCM {REFERENCE_ESTOP_PIN} and buzzer on BCM "
            f"{REFERENCE_BUZZER_PIN}"
        )
    with create_backend(config, simulate) as backend:
        owner = make_owner(backend, config, simulate)
        lines = run_selftest(
            config,
            board,
            backend,
            owner,
            press_timeout_s=args.timeout,
            report=lambda line: print(line, flush=True),
        )
    failed = [line for line in lines if line.ok is False]
    skipped = [line for line in lines if line.ok is None]
    passed = len(lines) - len(failed) - len(skipped)
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 1 if failed else 0
