"""Ship moves: the `Move` value with its text notation, and the walks a board allows.

A move names its ship and its whole walk, start first, spaces joined by `-`:

    blue-1 HOME-S01-S02-S03     leave the Home Port, three spaces along the path
    red-2 S05-S06-LUMBER        two spaces, the second is a port: the ship docks
    green pass                  the player has no move at all (ruling 8)

The walk is written out because different walks can end on the same space
(a junction, or a loop). A walk that ends in a port is a dock, whatever the
die showed (ruling 3). A walk with fewer steps than the die that ends on a path
space is a short move (ruling 7); the die tells which, so the text does not.
Space ids that contain `-` or white space cannot be written in this notation.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bermuda_hw.errors import ParseError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, blocked_spaces

MAX_DIE = 6
_SHIP_ID = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)-([1-9][0-9]*)$")
_COLOR = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

Walk = tuple[str, ...]


def ship_id(color: str, number: int) -> str:
    """The id of a player's ship: `red-2` is red's second ship."""
    return f"{color}-{number}"


@functools.lru_cache(maxsize=256)  # the game's ships, asked for again and again
def split_ship_id(text: str) -> tuple[str, int]:
    """`red-2` -> ("red", 2); raises ParseError for anything else."""
    match = _SHIP_ID.match(text)
    if match is None:
        raise ParseError(f"{text!r} is not a ship id (expected like 'red-2')")
    return match.group(1), int(match.group(2))


@dataclass(frozen=True, slots=True)
class Move:
    """A ship's walk from its space (start first), or a pass when the walk is empty.

    >>> move = Move.parse("red-2 S03-S04-S05")
    >>> move.ship, move.start, move.end, move.steps
    ('red-2', 'S03', 'S05', 2)
    >>> str(Move.parse("blue pass"))
    'blue pass'
    """

    ship: str
    walk: Walk = ()

    @classmethod
    def pass_turn(cls, color: str) -> Move:
        return cls(color, ())

    @property
    def is_pass(self) -> bool:
        return not self.walk

    @property
    def color(self) -> str:
        """The colour of the player who makes this move."""
        return self.ship if not self.walk else self.ship.rpartition("-")[0]

    @property
    def start(self) -> str:
        if not self.walk:
            raise ValueError("a pass has no start")
        return self.walk[0]

    @property
    def end(self) -> str:
        if not self.walk:
            raise ValueError("a pass has no end")
        return self.walk[-1]

    @property
    def steps(self) -> int:
        """How many spaces the ship moves (a port counts as one)."""
        return max(len(self.walk) - 1, 0)

    @classmethod
    def parse(cls, text: str) -> Move:
        parts = text.split()
        if len(parts) != 2:
            raise ParseError(
                f"{text!r} is not a move: expected like 'red-2 S03-S04-S05' or 'red pass'"
            )
        who, what = parts
        if what == "pass":
            if not _COLOR.match(who):
                raise ParseError(f"{text!r}: a pass names a player colour, like 'red pass'")
            return cls(who, ())
        split_ship_id(who)
        walk = tuple(what.split("-"))
        if len(walk) < 2 or not all(walk):
            raise ParseError(
                f"{text!r}: a walk lists at least the start and one more space, joined by '-'"
            )
        return cls(who, walk)

    def __str__(self) -> str:
        if not self.walk:
            return f"{self.ship} pass"
        return f"{self.ship} {'-'.join(self.walk)}"


@dataclass(frozen=True, slots=True)
class _Candidate:
    walk: Walk
    inner: frozenset[str]  # the walk's spaces after its start
    port_bit: int  # the end port's bit, 0 when the walk ends on a path space
    obstacles: tuple[str, ...]  # neighbours of the end that the walk could try next


class WalkTable:
    """Every simple walk of up to 6 steps from every space, precomputed per board.

    `moves()` filters them for one ship: the cloud's blocked spaces and the
    ports its owner may not enter. Results are cached, so a game of many turns
    costs little more than dictionary look-ups.
    """

    def __init__(self, board: Board, max_die: int = MAX_DIE) -> None:
        self.board = board
        self.max_die = max_die
        self.port_ids: tuple[str, ...] = tuple(board.ports)
        self.port_bit: Mapping[str, int] = {p: 1 << i for i, p in enumerate(self.port_ids)}
        ports = set(board.ports)
        adjacency = board.adjacency
        self._full: dict[tuple[str, int], tuple[_Candidate, ...]] = {}
        self._short: dict[tuple[str, int], tuple[_Candidate, ...]] = {}
        self._cache: dict[tuple[str, int, frozenset[str], int], tuple[tuple[Walk, ...], ...]] = {}
        self._blocked: dict[CloudPose, frozenset[str]] = {}
        for start in board.spaces:
            walks: list[Walk] = []
            stack: list[Walk] = [(start,)]
            while stack:
                walk = stack.pop()
                for there in sorted(adjacency[walk[-1]]):
                    if there in walk:
                        continue
                    longer = (*walk, there)
                    walks.append(longer)
                    if there not in ports and len(longer) - 1 < max_die:
                        stack.append(longer)
            candidates = [
                _Candidate(
                    w,
                    frozenset(w[1:]),
                    self.port_bit.get(w[-1], 0),
                    tuple(sorted(n for n in adjacency[w[-1]] if n not in w)),
                )
                for w in sorted(walks)
            ]
            for die in range(1, max_die + 1):
                self._full[(start, die)] = tuple(
                    c
                    for c in candidates
                    if (c.port_bit and len(c.walk) - 1 <= die)
                    or (not c.port_bit and len(c.walk) - 1 == die)
                )
                self._short[(start, die)] = tuple(
                    c for c in candidates if not c.port_bit and len(c.walk) - 1 < die
                )

    def blocked(self, pose: CloudPose) -> frozenset[str]:
        """`blocked_spaces` for a cloud pose, computed once per pose."""
        hit = self._blocked.get(pose)
        if hit is None:
            hit = blocked_spaces(self.board, pose)
            self._blocked[pose] = hit
        return hit

    def moves(
        self, start: str, die: int, blocked: frozenset[str], forbidden: int
    ) -> tuple[tuple[Walk, ...], tuple[Walk, ...]]:
        """The full walks and the short walks from `start` for a die value.

        `blocked` are the spaces under the cloud; `forbidden` is a bit mask
        (see `port_bit`) of the ports the ship's owner may not enter.
        """
        key = (start, die, blocked, forbidden)
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0], hit[1]
        full = tuple(
            c.walk
            for c in self._full[(start, die)]
            if not (c.port_bit & forbidden) and c.inner.isdisjoint(blocked)
        )
        port_bit = self.port_bit
        short = tuple(
            c.walk
            for c in self._short[(start, die)]
            if c.inner.isdisjoint(blocked)
            and any(n in blocked or (port_bit.get(n, 0) & forbidden) for n in c.obstacles)
        )
        if len(self._cache) > 500_000:
            self._cache.clear()
        self._cache[key] = (full, short)
        return full, short


_TABLES: dict[int, WalkTable] = {}


def walk_table(board: Board) -> WalkTable:
    """The (shared, cached) walk table of a board."""
    table = _TABLES.get(id(board))
    if table is None or table.board is not board:
        table = WalkTable(board)
        if len(_TABLES) >= 64:
            _TABLES.clear()
        _TABLES[id(board)] = table
    return table
