"""The actions from outside the table (the page, `bermuda-hw game`), checked before the daemon
carries them out: each request's fields, their types and ranges, and what an undo takes back.

Everything here is pure: a request (a JSON object's fields) in, its checked values out, or
`ActionRefused` with the HTTP status a web client gets (400: the request is malformed; 409:
not allowed now). Nothing here reads the table's mode; the daemon checks that before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.rules.game import MAX_PLAYERS, MIN_PLAYERS, Game, GameOptions, Phase
from bermuda_hw.rules.moves import MAX_DIE
from bermuda_hw.rules.record import rewound


def _whole(value: object) -> TypeGuard[int]:
    """A JSON whole number (not a boolean, not 3.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class NewGame:
    """A checked new-game request."""

    players: int
    seed: int | None
    options: GameOptions


def new_game_request(
    args: Mapping[str, Any],
    colors: Sequence[str],
    players_before: int,
    options_before: GameOptions | None,
) -> NewGame:
    """`{"players": 2-4, "seed": N, "options": {...}}`, every field optional: the players
    of the game before, a new seed, and its die unless named. `colors` are the board's ship
    colours in seating order; a computer seat must be one that plays."""
    unknown = sorted(set(args) - {"players", "seed", "options"})
    if unknown:
        raise ActionRefused(f"new-game: unknown field {unknown[0]!r}", status=400)
    players = args.get("players", players_before)
    if not _whole(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ActionRefused(
            f"new-game: players must be a whole number from {MIN_PLAYERS} to {MAX_PLAYERS}",
            status=400,
        )
    seed = args.get("seed")
    if seed is not None and (not _whole(seed) or seed < 0):
        raise ActionRefused("new-game: seed must be a whole number, at least 0", status=400)
    raw = args.get("options") or {}
    if not isinstance(raw, Mapping):
        raise ActionRefused("new-game: options must be an object", status=400)
    raw = dict(raw)
    if "die" not in raw and options_before is not None:
        raw["die"] = options_before.die  # the die of the game before, unless named
    try:
        options = GameOptions(**raw)
    except (TypeError, ValueError) as exc:
        raise ActionRefused(f"new-game: options: {exc}", status=400) from None
    playing = tuple(colors[:players])
    for color, _ in options.computer:
        if color not in playing:
            raise ActionRefused(
                f"new-game: computer: {color} does not play in a game of {players} "
                f"({', '.join(playing)})",
                status=400,
            )
    return NewGame(players, seed, options)


def hints_request(args: Mapping[str, Any], players: Sequence[str]) -> tuple[str, bool]:
    """`{"color": "blue", "on": true}`: hints on or off for one player who plays."""
    color, on = args.get("color"), args.get("on")
    if set(args) - {"color", "on"} or not isinstance(on, bool):
        raise ActionRefused('hints: send {"color": COLOUR, "on": true or false}', status=400)
    if not isinstance(color, str) or color not in players:
        raise ActionRefused(
            f"hints: {color!r} does not play (players: {', '.join(players) or 'none'})",
            status=400,
        )
    return color, on


def die_request(args: Mapping[str, Any]) -> int:
    """`{"value": N}`: the die rolled at the table, 1 to 6."""
    value = args.get("value")
    if set(args) - {"value"} or not _whole(value) or not 1 <= value <= MAX_DIE:
        raise ActionRefused(f'die: send {{"value": N}}, N from 1 to {MAX_DIE}', status=400)
    return value


def answer_request(args: Mapping[str, Any], options: Sequence[str]) -> int:
    """`{"option": ...}`: an option of the question by its text or its number from 1; the
    number."""
    option = args.get("option")
    if isinstance(option, str) and option in options:
        return options.index(option) + 1
    if _whole(option) and 1 <= option <= len(options):
        return option
    raise ActionRefused(
        "answer: option must be one of the question's options (its "
        f"text, or its number from 1 to {len(options)})",
        status=400,
    )


def undo_count(game: Game) -> int:
    """How many journal entries an undo takes back: the last move with its roll (or the last
    roll, hand edit or told die), and before it what the table did on its own for a computer
    seat since (a virtual roll, a pass with it), which it would do again at once. A spin is
    never taken back."""
    seats = dict(game.options.computer)
    trial, count = game, 0
    while True:
        entries = trial.journal
        if not entries:
            if count:
                break
            raise ActionRefused("nothing to undo: no move has been made in this game")
        last = entries[-1]
        if "cloud" in last:
            raise ActionRefused(
                "the last action is a spin: the cloud has moved and captured, "
                "and a spin cannot be taken back"
            )
        n = 2 if "move" in last and len(entries) >= 2 and "roll" in entries[-2] else 1
        trial = rewound(trial, len(entries) - n)
        count += n
        by_the_table = (
            trial.options.die == "virtual"
            and trial.phase is Phase.SHIPS
            and trial.active in seats
            and entries[-n].get("engine") is True  # the roll the table made itself
            and (n == 1 or str(last.get("move", "")).endswith(" pass"))
        )
        if not by_the_table:
            break
    return count
