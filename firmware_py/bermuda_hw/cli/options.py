"""Option types for the command line: numbers within bounds, refused by argparse with the option."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bermuda_hw.errors import StateError

if TYPE_CHECKING:
    from bermuda_hw.rules.board import Board
    from bermuda_hw.rules.game import GameOptions

# interrupted by Ctrl-C (SIGINT), as a shell reports it: 128 + 2
EXIT_INTERRUPTED = 130


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An integer option from `low` to `high` (None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {value}")
        return value

    return parse


def number(low: float, high: float, *, zero: str = "") -> Callable[[str], float]:
    """A finite number option from `low` to `high`; `zero` (if given) also allows 0, meaning it."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if (zero and value == 0) or low <= value <= high:  # NaN is neither
            return value
        also = f"0 ({zero}) or " if zero else ""
        raise argparse.ArgumentTypeError(f"must be {also}from {low:g} to {high:g}, not {text}")

    return parse


def computer_seat(text: str) -> tuple[str, str]:
    """A computer seat, `COLOUR` or `COLOUR=LEVEL` (level "best" unless named), for `--computer`."""
    from bermuda_hw.rules.board import SHIP_COLORS as colors
    from bermuda_hw.rules.game import COMPUTER_LEVELS

    color, _, level = text.partition("=")
    color, level = color.strip().lower(), (level.strip().lower() or "best")
    if color not in colors:
        raise argparse.ArgumentTypeError(f"{color!r} is not a colour ({', '.join(colors)})")
    if level not in COMPUTER_LEVELS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the level is {' or '.join(COMPUTER_LEVELS)}, not {level!r}"
        )
    return color, level


def computer_seats(parser: argparse.ArgumentParser) -> None:
    """`--computer COLOUR[=LEVEL]`, once per seat the table plays itself in a new game."""
    parser.add_argument(
        "--computer",
        type=computer_seat,
        action="append",
        default=[],
        metavar="COLOUR[=LEVEL]",
        help="a seat the table plays itself in a new game (level easy or best, default "
        "best); give it once per seat",
    )


def new_game_options(
    players: int,
    board: Board,
    *,
    die: str = "table",
    computer: Sequence[tuple[str, str]] = (),
    **house_rules: Any,
) -> GameOptions:
    """A new game's options from the command line, its computer seats checked against the
    colours that play (refused with the option named, before anything starts)."""
    from bermuda_hw.rules.game import GameOptions

    playing = board.ship_colors[:players]
    for color, _ in computer:
        if color not in playing:
            raise StateError(
                f"--computer {color}: {color} does not play in a game of {players} "
                f"({', '.join(playing)}); nothing was started"
            )
    try:
        return GameOptions(die=die, computer=tuple(computer), **house_rules)
    except (TypeError, ValueError) as exc:
        raise StateError(f"the new game's options: {exc}") from None
