"""The words of a question to the table: die values, the options and their presses."""

from __future__ import annotations


def dice_text(dice: frozenset[int]) -> str:
    """Die values in words: `1`, `2-6`, `1, 3 or 5`."""
    values = sorted(dice)
    if len(values) > 2 and values[-1] - values[0] == len(values) - 1:
        return f"{values[0]}-{values[-1]}"
    return either(tuple(str(v) for v in values))


def press_hint(options: tuple[str, ...]) -> str:
    return "; ".join(f"{k} press{'es' if k > 1 else ''}: {o}" for k, o in enumerate(options, 1))


def either(options: tuple[str, ...]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]
