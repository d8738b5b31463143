"""The `bermuda-hw` command line: subcommands, exit codes and error reporting."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

from bermuda_hw import __version__
from bermuda_hw.cli.options import EXIT_INTERRUPTED
from bermuda_hw.errors import BermudaError, ConfigError, describe_os_error

# Each module here defines `register(subparsers)`, which adds its subcommand
# and sets `func(args) -> int` on the parser it adds.
COMMAND_MODULES: tuple[str, ...] = (
    "board",
    "cloud",
    "render",
    "detect",
    "run",
    "game",
    "motors",
    "token",
    "selftest",
    "calibrate",
)

PROG = "bermuda-hw"
# sysexits.h's EX_CONFIG: the service's commands (`run`, `motors-off`) exit with it on a
# configuration, board or calibration file error, which no restart can mend (the unit's
# RestartPreventExitStatus=); other commands exit 1 on every error
EXIT_CONFIG = 78


# Commands that must run when the rest of the program cannot load (the unit runs
# `motors-off` after a crash): their parser is built from their own module alone,
# so no other command's imports (OpenCV, the page, the motor drivers) come first.
STANDALONE_COMMANDS: dict[str, str] = {"motors-off": "motors"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (`only`, a module of COMMAND_MODULES) one command's."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Table-side controller for the Bermuda Triangle board game.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="run on the simulated table instead of the rig's hardware",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if only is not None:
        importlib.import_module(f"bermuda_hw.cli.{only}").register(subparsers)
        return parser
    from bermuda_hw.cli import play

    play.add_arguments(parser)
    parser.set_defaults(default_func=play.run)
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"bermuda_hw.cli.{name}")
        module.register(subparsers)
    return parser


def error(message: str) -> None:
    """Print an error the way every subcommand reports one."""
    print(f"{PROG}: error: {message}", file=sys.stderr)


def standalone(argv: Sequence[str]) -> str | None:
    """The module of a standalone command that `argv` runs, if it runs one."""
    for word in argv:
        if word in ("--simulate", "--debug"):
            continue
        return STANDALONE_COMMANDS.get(word)
    return None


def _interrupted(signum: int, frame: object) -> None:
    """The first Ctrl-C interrupts; any more are ignored while the command winds down (motors
    stopped, the journal closed), so that a second press cannot cut that short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if in_main_thread else None
    if in_main_thread and previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # while the commands load (the parser imports them), or as a command winds down
        if debug:
            raise
        error("interrupted")
        return EXIT_INTERRUPTED
    finally:
        # called in-process (argv given): the caller gets its Ctrl-C back; as the program,
        # a press from now on is ignored until the process has exited (the command is done:
        # a press as it ends, a game ended by its round limit say, must not kill the
        # interpreter on its way out)
        if argv is not None and in_main_thread and previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
        elif argv is None and in_main_thread:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    only = standalone(words)
    parser = build_parser(only)
    args = parser.parse_args(words)
    func = getattr(args, "func", None)
    misplaced: list[str] = []
    if only is None and args.command:
        from bermuda_hw.cli import play

        misplaced = play.misplaced_options(args)
    if misplaced:
        error(
            f"{', '.join(misplaced)} before the command is read only by `{PROG} --simulate`; "
            f"put it after `{args.command}` (see `{PROG} {args.command} --help`)"
        )
        return 2
    if func is None:
        default = getattr(args, "default_func", None)
        if default is None:
            parser.print_help()
            return 2
        func = default
    try:
        result: int = func(args)
    except BermudaError as exc:
        if args.debug:
            raise
        error(str(exc))
        if isinstance(exc, ConfigError):
            return int(getattr(args, "config_error_exit", 1))
        return 1
    except BrokenPipeError:
        # The reader went away (`bermuda-hw ... | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        # a file named on the command line that the system refuses (a name too long, a full
        # or read-only disk, no permission) is said in one line; the devices were closed on
        # the way out (every backend is a context manager that stops the motors)
        if args.debug:
            raise
        error(describe_os_error(exc))
        return 1
    return result


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
