"""The history of finished games: who played, who won, the scores, how long, and when.

One row per finished game in the table `history` of the journal's database
(the same SQLite file, WAL, synchronous FULL, one transaction per row), so the
history survives a power cut as the journal does. A row is written from the
game's own journal: the game is replayed through the rules engine
(`rules.record.replay_positions`), and its outcome, totals and length are the
replay's, never the caller's word. The journal keeps every game (finished
games are archived, never deleted), so any game of the history replays move
by move (`History.replay`).

What the journal does not hold is given when a game is recorded: the players'
names (per colour) and which seats the table played (`rules.computer.LEVELS`).

Totals over all games, per colour and per player name: games played, games
won (a shared win counts for each winner) and dollars taken.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bermuda_hw.controller.journal import Journal, StoredGame
from bermuda_hw.errors import BermudaError, StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.computer import LEVELS
from bermuda_hw.rules.entries import JournalEntry
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.record import Replayed, replay_positions

_SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    board TEXT NOT NULL,
    started_utc TEXT NOT NULL,
    finished_utc TEXT NOT NULL,
    players TEXT NOT NULL,
    names TEXT NOT NULL,
    computer TEXT NOT NULL,
    winners TEXT NOT NULL,
    totals TEXT NOT NULL,
    reason TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    moves INTEGER NOT NULL
)
"""
_COLUMNS = (
    "game_id, board, started_utc, finished_utc, players, names, computer, winners, "
    "totals, reason, rounds, moves"
)


@dataclass(frozen=True)
class GameSummary:
    """One finished game as the history keeps it."""

    game_id: int
    board: str
    started_utc: str
    finished_utc: str
    players: tuple[str, ...]  # colours, in seat order
    names: Mapping[str, str]  # colour -> the player's name
    computer: Mapping[str, str]  # colour -> level, for the seats the table played
    winners: tuple[str, ...]
    totals: Mapping[str, int]  # colour -> dollars in cards
    reason: str  # rules.game.EndReason's value
    rounds: int  # rounds begun (a round is every player's turn, then the cloud)
    moves: int  # turns taken, passes included

    def to_dict(self) -> dict[str, Any]:
        """As plain JSON data (for the page's API)."""
        return {
            "game_id": self.game_id,
            "board": self.board,
            "started_utc": self.started_utc,
            "finished_utc": self.finished_utc,
            "players": list(self.players),
            "names": dict(self.names),
            "computer": dict(self.computer),
            "winners": list(self.winners),
            "totals": dict(self.totals),
            "reason": self.reason,
            "rounds": self.rounds,
            "moves": self.moves,
        }


@dataclass(frozen=True)
class Totals:
    """One colour's or one player's results over every game in the history."""

    games: int = 0
    wins: int = 0
    usd: int = 0

    @property
    def mean_usd(self) -> float:
        return self.usd / self.games if self.games else 0.0

    def add(self, won: bool, usd: int) -> Totals:
        return Totals(self.games + 1, self.wins + int(won), self.usd + usd)


def game_length(entries: Iterable[JournalEntry]) -> tuple[int, int]:
    """A game's rounds (begun) and moves (turns, passes included) from its journal entries."""
    rounds = moves = 0
    in_round = False
    for entry in entries:
        if "move" in entry:
            moves += 1
            if not in_round:
                rounds += 1
                in_round = True
        elif "cloud" in entry:
            in_round = False
    return rounds, moves


def summarize(
    stored: StoredGame,
    game: Game,
    *,
    names: Mapping[str, str] | None = None,
    computer: Mapping[str, str] | None = None,
) -> GameSummary:
    """The history's row for a finished game: `game` is `stored` replayed.

    A player without a name is called by the colour; a computer seat without
    one, "table (LEVEL)". The computer seats default to the game's own
    (`GameOptions.computer`).
    """
    outcome = game.outcome()
    if outcome is None:
        raise StateError(
            f"game {stored.id} is not finished: only finished games are kept in the history"
        )
    if stored.finished_utc is None:
        raise StateError(
            f"game {stored.id} is over by its moves but the journal has not marked it finished"
        )
    names = dict(names or {})
    # the seats the table played are in the game's own options unless given
    computer = dict(computer if computer is not None else game.options.computer)
    for what, given in (("names", names), ("computer", computer)):
        strays = sorted(set(given) - set(game.players))
        if strays:
            raise StateError(
                f"game {stored.id}: {what}: {', '.join(strays)} did not play "
                f"(players: {', '.join(game.players)})"
            )
    for color, level in computer.items():
        if level not in LEVELS:
            raise StateError(
                f"game {stored.id}: computer: {color} plays {level!r}, not {' or '.join(LEVELS)}"
            )
    for color, name in names.items():
        if not name.strip():
            raise StateError(f"game {stored.id}: names: {color}'s name is empty")
    full_names = {
        c: names.get(c) or (f"table ({computer[c]})" if c in computer else c) for c in game.players
    }
    rounds, moves = game_length(stored.entries)
    return GameSummary(
        game_id=stored.id,
        board=stored.board,
        started_utc=stored.started_utc,
        finished_utc=stored.finished_utc,
        players=game.players,
        names=full_names,
        computer=computer,
        winners=outcome.winners,
        totals=dict(outcome.totals),
        reason=outcome.reason.value,
        rounds=rounds,
        moves=moves,
    )


class History:
    """The finished games kept in a journal's database."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        tables = {
            row[0]
            for row in journal.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if "history" not in tables:
            with journal.transaction():
                journal.conn.execute(_SCHEMA)

    def record(
        self,
        game_id: int,
        board: Board,
        *,
        names: Mapping[str, str] | None = None,
        computer: Mapping[str, str] | None = None,
    ) -> GameSummary:
        """Keep a finished game of the journal (again: the row is replaced); its summary."""
        stored = self.journal.stored(game_id)
        summary = summarize(
            stored, self._replay(stored, board).game, names=names, computer=computer
        )
        row = (
            summary.game_id,
            summary.board,
            summary.started_utc,
            summary.finished_utc,
            json.dumps(list(summary.players)),
            json.dumps(dict(summary.names), sort_keys=True),
            json.dumps(dict(summary.computer), sort_keys=True),
            json.dumps(list(summary.winners)),
            json.dumps(dict(summary.totals), sort_keys=True),
            summary.reason,
            summary.rounds,
            summary.moves,
        )
        with self.journal.transaction():
            self.journal.conn.execute(
                f"INSERT OR REPLACE INTO history ({_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return summary

    def forget(self, game_id: int) -> bool:
        """Drop a game's row (an undo reopened it); whether there was one."""
        with self.journal.transaction():
            cursor = self.journal.conn.execute("DELETE FROM history WHERE game_id = ?", (game_id,))
        return cursor.rowcount > 0

    def record_missing(self, board: Board) -> list[GameSummary]:
        """Keep every finished game of the journal on `board` that the history lacks.

        For games finished before the history was kept, or when the table
        stopped between finishing a game and recording it: their players are
        called by their colours, and no seat is known to be the table's.
        """
        kept = {row[0] for row in self.journal.conn.execute("SELECT game_id FROM history")}
        added = []
        for game_id, _, finished, _ in self.journal.games():
            if finished is None or game_id in kept:
                continue
            if self.journal.stored(game_id).board != board.name:
                continue
            added.append(self.record(game_id, board))
        return added

    def games(self) -> list[GameSummary]:
        """Every game kept, the latest finished first."""
        rows = self.journal.conn.execute(
            f"SELECT {_COLUMNS} FROM history ORDER BY finished_utc DESC, game_id DESC"
        ).fetchall()
        return [self._summary(row) for row in rows]

    def get(self, game_id: int) -> GameSummary:
        row = self.journal.conn.execute(
            f"SELECT {_COLUMNS} FROM history WHERE game_id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise StateError(f"{self.journal.path}: no finished game {game_id} in the history")
        return self._summary(row)

    def by_colour(self) -> dict[str, Totals]:
        """Per colour: games played, won and dollars taken, over every game kept."""
        out: dict[str, Totals] = {}
        for game in self.games():
            for color in game.players:
                out[color] = out.get(color, Totals()).add(color in game.winners, game.totals[color])
        return out

    def by_player(self) -> dict[str, Totals]:
        """Per player's name: games played, won and dollars taken, over every game kept."""
        out: dict[str, Totals] = {}
        for game in self.games():
            for color in game.players:
                name = game.names[color]
                out[name] = out.get(name, Totals()).add(color in game.winners, game.totals[color])
        return out

    def replay(self, game_id: int, board: Board) -> Replayed:
        """A kept game replayed from its journal, with every position on the way."""
        self.get(game_id)
        return self._replay(self.journal.stored(game_id), board)

    def _replay(self, stored: StoredGame, board: Board) -> Replayed:
        if stored.board != board.name:
            raise StateError(
                f"{self.journal.path}: game {stored.id} is played on board "
                f"{stored.board!r}, not {board.name!r}"
            )
        try:
            return replay_positions(stored.record(), board)
        except BermudaError as exc:
            raise StateError(
                f"{self.journal.path}: game {stored.id} cannot be replayed: {exc}"
            ) from exc

    def _summary(self, row: tuple[Any, ...]) -> GameSummary:
        try:
            return GameSummary(
                game_id=int(row[0]),
                board=str(row[1]),
                started_utc=str(row[2]),
                finished_utc=str(row[3]),
                players=tuple(json.loads(row[4])),
                names=json.loads(row[5]),
                computer=json.loads(row[6]),
                winners=tuple(json.loads(row[7])),
                totals=json.loads(row[8]),
                reason=str(row[9]),
                rounds=int(row[10]),
                moves=int(row[11]),
            )
        except (json.JSONDecodeError, TypeError, ValueError) as exc:
            raise StateError(
                f"{self.journal.path}: history of game {row[0]} is damaged "
                f"({exc}); nothing was changed"
            ) from exc
