"""The finished games for the page: the list, the totals, and any game step by step.

The controller keeps the history (`controller.history`) in the journal's
database on its own thread; the page reads it here through a read-only
connection of its own, opened per request (SQLite's WAL lets it read while
the controller writes). A game's replay is its journal played again by the
rules engine, with every position drawn as the live board is: each ship's
place and its point in millimetres, the cloud, the totals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bermuda_hw.controller.history import History, Totals
from bermuda_hw.controller.journal import DB_NAME, Journal, made
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import LETTERS, Board


def _totals(table: dict[str, Totals]) -> dict[str, dict[str, int]]:
    return {k: {"games": t.games, "wins": t.wins, "usd": t.usd} for k, t in sorted(table.items())}


class FinishedGames:
    """The history of one state directory's journal, read for the page."""

    def __init__(self, state_dir: Path, board: Board) -> None:
        self.path = state_dir / DB_NAME
        self.board = board

    def _history(self, journal: Journal) -> History | None:
        tables = {
            row[0]
            for row in journal.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        return History(journal) if "history" in tables else None

    def listing(self) -> dict[str, Any]:
        """Every finished game, the latest first, with the totals per colour and per player."""
        if not made(self.path):
            return {"games": [], "by_colour": {}, "by_player": {}}
        with Journal(self.path, read_only=True) as journal:
            history = self._history(journal)
            if history is None:
                return {"games": [], "by_colour": {}, "by_player": {}}
            return {
                "games": [g.to_dict() for g in history.games()],
                "by_colour": _totals(history.by_colour()),
                "by_player": _totals(history.by_player()),
            }

    def replay(self, game_id: int) -> dict[str, Any]:
        """A finished game from its setup to its end: one step per journal entry."""
        if not made(self.path):
            raise StateError(f"no finished game {game_id}")
        with Journal(self.path, read_only=True) as journal:
            history = self._history(journal)
            if history is None:
                raise StateError(f"no finished game {game_id}")
            summary = history.get(game_id)
            replayed = history.replay(game_id, self.board)
        game = replayed.game.copy()
        steps = []
        for k, position in enumerate(replayed.positions):
            game.position = position
            pose = position.pose
            steps.append(
                {
                    "entry": dict(replayed.entries[k - 1]) if k else None,
                    "round": position.round,
                    "ships": [
                        {"id": s.id, "location": s.location, "status": s.status.value}
                        for s in game.ships()
                    ],
                    "positions": {sid: list(p) for sid, p in game.ship_positions().items()},
                    "cloud": {"col": pose.col, "row": pose.row, "letter": LETTERS[pose.letter]},
                    "totals": game.totals(),
                }
            )
        return {"game": summary.to_dict(), "steps": steps}
