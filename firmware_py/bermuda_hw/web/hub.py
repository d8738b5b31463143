"""Between the step thread and the web's event loop: the latest snapshot, history, danger map.

The controller hands each new `Snapshot` to `Hub.publish` on its own thread;
the hub keeps it and wakes the event loop's waiters with
`call_soon_threadsafe`. Everything else here runs on the event loop: the
history (each journal entry with the events it caused, replayed through the
rules engine) and the danger map are computed from the snapshot's private
copy of the game, never from the controller's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from bermuda_hw.controller.snapshot import Snapshot
from bermuda_hw.errors import BermudaError
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.cloud import CloudPose, Spin, letter_index, plan_spin
from bermuda_hw.rules.danger import spinner_outcomes, sweep_odds
from bermuda_hw.rules.entries import GameRecord, JournalEntry
from bermuda_hw.rules.events import Event
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.hints import move_hints
from bermuda_hw.rules.moves import Move


class History:
    """Every journal entry of the current game with the events it caused, kept up to date."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.items: list[dict[str, Any]] = []
        self._key: tuple[int, tuple[Any, ...]] | None = None
        self._game: Game | None = None
        self._entries: list[JournalEntry] = []
        self._angles = {o.spin: o.angle_deg for o in spinner_outcomes(board.spinner)}

    def update(self, game_id: int, record: GameRecord | None) -> None:
        if record is None:
            self.items, self._game, self._entries, self._key = [], None, [], None
            return
        setup = record["setup"]
        key = (game_id, tuple(sorted((k, repr(v)) for k, v in setup.items())))
        entries = list(record["journal"])
        if key != self._key or entries[: len(self._entries)] != self._entries:
            self._key = key
            self._entries = []
            self.items = []
            self._game = Game.new(
                setup["players"],
                seed=setup["seed"],
                board=self.board,
                options=GameOptions(**setup["options"]),
                first_player=setup["first_player"],
            )
        game = self._game
        assert game is not None
        for entry in entries[len(self._entries) :]:
            seq = len(self._entries) + 1
            try:
                item = self._apply(game, entry, seq)
            except BermudaError as exc:  # never expected: the controller's engine took it
                item = {
                    "seq": seq,
                    "round": game.round,
                    "entry": dict(entry),
                    "text": [f"(not shown: {exc})"],
                }
            self.items.append(item)
            self._entries.append(entry)

    def _apply(self, game: Game, entry: JournalEntry, seq: int) -> dict[str, Any]:
        item: dict[str, Any] = {"seq": seq, "round": game.round, "entry": dict(entry)}
        events: list[Event] = []
        texts: list[str]
        if "roll" in entry:
            game.set_die(int(entry["roll"]))
            texts = [f"{game.active} rolls {entry['roll']}"]
        elif "move" in entry:
            events = game.push(Move.parse(entry["move"]))
            texts = [str(e) for e in events]
        elif "cloud" in entry:
            spin = Spin.parse(entry["cloud"])
            start = game.pose
            path = plan_spin(self.board.grid, start, spin, self.board.cloud)
            events = game.cloud_phase(spin, capture=list(entry["captured"]))
            texts = [str(e) for e in events]
            item["spin"] = {
                "text": str(spin),
                "angle_deg": self._angles.get(spin, 0.0),
                "from": {"col": start.col, "row": start.row, "letter": LETTERS[start.letter]},
                "turn_deg": path.turn_deg,
                "dots": [list(self.board.grid.dot_mm(c, r)) for c, r in path.dots],
                "leaves_board": path.leaves_board,
            }
        elif "set-ship" in entry:
            game.set_ship(
                entry["set-ship"],
                entry["location"],
                entry["previous-port"],
                status=ShipStatus(entry["status"]),
            )
            texts = [f"{entry['set-ship']} set to {entry['location'] or entry['status']}"]
        elif "set-cloud" in entry:
            col, row, letter = entry["set-cloud"]
            game.set_cloud(CloudPose(int(col), int(row), letter_index(str(letter))))
            texts = [f"the cloud set to ({col}, {row}) {letter}"]
        elif "set-turn" in entry:
            game.set_turn(entry["set-turn"], Phase(entry["phase"]))
            texts = [f"{entry['set-turn']} to play"]
        else:
            texts = [", ".join(f"{k} {v}" for k, v in entry.items())]
        item["text"] = texts
        return item

    def since(self, seq: int) -> list[dict[str, Any]]:
        return self.items[max(0, seq) :]

    def last_spin(self) -> dict[str, Any] | None:
        for item in reversed(self.items):
            if "spin" in item:
                spin: dict[str, Any] = item["spin"]
                return {**spin, "seq": item["seq"], "round": item["round"]}
        return None


def hints_json(snapshot: Snapshot) -> list[dict[str, Any]] | None:
    """The rolled player's legal moves with what each does, if that player asked for hints
    (the virtual die only: the table's own die is not known before the move)."""
    game = snapshot.engine
    asked = snapshot.status.get("hints") or ()
    if (
        game is None
        or game.is_over()
        or game.phase is not Phase.SHIPS
        or game.options.die != "virtual"
        or game.position.die is None
        or game.active not in asked
    ):
        return None
    return [
        {
            "move": str(h.move),
            "card": h.card,
            "card_usd": h.card_usd,
            "bumps": [list(b) for b in h.bumps],
            "danger": None if h.danger is None else float(h.danger),
            "danger_exact": None if h.danger is None else str(h.danger),
            "short": h.short,
        }
        for h in move_hints(game)
    ]


def danger_json(game: Game | None) -> dict[str, Any] | None:
    if game is None:
        return None
    danger = sweep_odds(game)
    return {
        "ships": {sid: {"p": float(p), "exact": str(p)} for sid, p in danger.swept.items()},
        "leaves_board": {"p": float(danger.leaves_board), "exact": str(danger.leaves_board)},
        "in_cloud": list(danger.in_cloud),
        "outcomes": danger.outcomes,
    }


class Hub:
    """The latest snapshot, shared from the step thread to the event loop's readers."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.history = History(board)
        self._lock = threading.Lock()
        self._latest: Snapshot | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._state: tuple[int, dict[str, Any]] | None = None
        self._danger: tuple[tuple[Any, ...], dict[str, Any] | None] | None = None
        self.closing = False

    # --- the step thread ----------------------------------------------------------------

    def publish(self, snapshot: Snapshot) -> None:
        """Called by the controller (its subscriber) on the step thread."""
        with self._lock:
            self._latest = snapshot
            loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    # --- the event loop -----------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop
            self._changed = asyncio.Event()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    def close(self) -> None:
        self.closing = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    @property
    def latest(self) -> Snapshot | None:
        with self._lock:
            return self._latest

    async def wait(self, version: int, timeout_s: float) -> None:
        """Until a snapshot newer than `version` (or the timeout, or closing)."""
        latest = self.latest
        if self.closing or (latest is not None and latest.version > version):
            return
        event = self._changed
        if event is None:
            await asyncio.sleep(timeout_s)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout_s)

    def state(self) -> dict[str, Any] | None:
        """The page's document for the latest snapshot (history and danger map included)."""
        snapshot = self.latest
        if snapshot is None:
            return None
        if self._state is not None and self._state[0] == snapshot.version:
            return self._state[1]
        self.history.update(snapshot.game_id, snapshot.record)
        state = {
            "version": snapshot.version,
            "taken_unix": snapshot.taken_unix,
            "game_id": snapshot.game_id,
            "seq": snapshot.seq,
            "status": snapshot.status,
            "game": snapshot.game,
            "cards": snapshot.cards,
            "positions": {k: list(v) for k, v in snapshot.positions.items()},
            "danger": self._danger_of(snapshot),
            "hints": hints_json(snapshot),
            "last_spin": self.history.last_spin(),
            "history_length": len(self.history.items),
        }
        self._state = (snapshot.version, state)
        return state

    def _danger_of(self, snapshot: Snapshot) -> dict[str, Any] | None:
        journal = snapshot.record["journal"] if snapshot.record is not None else []
        key = (snapshot.game_id, len(journal), repr(journal[-1]) if journal else "")
        if self._danger is None or self._danger[0] != key:
            self._danger = (key, danger_json(snapshot.engine))
        return self._danger[1]
