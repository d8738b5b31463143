"""Option types for the command line: numbers within bounds, refused by argparse with the option."""

from __future__ import annotations

import argparse
from collections.abc import Callable

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
