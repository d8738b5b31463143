"""The game's journal entries: one typed dict per kind, as `Game` writes them and JSON holds them.

Each entry is a plain dict (so the journal's JSON, on disk and in saved games,
is what it always was), typed per kind so that `mypy --strict` checks every
key read or written. The kind is the key an entry holds: `"roll" in entry`
narrows it to a `RollEntry`. `entry_from_json` checks an entry read back
(from the database, a saved game or a record) before the rules play it.

>>> entry_from_json({"roll": 3, "engine": True})
{'roll': 3, 'engine': True}
>>> entry_from_json({"move": 3})
Traceback (most recent call last):
...
bermuda_hw.errors.StateError: journal entry {'move': 3}: 'move' is not str
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast, final

from bermuda_hw.errors import StateError


@final
class RollEntry(TypedDict):
    """The die: rolled by the engine (`engine`, drawn again from the seed on replay) or at
    the table."""

    roll: int
    engine: bool


@final
class MoveEntry(TypedDict):
    """A ship's move (`Move`'s text); `provisional`: its places the camera could not see."""

    move: str
    provisional: NotRequired[list[str]]


@final
class CloudEntry(TypedDict):
    """A cloud phase: the spin (`Spin`'s text), the ships captured, whether the engine drew
    the spin and decided the captures; `provisional`: captures from places the cloud covered."""

    cloud: str
    engine: bool
    captured: list[str]
    decided: bool
    provisional: NotRequired[list[str]]


_SetShip = TypedDict("_SetShip", {"set-ship": str, "previous-port": str | None})


@final
class SetShipEntry(_SetShip):
    """A ship put somewhere by hand (`"set-ship"`: its id; `"previous-port"`)."""

    location: str | None
    status: str  # a `ShipStatus` value


_SetCloud = TypedDict("_SetCloud", {"set-cloud": list[int | str]})


@final
class SetCloudEntry(_SetCloud):
    """The cloud put at a pose by hand: `[col, row, letter]`."""


_SetTurn = TypedDict("_SetTurn", {"set-turn": str})


@final
class SetTurnEntry(_SetTurn):
    """Whose turn it is, set by hand, and the phase (a `Phase` value)."""

    phase: str


JournalEntry = RollEntry | MoveEntry | CloudEntry | SetShipEntry | SetCloudEntry | SetTurnEntry


class GameRecord(TypedDict):
    """What reproduces a game (`rules.record.record`): its board's name, its setup (players,
    seed, options, first player) and its journal."""

    board: str
    setup: dict[str, Any]
    journal: list[JournalEntry]


# each kind's key and the types of its fields, for entries read back (JSON: lists, not tuples)
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "roll": {"roll": (int,), "engine": (bool,)},
    "move": {"move": (str,)},
    "cloud": {"cloud": (str,), "engine": (bool,), "captured": (list,), "decided": (bool,)},
    "set-ship": {
        "set-ship": (str,),
        "location": (str, type(None)),
        "previous-port": (str, type(None)),
        "status": (str,),
    },
    "set-cloud": {"set-cloud": (list,)},
    "set-turn": {"set-turn": (str,), "phase": (str,)},
}
_OPTIONAL: dict[str, tuple[type, ...]] = {"provisional": (list,)}


def entry_from_json(value: object) -> JournalEntry:
    """`value` (a JSON object read back) as a journal entry of its kind: its kind known,
    every field of that kind there with its type; other keys are left as they are.
    StateError otherwise. The dict itself is returned, unchanged."""
    if not isinstance(value, Mapping):
        raise StateError(f"journal entry {value!r}: not an object")
    kind = next((k for k in _FIELDS if k in value), None)
    if kind is None:
        raise StateError(f"unknown journal entry {value!r}")
    for key, types in (_FIELDS[kind] | _OPTIONAL).items():
        if key not in value:
            if key in _OPTIONAL:
                continue
            raise StateError(f"journal entry {value!r}: no {key!r}")
        field = value[key]
        if not isinstance(field, types) or (bool not in types and isinstance(field, bool)):
            names = " or ".join("None" if t is type(None) else t.__name__ for t in types)
            raise StateError(f"journal entry {value!r}: {key!r} is not {names}")
    pose = value.get("set-cloud")
    if kind == "set-cloud" and not (
        isinstance(pose, list)
        and len(pose) == 3
        and all(isinstance(n, int) and not isinstance(n, bool) for n in pose[:2])
        and isinstance(pose[2], str)
    ):
        raise StateError(f"journal entry {value!r}: 'set-cloud' is not [col, row, letter]")
    return cast(JournalEntry, value)
