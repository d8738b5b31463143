"""Immutable snapshots of the controller for readers on other threads (the page, its API).

The step thread builds a `Snapshot` whenever the status or the game changes
and hands it to its subscribers; a snapshot is never changed afterwards, so
any thread may read it. `game_json` is the document of `bermuda-hw game show
--json` and `/api/game`; `status_json` the one of `/api/status`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bermuda_hw.controller.status import Status
from bermuda_hw.rules.board import LETTERS, Point
from bermuda_hw.rules.entries import GameRecord
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.record import record as game_record


def game_json(game_id: int, game: Game) -> dict[str, Any]:
    """The game as `bermuda-hw game show --json` prints it."""
    outcome = game.outcome()
    return {
        "game_id": game_id,
        "board": game.board.name,
        "players": list(game.players),
        "order": list(game.order),
        "seed": game.seed,
        "round": game.round,
        "phase": game.phase.value,
        "active": None if outcome is not None else game.active,
        "cloud": {"col": game.pose.col, "row": game.pose.row, "letter": LETTERS[game.pose.letter]},
        "totals": game.totals(),
        "ships": [
            {
                "id": s.id,
                "color": s.color,
                "location": s.location,
                "previous_port": s.previous_port,
                "status": s.status.value,
            }
            for s in game.ships()
        ],
        "outcome": None
        if outcome is None
        else {
            "reason": outcome.reason.value,
            "text": str(outcome),  # in words: "yellow wins (a player lost every ship)"
            "winners": list(outcome.winners),
            "totals": dict(outcome.totals),
        },
        "journal_entries": len(game.journal),
    }


def cards_json(game: Game) -> dict[str, Any]:
    """Every player's cards, the cards left in each pile and the bonus cards left."""
    piles = {product: list(game.pile(product)) for product in ("sugar", "oil", "bananas", "lumber")}
    return {
        "hands": {c: [{"product": p, "usd": v} for p, v in game.hand(c)] for c in game.players},
        "piles": piles,
        "bonus_left": game.bonus_left,
    }


def _plain(value: Any) -> Any:
    """A status field as JSON data (dataclasses, enums, tuples and sets included)."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        describe = getattr(value, "describe", None)
        if callable(describe):
            data["text"] = describe()
        return data
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def status_json(status: Status) -> dict[str, Any]:
    """The controller's status as plain JSON data (every field, present and future)."""
    data = {f.name: _plain(getattr(status, f.name)) for f in dataclasses.fields(status)}
    data.setdefault("question", None)
    return data


@dataclass(frozen=True)
class Snapshot:
    """The controller's state at one moment; never changed after it is published."""

    version: int  # grows with every snapshot
    game_id: int
    status: Mapping[str, Any]
    game: Mapping[str, Any] | None
    cards: Mapping[str, Any] | None
    record: GameRecord | None  # `rules.record.record`: replayable with `replay`
    positions: Mapping[str, Point]  # where the engine has each ship on the board (mm)
    engine: Game | None  # a private copy of the game, for questions such as the danger map
    taken_unix: float = 0.0  # wall-clock time it was taken (for latency measurements)

    @property
    def seq(self) -> int:
        return int(self.status.get("seq", 0))


def change_key(game_id: int, status: Status) -> tuple[Any, ...]:
    """What makes a new snapshot worth publishing (frame counters alone do not)."""
    fields = tuple(
        (f.name, repr(getattr(status, f.name)))
        for f in dataclasses.fields(status)
        if f.name not in ("frames", "observations")
    )
    return (game_id, *fields)


def take(version: int, game_id: int, status: Status, game: Game | None) -> Snapshot:
    """A snapshot of the controller's status and game (called on the step thread)."""
    now = time.time()
    if game is None:
        return Snapshot(version, game_id, status_json(status), None, None, None, {}, None, now)
    engine = game.copy()
    return Snapshot(
        version,
        game_id,
        status_json(status),
        game_json(game_id, game),
        cards_json(game),
        game_record(engine),
        engine.ship_positions(),
        engine,
        now,
    )
