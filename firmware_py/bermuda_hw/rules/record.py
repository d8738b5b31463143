"""Saving and loading games: the journal record and replay, and the JSON state.

Two forms, both plain JSON data:

- the **record** (`record`, `replay`): the setup and the journal, what the
  controller's database keeps; `replay` plays every entry again on a new game
  (`apply_entry`), drawing the engine's dice, spins and captures from the
  same seed and checking them against the journal;
- the **state** (`to_dict`/`to_json`, `from_dict`/`from_json`): the setup,
  the one `Position` value (`position_to_dict`, `position_from_dict`), the
  random source's state and the journal, restored exactly without replaying.

Pure code like the rest of the rules: strings and dicts in and out, no files.

>>> from bermuda_hw.rules.game import Game
>>> game = Game.new(players=2, seed=1)
>>> _ = game.roll_die()
>>> from_json(to_json(game)).position == game.position
True
>>> replay(record(game)).position == game.position
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from bermuda_hw.errors import RulesError, StateError
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.cards import CARD_PRODUCTS
from bermuda_hw.rules.cloud import CloudPose, Spin, letter_index
from bermuda_hw.rules.entries import GameRecord, JournalEntry, MoveEntry, entry_from_json
from bermuda_hw.rules.events import EndReason, Outcome
from bermuda_hw.rules.game import (
    Game,
    GameOptions,
    Phase,
    Position,
    ShipStatus,
)
from bermuda_hw.rules.moves import Move

#: The JSON state's `format` and `version` fields. Version 1 is the state
#: written since the first release; every later change must still load it
#: (tests/rules/saved holds documents written then).
FORMAT = "bermuda-hw/game"
FORMAT_VERSION = 1

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Replayed",
    "apply_entry",
    "from_dict",
    "from_json",
    "position_from_dict",
    "position_to_dict",
    "record",
    "replay",
    "replay_positions",
    "to_dict",
    "to_json",
]


# ---------------------------------------------------------------- the record


def record(game: Game) -> GameRecord:
    """What reproduces a game: its board's name, its setup and its journal (see `replay`)."""
    return {"board": game.board.name, "setup": dict(game.setup), "journal": list(game.journal)}


def replay(record: Mapping[str, Any], board: Board | None = None) -> Game:
    """Rebuild a game from `record()`: same setup, every journal entry applied again.

    Dice, spins and captures that the engine drew are drawn again from the
    same seed and checked against the journal.
    """
    return _replay(record, board, None)


class Replayed(NamedTuple):
    """A recorded game replayed step by step (see `replay_positions`)."""

    game: Game  # the game after every entry
    entries: tuple[JournalEntry, ...]  # the journal's entries, in order
    positions: tuple[Position, ...]  # the setup's position, then the one after each entry

    def moves(self) -> list[tuple[MoveEntry, Position]]:
        """Each move (a "move" entry) with the position it left, in order."""
        moves: list[tuple[MoveEntry, Position]] = []
        for k, entry in enumerate(self.entries):
            if "move" in entry:
                moves.append((entry, self.positions[k + 1]))
        return moves


def replay_positions(record: Mapping[str, Any], board: Board | None = None) -> Replayed:
    """Replay a recorded game keeping every position on the way, for showing it move by move.

    `positions[0]` is the position after setup and `positions[k + 1]` the one
    after `entries[k]` (a roll, a move, a cloud phase or a hand edit); the
    last is the final position (`game.position`).

    >>> from bermuda_hw.rules.play import simulate_game
    >>> game = simulate_game(players=2, seed=3).game
    >>> replayed = replay_positions(record(game))
    >>> replayed.positions[-1] == game.position, len(replayed.positions) == len(game.journal) + 1
    (True, True)
    """
    positions: list[Position] = []
    game = _replay(record, board, positions)
    entries = tuple(entry_from_json(entry) for entry in record["journal"])
    return Replayed(game, entries, tuple(positions))


def _replay(
    record: Mapping[str, Any], board: Board | None, positions: list[Position] | None
) -> Game:
    board = _board_for(record, board)
    try:
        setup = record["setup"]
        game = Game.new(
            setup["players"],
            seed=setup["seed"],
            board=board,
            options=GameOptions(**setup["options"]),
            first_player=setup["first_player"],
        )
        if positions is not None:
            positions.append(game.position)
        for entry in record["journal"]:
            apply_entry(game, entry)
            if positions is not None:
                positions.append(game.position)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"cannot replay the journal: {exc}") from exc
    return game


def rewound(game: Game, count: int) -> Game:
    """A copy of `game` holding only its first `count` journal entries: the rest taken back
    with `Game.pop` (a game restored from a saved position is replayed from its record).

    >>> from bermuda_hw.rules.play import simulate_game
    >>> game = simulate_game(players=2, seed=3).game
    >>> cut = {**record(game), "journal": game.journal[:10]}
    >>> rewound(game, 10).position == replay(cut).position
    True
    """
    if not 0 <= count <= len(game.journal):
        raise StateError(f"cannot go back to entry {count}: the journal holds {len(game.journal)}")
    back = game.copy()
    try:
        back.pop(len(back.journal) - count)
    except RulesError:
        return replay({**record(game), "journal": game.journal[:count]}, game.board)
    return back


def played_on(game: Game, entries: Sequence[Mapping[str, object]]) -> Game:
    """A copy of `game` with `entries` played after its journal, as a replay plays them
    (a roll or a spin the seed does not give is a StateError)."""
    on = game.copy()
    try:
        for entry in entries:
            apply_entry(on, entry)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"cannot play the entries on: {exc}") from exc
    return on


def apply_entry(game: Game, read: Mapping[str, object]) -> None:
    """Play one journal entry on `game` (which appends it to its own journal again); an
    entry read back is checked for its kind's fields first (`entries.entry_from_json`)."""
    entry = entry_from_json(read)
    if "roll" in entry:
        if entry["engine"]:
            if game.roll_die() != entry["roll"]:
                raise StateError(f"journal {entry}: the seed gives another roll")
        else:
            game.set_die(entry["roll"])
    elif "move" in entry:
        # a move the table's referee took unseen keeps its note
        game.push(Move.parse(entry["move"]), provisional=entry.get("provisional") or ())
    elif "cloud" in entry:
        spin = None if entry["engine"] else Spin.parse(entry["cloud"])
        capture = None if entry["decided"] else entry["captured"]
        # captures from places the cloud covered keep their note
        game.cloud_phase(spin, capture, provisional=entry.get("provisional") or ())
        got = game.journal[-1]
        if "cloud" not in got or (got["cloud"], got["captured"]) != (
            entry["cloud"],
            entry["captured"],
        ):
            raise StateError(f"journal {entry}: the seed gives {got}")
    elif "set-ship" in entry:
        game.set_ship(
            entry["set-ship"],
            entry["location"],
            entry["previous-port"],
            status=ShipStatus(entry["status"]),
        )
    elif "set-cloud" in entry:
        col, row, letter = entry["set-cloud"]
        game.set_cloud(CloudPose(int(col), int(row), letter_index(str(letter))))
    elif "set-turn" in entry:
        game.set_turn(entry["set-turn"], Phase(entry["phase"]))
    else:
        raise StateError(f"unknown journal entry {entry!r}")


# ----------------------------------------------------------------- the state


def position_to_dict(game: Game, position: Position | None = None) -> dict[str, Any]:
    """A position of `game` (its own by default) as the JSON state's fields.

    Ships are listed by id and hands by colour, so the document reads
    without the game beside it.
    """
    pos = game.position if position is None else position
    return {
        "round": pos.round,
        "turn": pos.turn,
        "phase": pos.phase.value,
        "die": pos.die,
        "ships": [
            {
                "id": sid,
                "location": pos.locations[i],
                "previous_port": pos.previous_ports[i],
                "status": pos.statuses[i].value,
            }
            for i, sid in enumerate(game.ship_ids)
        ],
        "piles": {p: list(pile) for p, pile in zip(CARD_PRODUCTS, pos.piles, strict=True)},
        "bonus_left": pos.bonus_left,
        "hands": {c: [[p, v] for p, v in pos.hands[s]] for s, c in enumerate(game.players)},
        "cloud": {"col": pos.pose.col, "row": pos.pose.row, "letter": LETTERS[pos.pose.letter]},
        "outcome": None
        if pos.outcome is None
        else {
            "reason": pos.outcome.reason.value,
            "winners": list(pos.outcome.winners),
            "totals": dict(pos.outcome.totals),
        },
    }


def position_from_dict(data: Mapping[str, Any], game: Game) -> Position:
    """The position in a JSON state's fields, checked against `game`'s board and players.

    Raises StateError (a field that is wrong) or KeyError, TypeError,
    ValueError, IndexError (a field that is missing or of the wrong type).
    """
    board = game.board
    ships = data["ships"]
    if [s["id"] for s in ships] != list(game.ship_ids):
        raise StateError("saved game: the ships do not match the players")
    locations: list[str | None] = []
    previous: list[str] = []
    statuses: list[ShipStatus] = []
    for i, s in enumerate(ships):
        loc = s["location"]
        if loc is not None and loc not in board.spaces:
            raise StateError(f"saved game: ships[{i}].location {loc!r} is not on the board")
        if s["previous_port"] not in board.ports:
            raise StateError(f"saved game: ships[{i}].previous_port is not a port")
        status = ShipStatus(s["status"])
        if (loc is None) != (status in (ShipStatus.IN_CLOUD, ShipStatus.OUT)):
            raise StateError(
                f"saved game: ships[{i}] has location {loc!r} but status {status.value!r}"
            )
        locations.append(loc)
        previous.append(s["previous_port"])
        statuses.append(status)
    hands = tuple(tuple((str(p), int(v)) for p, v in data["hands"][c]) for c in game.players)
    cloud = data["cloud"]
    pose = CloudPose(cloud["col"], cloud["row"], letter_index(cloud["letter"]))
    if not board.grid.contains(pose.col, pose.row):
        raise StateError(f"saved game: cloud {pose} is off the dot grid")
    out = data["outcome"]
    return Position(
        locations=tuple(locations),
        previous_ports=tuple(previous),
        statuses=tuple(statuses),
        piles=tuple(tuple(int(v) for v in data["piles"][p]) for p in CARD_PRODUCTS),
        bonus_left=int(data["bonus_left"]),
        hands=hands,
        totals=tuple(sum(v for _, v in hand) for hand in hands),
        pose=pose,
        round=int(data["round"]),
        turn=int(data["turn"]),
        phase=Phase(data["phase"]),
        die=data["die"],
        outcome=None
        if out is None
        else Outcome(EndReason(out["reason"]), tuple(out["winners"]), dict(out["totals"])),
    )


def to_dict(game: Game) -> dict[str, Any]:
    """The whole state of a game as plain JSON data (see `from_dict`)."""
    version, internal, gauss = game.rng.getstate()
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "board": game.board.name,
        "setup": dict(game.setup),
        "players": list(game.players),
        "order": list(game.order),
        "setup_rolls": [dict(r) for r in game.setup_rolls],
        **position_to_dict(game),
        "rng": [version, list(internal), gauss],
        "journal": list(game.journal),
    }


def to_json(game: Game) -> str:
    """`to_dict` as compact JSON text."""
    return json.dumps(to_dict(game), separators=(",", ":"))


def from_json(text: str, board: Board | None = None) -> Game:
    """Restore a game written by `to_json` (the board must be the same one)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(f"saved game is not JSON: {exc}") from None
    return from_dict(data, board)


def from_dict(data: Any, board: Board | None = None) -> Game:
    """Restore a game from `to_dict`'s data; every field is checked, errors are StateError."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StateError(f"saved game: not a {FORMAT} document")
    if data.get("version") != FORMAT_VERSION:
        raise StateError(f"saved game: version {data.get('version')!r} is not supported")
    board = _board_for(data, board)
    try:
        return _restore(data, board)
    except StateError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise StateError(f"saved game: bad or missing field: {exc!r}") from None


def _restore(data: Mapping[str, Any], board: Board) -> Game:
    setup = data["setup"]
    order: Sequence[str] = data["order"]
    game = Game.new(
        setup["players"],
        seed=setup["seed"],
        board=board,
        options=GameOptions(**setup["options"]),
        first_player=order[0],
    )
    game.setup = dict(setup)
    if list(game.players) != data["players"]:
        raise StateError(f"saved game: players {data['players']} do not match the board")
    game.order = tuple(order)
    if sorted(game.order) != sorted(game.players):
        raise StateError(f"saved game: order {data['order']} is not the players'")
    game.setup_rolls = [dict(r) for r in data["setup_rolls"]]
    game.position = position_from_dict(data, game)
    version, internal, gauss = data["rng"]
    game.rng.setstate((version, tuple(internal), gauss))
    game.journal = [entry_from_json(entry) for entry in data["journal"]]
    return game


def _board_for(data: Mapping[str, Any], board: Board | None) -> Board:
    name = data.get("board")
    if board is None:
        if name != "classic":
            raise StateError(f"saved game is for board {name!r}: give that board to load it")
        from bermuda_hw.rules.boardfile import classic_board  # read only when left to us

        return classic_board()
    if name != board.name:
        raise StateError(f"saved game is for board {name!r}, not {board.name!r}")
    return board
