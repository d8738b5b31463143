"""What the table is told: lines for the people at the table, and snapshots for the page.

A line goes to the log (and the system journal) and to every listener (the
simulated table's log, a chaos run). A board to fix is said once for each
state of the game, then again only when it changes or after `REPEAT_S`; a
camera that has not seen the board for `NO_BOARD_S` is told once, with the
corner markers it does see. A snapshot (`snapshot.take`) is handed to the
subscribers whenever the status or the game changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bermuda_hw.clock import Clock
from bermuda_hw.controller.snapshot import Snapshot, change_key, take
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import FrameReading

log = logging.getLogger("bermuda_hw.controller")

#: a board-fix message said again unchanged only after this long (and a question
#: unanswered, or a "not yet" on a board left as it was, asked again): long enough for a
#: person to look, count and press, and short enough that a table that missed it (a voice
#: off, a page not looked at) hears it again within a minute. Only when to say: nothing is
#: taken when it runs out
REPEAT_S = 60.0
#: a camera that has not seen the board this long is told to the table (with the corner
#: markers it does see): the stabiliser needs three frames at 10 a second, so this is
#: many stable runs missed, not one frame lost
NO_BOARD_S = 5.0
#: board-fix messages remembered (said once each) before the memory starts afresh: a bound
#: on memory over a long game, far above the fixes of one state of the game
_REMEMBERED = 100


class Announcer:
    """Says lines to the table and hands snapshots to the page, without repeating itself."""

    def __init__(self, clock: Clock, board: Board) -> None:
        self.clock = clock
        self.board = board
        self.listeners: list[Callable[[str], None]] = []
        self.subscribers: list[Callable[[Snapshot], None]] = []
        self.snapshot: Snapshot | None = None
        self._snapshot_key: tuple[object, ...] | None = None
        self._fix_said: dict[tuple[int, str], float] = {}
        self._no_board_since: float | None = None
        self._no_board_said = False

    def say(self, text: str) -> None:
        """Log a line for the people at the table (and the system journal)."""
        log.info(text)
        for listener in list(self.listeners):
            listener(text)

    def worth_saying(self, seq: int, mode: Mode, message: str) -> bool:
        """A board to fix (and the turn it waits for) is said once for each state of the game
        (`seq`), then again only when it changes or after `REPEAT_S`: a board that flickers
        between right and wrong does not fill the log."""
        if mode not in (Mode.FIX, Mode.SETUP, Mode.READY):
            return True
        now = self.clock.monotonic()
        key = (seq, message)
        last = self._fix_said.get(key)
        if last is not None and now - last < REPEAT_S:
            return False
        if len(self._fix_said) > _REMEMBERED:
            self._fix_said.clear()
        self._fix_said[key] = now
        return True

    def publish(self, game_id: int, status: Status, game: Game | None) -> None:
        """Hand a new snapshot to the subscribers if the status or the game changed."""
        key = change_key(game_id, status)
        if key == self._snapshot_key:
            return
        self._snapshot_key = key
        version = 1 if self.snapshot is None else self.snapshot.version + 1
        snapshot = take(version, game_id, status, game)
        self.snapshot = snapshot
        for subscriber in list(self.subscribers):
            subscriber(snapshot)

    def watch_board(self, reading: FrameReading | None) -> None:
        """Say, once, which corner markers the camera sees when it has not seen the board
        for `NO_BOARD_S`; `reading`: the last frame's."""
        if reading is None or reading.board_found:
            self._no_board_since = None
            self._no_board_said = False
            return
        now = self.clock.monotonic()
        if self._no_board_since is None:
            self._no_board_since = now
        elif not self._no_board_said and now - self._no_board_since >= NO_BOARD_S:
            self._no_board_said = True
            corners = [m.id for m in self.board.markers.corners]
            seen = sorted(set(reading.markers_seen) & set(corners))
            seen_text = ", ".join(map(str, seen)) if seen else "none"
            self.say(
                f"the camera has not seen the board for {NO_BOARD_S:g} s: of the corner "
                f"markers {', '.join(map(str, corners))} it sees {seen_text}. Aim it so "
                "that all four corners are in view, close enough for each marker to be "
                "clearly visible, and light the board evenly"
            )
