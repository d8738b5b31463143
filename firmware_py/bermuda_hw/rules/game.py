"""The game: players, ships, cards, the cloud, turns, legal moves and the end of the game.

Pure code: no I/O, no clock. Every random choice (the roll for the first
player, the digital ledger's shuffle, engine dice, spins and capture decisions)
comes from the game's own `random.Random`, seeded at setup, so that a game is
reproduced exactly from its setup and its journal (`rules.record.replay`).
Everything that changes as the game is played is one `Position` value
(`Game.position`); saving and loading it is `rules.record`'s work.

>>> game = Game.new(players=2, seed=1)
>>> game.order, game.phase.value
(('yellow', 'blue'), 'ships')
>>> die = game.roll_die()
>>> move = game.legal_moves()[0]
>>> events = game.push(move)
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Concatenate, NamedTuple, ParamSpec, TypeVar

from bermuda_hw.errors import IllegalMoveError, RulesError
from bermuda_hw.rules.board import LETTERS, Board, Point
from bermuda_hw.rules.cards import (
    BONUS_CARD_USD,
    BONUS_CARDS,
    CARD_PRODUCTS,
    PRODUCT_CARDS_USD,
    TARGET_USD,
)
from bermuda_hw.rules.cloud import (
    CloudPose,
    Spin,
    Spinner,
    SpinPath,
    plan_spin,
    start_pose,
    swept_ships,
)
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.entries import CloudEntry, JournalEntry
from bermuda_hw.rules.events import (
    BonusTaken,
    Bumped,
    Captured,
    CardTaken,
    CloudMoved,
    CloudRemoved,
    Docked,
    EndReason,
    Event,
    GameOver,
    Moved,
    Outcome,
    Passed,
    PileEmpty,
    Spun,
    Swept,
)
from bermuda_hw.rules.moves import MAX_DIE, Move, WalkTable, ship_id, split_ship_id, walk_table

SHIPS_PER_PLAYER = 4
MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_SHIPS_PER_PORT = 2
DIE_MODES = ("table", "virtual")
#: How well a computer seat plays (`rules.computer`).
COMPUTER_LEVELS = ("easy", "best")

_T = TypeVar("_T")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _journalled(method: Callable[Concatenate[Game, _P], _R]) -> Callable[Concatenate[Game, _P], _R]:
    """A method of `Game` that adds one entry to the journal: the game as it was before is
    kept beside the entry, so that `Game.pop` can take the entry back."""

    @functools.wraps(method)
    def journalled(game: Game, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        count, position, dice = len(game.journal), game._position, game.rng.getstate()
        result = method(game, *args, **kwargs)
        if len(game.journal) == count + 1 and len(game._before) == count:
            game._before.append((position, dice))
        return result

    return journalled


#: What a caller may pass to decide captures: the captured ship ids, or a
#: function from the swept ship ids to the captured ones.
CaptureDecision = Iterable[str] | Callable[[frozenset[str]], Iterable[str]]


class ShipStatus(StrEnum):
    """Where a ship is, as far as the rules care."""

    ON_BOARD = "board"  # on a path space or in a port, free to move
    UNDER_CLOUD = "under-cloud"  # its space is blocked by the cloud: it cannot move
    IN_CLOUD = "in-cloud"  # captured: travels inside the cloud
    OUT = "out"  # removed with the cloud: out of the game for good


class Phase(StrEnum):
    SHIPS = "ships"  # players move ships in turn order
    CLOUD = "cloud"  # the round is over: the cloud is spun and moved
    OVER = "over"  # the game has ended


@dataclass(frozen=True)
class GameOptions:
    """House rules and other choices made at setup."""

    #: The engine shuffles and deals the product cards and keeps the totals
    #: (ruling 10). Off: the piles lie in the printed order (`PRODUCT_CARDS_USD`).
    digital_ledger: bool = False
    #: The chance that a swept ship is captured when nobody else decides (ruling 14).
    capture_probability: float = 1.0
    #: The card total that wins the game (ruling 16).
    target_usd: int = TARGET_USD
    #: Who rolls the die: "table" (a physical die; the referee may ask what it showed)
    #: or "virtual" (a press of the spin button rolls for the active player).
    die: str = "table"
    #: The seats the table plays itself: (colour, level) pairs, a level being one of
    #: `COMPUTER_LEVELS`. Given as pairs or as a mapping of colour to level.
    computer: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        seats = self.computer
        pairs = seats.items() if isinstance(seats, Mapping) else seats
        try:
            normal = tuple(sorted((str(c), str(level)) for c, level in pairs))
        except (TypeError, ValueError):
            raise RulesError(f"computer must map colours to levels, not {seats!r}") from None
        for color, level in normal:
            if level not in COMPUTER_LEVELS:
                raise RulesError(
                    f"computer: {color} plays {' or '.join(COMPUTER_LEVELS)}, not {level!r}"
                )
        if len({c for c, _ in normal}) != len(normal):
            raise RulesError(f"computer: a colour is named twice in {seats!r}")
        object.__setattr__(self, "computer", normal)
        if not isinstance(self.digital_ledger, bool):
            raise RulesError(f"digital_ledger must be true or false, not {self.digital_ledger!r}")
        chance = self.capture_probability
        if isinstance(chance, bool) or not isinstance(chance, int | float) or chance != chance:
            raise RulesError(f"capture_probability must be a number from 0 to 1, not {chance!r}")
        target = self.target_usd
        # (a number, not only a whole one: a game journalled with another still resumes)
        if isinstance(target, bool) or not isinstance(target, int | float) or target != target:
            raise RulesError(f"target_usd must be a number of dollars, not {target!r}")
        if not 0.0 <= self.capture_probability <= 1.0:
            raise RulesError(
                f"capture_probability must be between 0 and 1, not {self.capture_probability}"
            )
        if self.target_usd <= 0:
            raise RulesError(f"target_usd must be positive, not {self.target_usd}")
        if self.die not in DIE_MODES:
            raise RulesError(f"die must be one of {', '.join(DIE_MODES)}, not {self.die!r}")


def _options_json(options: GameOptions) -> dict[str, Any]:
    """The options as the setup records them: plain JSON data (computer seats as a mapping
    of colour to level, left out when there are none)."""
    data = asdict(options)
    if options.computer:
        data["computer"] = dict(options.computer)
    else:
        del data["computer"]
    return data


@dataclass(frozen=True)
class ShipState:
    """One ship as the rules see it."""

    id: str
    color: str
    number: int
    location: str | None  # a space or port id; None in the cloud or out of the game
    previous_port: str  # the port it last left, or lies in
    status: ShipStatus


class Position(NamedTuple):
    """Everything about a game that changes as it is played, as one immutable value.

    Per ship (in `Game.ship_ids` order): where it is, the port it last left
    and its status; the product piles (in `CARD_PRODUCTS` order, top card
    first) and the Home Port's bonus cards left; each seat's hand and total
    (in `Game.players` order); the cloud's pose; the round, whose turn it is
    (an index into `Game.order`), the phase, the rolled die and the outcome.

    An immutable value rather than a mutable state object: `Game.copy()`
    shares it, equality and hashing come for free, a saved game holds exactly
    one, and a rule that raises half-way leaves the game as it was (every
    change builds a new value, `_replace`, and puts it in place at the end).
    A named tuple rather than a frozen dataclass because a new one is built
    two or three times a turn: `dataclasses.replace` on a frozen dataclass
    takes about four times as long as `_replace`, which made random games
    (`make bench`) about a third slower. Being a tuple, it also unpacks and
    compares equal to a plain tuple of the same fields; use the names. The
    totals are kept beside the hands they sum so that checking the target
    costs nothing.

    Not in it, as python-chess keeps its move stack beside its board state:
    the journal (`Game.journal`, how the game got here) and the random source
    (`Game.rng`, the dice still to come). Two games whose tables, cards, turn
    and die are the same are in the same position whatever they will roll
    next; the random source lives with the history that drew from it, and is
    saved with it (`rules.record`).
    """

    locations: tuple[str | None, ...]  # a space or port id; None in the cloud or out
    previous_ports: tuple[str, ...]
    statuses: tuple[ShipStatus, ...]
    piles: tuple[tuple[int, ...], ...]
    bonus_left: int
    hands: tuple[tuple[tuple[str, int], ...], ...]
    totals: tuple[int, ...]
    pose: CloudPose
    round: int = 1
    turn: int = 0
    phase: Phase = Phase.SHIPS
    die: int | None = None
    outcome: Outcome | None = None

    def pile(self, product: str) -> tuple[int, ...]:
        """The cards left at a product port, top card first."""
        try:
            return self.piles[CARD_PRODUCTS.index(product)]
        except ValueError:
            raise RulesError(f"there is no pile of {product!r} cards") from None

    def with_die(self, die: int | None) -> Position:
        """The same position with another die: `_replace(die=die)`, built three times as fast.

        The die changes at every roll, the hottest change of a game.
        """
        return tuple.__new__(Position, (*self[:_DIE], die, *self[_DIE + 1 :]))

    def with_statuses(self, blocked: frozenset[str]) -> Position:
        """The same position with each ship on the board marked under the cloud or free."""
        statuses = tuple(
            status
            if loc is None
            else ShipStatus.UNDER_CLOUD
            if loc in blocked
            else ShipStatus.ON_BOARD
            for loc, status in zip(self.locations, self.statuses, strict=True)
        )
        return self if statuses == self.statuses else self._replace(statuses=statuses)


_DIE = Position._fields.index("die")


def roll_for_first(colors: Sequence[str], rng: random.Random) -> tuple[str, list[dict[str, int]]]:
    """Ruling 19: everyone rolls, the highest roll starts; tied players roll again.

    Returns the first player and every round of rolls.
    """
    rolling = list(colors)
    rounds: list[dict[str, int]] = []
    while True:
        rolls = {c: rng.randint(1, MAX_DIE) for c in rolling}
        rounds.append(rolls)
        best = max(rolls.values())
        rolling = [c for c in rolling if rolls[c] == best]
        if len(rolling) == 1:
            return rolling[0], rounds


class Game:
    """One game of Bermuda Triangle, from setup to outcome.

    Make and query moves with `roll_die`/`set_die`, `legal_moves`, `push`;
    after each round, `cloud_phase`. The fixed parts (board, options,
    players, seat order, seed, setup) are attributes; everything that
    changes is the one `position` value, with the journal (the move stack)
    and the random source beside it. `copy()` is cheap: the position is
    shared, being immutable.
    """

    board: Board
    options: GameOptions
    players: tuple[str, ...]
    order: tuple[str, ...]
    seed: int
    rng: random.Random
    journal: list[JournalEntry]  # `rules.entries`: one typed dict per kind
    setup: dict[str, Any]
    setup_rolls: list[dict[str, int]]

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(
        cls,
        players: int = 4,
        *,
        seed: int = 0,
        board: Board | None = None,
        options: GameOptions | None = None,
        first_player: str | None = None,
    ) -> Game:
        """Set up a game by the rules.

        Each player's ships 1-4 start in the sugar, oil, bananas and lumber
        ports (one each; the Home Port starts empty), each ship's previous port
        being the port it starts in. The cloud starts on the centre dot at
        letter A. Unless `first_player` is given, a high roll picks who starts
        (ruling 19); play goes clockwise in the board's colour order.
        """
        board = board if board is not None else _classic_board()
        options = options or GameOptions()
        if not MIN_PLAYERS <= players <= min(MAX_PLAYERS, len(board.ship_colors)):
            raise RulesError(
                f"{players} players: the game is for 2 to "
                f"{min(MAX_PLAYERS, len(board.ship_colors))}"
            )
        game = cls.__new__(cls)
        game.board = board
        game.options = options
        game.seed = seed
        game.rng = random.Random(seed)
        game.players = tuple(board.ship_colors[:players])
        game._table = walk_table(board)
        game._ids = tuple(
            ship_id(c, n) for c in game.players for n in range(1, SHIPS_PER_PLAYER + 1)
        )
        game._index = {sid: i for i, sid in enumerate(game._ids)}
        game._spinner = Spinner(board.spinner)
        game._legal = None
        starts = [board.port_for(p).id for p in CARD_PRODUCTS]
        locations = tuple(starts[i % SHIPS_PER_PLAYER] for i in range(len(game._ids)))
        for color, _ in options.computer:
            if color not in game.players:
                raise RulesError(
                    f"computer: {color!r} does not play (players: {', '.join(game.players)})"
                )
        if first_player is None:
            first, game.setup_rolls = roll_for_first(game.players, game.rng)
        else:
            if first_player not in game.players:
                raise RulesError(f"{first_player!r} is not one of {', '.join(game.players)}")
            first, game.setup_rolls = first_player, []
        seat = game.players.index(first)
        game.order = game.players[seat:] + game.players[:seat]
        piles: list[tuple[int, ...]] = []
        for product in CARD_PRODUCTS:
            pile = list(PRODUCT_CARDS_USD[product])
            if options.digital_ledger:
                game.rng.shuffle(pile)
            piles.append(tuple(pile))
        pose = start_pose(board.grid)
        game._position = Position(
            locations=locations,
            previous_ports=tuple(str(loc) for loc in locations),
            statuses=(ShipStatus.ON_BOARD,) * len(game._ids),
            piles=tuple(piles),
            bonus_left=BONUS_CARDS,
            hands=((),) * players,
            totals=(0,) * players,
            pose=pose,
        ).with_statuses(game._table.blocked(pose))
        game.journal = []
        game._before = []
        game.setup = {
            "players": players,
            "seed": seed,
            "options": _options_json(options),
            "first_player": first_player,
        }
        return game

    def copy(self) -> Game:
        """An independent copy: the same position, journal and dice to come.

        The position is shared (it is immutable), and so are the board, the
        walk table and the other fixed parts.
        """
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.journal = list(self.journal)
        other._before = list(self._before)
        other.setup = dict(self.setup)
        other.setup_rolls = list(self.setup_rolls)
        return other

    def pop(self, count: int = 1) -> list[JournalEntry]:
        """Take back the last `count` journal entries: the game is as it was before them,
        its position and its dice to come (the random source) alike. The entries taken
        back, oldest first.

        A game restored from a saved position (`record.from_dict`) holds only the
        entries played since: the rest is taken back by replaying its record.

        >>> game = Game.new(2, seed=5)
        >>> before = game.copy()
        >>> die = game.roll_die()
        >>> move = game.push(game.legal_moves()[0])
        >>> [sorted(e) for e in game.pop(2)]
        [['engine', 'roll'], ['move']]
        >>> game.position == before.position and game.roll_die() == die
        True
        """
        if not 0 <= count <= len(self.journal):
            raise RulesError(
                f"cannot take back {count} entries: the journal holds {len(self.journal)}"
            )
        if len(self._before) != len(self.journal):
            raise RulesError(
                "this game was restored from a saved position: replay its record to take "
                "entries back"
            )
        if count == 0:
            return []
        position, dice = self._before[-count]
        taken = self.journal[-count:]
        del self.journal[-count:]
        del self._before[-count:]
        self._position = position
        self.rng.setstate(dice)
        return taken

    # --------------------------------------------------------------- position

    @property
    def position(self) -> Position:
        """Everything about the game that changes as it is played (see `Position`)."""
        return self._position

    @position.setter
    def position(self, position: Position) -> None:
        """Put the game in a position (one of this game's: same ships and players)."""
        ships = len(self._ids)
        if not (
            len(position.locations)
            == len(position.previous_ports)
            == len(position.statuses)
            == ships
        ):
            raise RulesError(f"a position of {ships} ships is needed for this game")
        if not len(position.hands) == len(position.totals) == len(self.players):
            raise RulesError(f"a position of {len(self.players)} players is needed for this game")
        if len(position.piles) != len(CARD_PRODUCTS):
            raise RulesError(f"a position of {len(CARD_PRODUCTS)} product piles is needed")
        if not 0 <= position.turn <= len(self.order):
            raise RulesError(f"turn {position.turn} is not a seat of this game")
        self._position = position

    @property
    def pose(self) -> CloudPose:
        """Where the cloud is and which letter it shows."""
        return self._position.pose

    @property
    def round(self) -> int:
        return self._position.round

    @property
    def turn(self) -> int:
        """How many players have moved this round (an index into `order`)."""
        return self._position.turn

    @property
    def phase(self) -> Phase:
        return self._position.phase

    @property
    def die(self) -> int | None:
        """The die rolled for the active player, or None before the roll."""
        return self._position.die

    # ---------------------------------------------------------------- queries

    @property
    def active(self) -> str:
        """The colour of the player whose turn it is (in the cloud phase: who moves next)."""
        return self.order[self._position.turn % len(self.order)]

    @property
    def blocked(self) -> frozenset[str]:
        """The spaces and ports under the cloud (ruling 6)."""
        return self._table.blocked(self._position.pose)

    @property
    def ship_ids(self) -> tuple[str, ...]:
        return self._ids

    def ship(self, ship: str) -> ShipState:
        i = self._ship_index(ship)
        color, number = split_ship_id(ship)
        pos = self._position
        return ShipState(
            ship, color, number, pos.locations[i], pos.previous_ports[i], pos.statuses[i]
        )

    def ships(self, color: str | None = None) -> list[ShipState]:
        return [self.ship(s) for s in self._ids if color is None or s.startswith(color + "-")]

    def ships_at(self, space: str) -> list[str]:
        """The ships on a space or in a port, in seat order."""
        return [
            s for s, loc in zip(self._ids, self._position.locations, strict=True) if loc == space
        ]

    def totals(self) -> dict[str, int]:
        """Every player's card total in dollars."""
        return dict(zip(self.players, self._position.totals, strict=True))

    def hand(self, color: str) -> tuple[tuple[str, int], ...]:
        """A player's cards: (product or "home", value in dollars), in the order taken."""
        return self._position.hands[self._seat(color)]

    def pile(self, product: str) -> tuple[int, ...]:
        """The cards left at a product port, top card first."""
        return self._position.pile(product)

    @property
    def bonus_left(self) -> int:
        return self._position.bonus_left

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        return self._position.outcome

    def is_over(self) -> bool:
        return self._position.outcome is not None

    def has_moves(self) -> bool:
        """Whether any move (a pass too) is in the journal: the board is no longer the
        start layout."""
        return any("move" in entry for entry in self.journal)

    def port_capacity(self) -> int:
        """Ruling 4: a port is full when it holds as many ships as there are players."""
        return len(self.players)

    def ship_positions(self) -> dict[str, Point]:
        """One board position per ship on the board (where to draw or set it up).

        A ship on a path space is at the space; ships in a port take its
        berths in seat order (blue-1, blue-2, ..., red-4), wrapping around if
        a bump-back has put more ships there than it has berths. The cloud's
        sweep does not assume this order: see `sweep_points`.
        """
        out: dict[str, Point] = {}
        in_port: dict[str, int] = {}
        board = self.board
        for sid, loc in zip(self._ids, self._position.locations, strict=True):
            if loc is None:
                continue
            port = board.ports.get(loc)
            if port is None:
                out[sid] = board.spaces[loc].position
            else:
                k = in_port.get(loc, 0)
                in_port[loc] = k + 1
                out[sid] = port.berths[k % len(port.berths)]
        return out

    # ------------------------------------------------------------------- dice

    @_journalled
    def roll_die(self) -> int:
        """Roll the die with the game's random source for the active player."""
        self._need_phase(Phase.SHIPS)
        die = self.rng.randint(1, MAX_DIE)
        self._position = self._position.with_die(die)
        self.journal.append({"roll": die, "engine": True})
        return die

    @_journalled
    def set_die(self, die: int) -> None:
        """Record a die rolled at the table for the active player."""
        self._need_phase(Phase.SHIPS)
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= MAX_DIE:
            raise RulesError(f"a die shows 1 to {MAX_DIE}, not {die!r}")
        self._position = self._position.with_die(die)
        self.journal.append({"roll": die, "engine": False})

    # ------------------------------------------------------------------ moves

    def legal_moves(self, die: int | None = None) -> list[Move]:
        """The active player's legal moves for a die value (default: the rolled die).

        Full moves if any ship has one; else short moves (ruling 7); else a
        pass (ruling 8). Empty outside the ship phase.
        """
        position = self._position
        if position.phase is not Phase.SHIPS:
            return []
        die = self._die(die)
        cached = self._legal
        if cached is not None and cached[0] is position and cached[1] == die:
            return list(cached[2])
        color = self.active
        full, short = self._walks(color, die)
        if full:
            moves = [Move(s, w) for s, w in full]
        elif short:
            moves = [Move(s, w) for s, w in short]
        else:
            moves = [Move.pass_turn(color)]
        self._legal = (position, die, tuple(moves))
        return moves

    def _walks(
        self, color: str, die: int
    ) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, tuple[str, ...]]]]:
        seat = self._seat(color)
        first = seat * SHIPS_PER_PLAYER
        forbidden = self._forbidden_mask(color)
        position = self._position
        table = self._table
        blocked = table.blocked(position.pose)
        statuses = position.statuses
        locations = position.locations
        full: list[tuple[str, tuple[str, ...]]] = []
        short: list[tuple[str, tuple[str, ...]]] = []
        for i in range(first, first + SHIPS_PER_PLAYER):
            if statuses[i] is not ShipStatus.ON_BOARD:
                continue
            loc = locations[i]
            assert loc is not None
            f, s = table.moves(loc, die, blocked, forbidden)
            sid = self._ids[i]
            full.extend((sid, w) for w in f)
            short.extend((sid, w) for w in s)
        return full, short

    def closed_ports(self, color: str) -> int:
        """Ruling 4: the ports `color`'s ships may not enter now, as the walk table's bit mask.

        `rules.moves.WalkTable.port_bit` gives each port's bit; the mask is what
        `WalkTable.moves` takes as `forbidden`.
        """
        self._seat(color)
        return self._forbidden_mask(color)

    def _forbidden_mask(self, color: str) -> int:
        """Ruling 4: the ports that this player's ships may not enter."""
        ports = self.board.ports
        counts: dict[str, int] = {}
        own: dict[str, int] = {}
        prefix = color + "-"
        for sid, loc in zip(self._ids, self._position.locations, strict=True):
            if loc is not None and loc in ports:
                counts[loc] = counts.get(loc, 0) + 1
                if sid.startswith(prefix):
                    own[loc] = own.get(loc, 0) + 1
        capacity = len(self.players)
        mask = 0
        bits = self._table.port_bit
        for port, n in counts.items():
            if n >= capacity or own.get(port, 0) >= MAX_SHIPS_PER_PORT:
                mask |= bits[port]
        return mask

    @_journalled
    def push(self, move: Move | str, *, provisional: Sequence[str] = ()) -> list[Event]:
        """Make the active player's move with the rolled die; return what it caused.

        `provisional`: the places the move arrives at that the table's referee could not
        see when it took the move (kept with the move's journal entry, to be checked).
        """
        if isinstance(move, str):
            move = Move.parse(move)
        self._need_phase(Phase.SHIPS)
        position = self._position
        die = position.die
        if die is None:
            raise RulesError(f"{self.active} has not rolled the die yet")
        legal = self.legal_moves(die)
        if move not in legal:
            raise IllegalMoveError(f"{move}: {self._why_illegal(move, die, legal)}")
        events: list[Event] = []
        color = self.active
        locations, previous, statuses = (
            position.locations,
            position.previous_ports,
            position.statuses,
        )
        if move.is_pass:
            events.append(Passed(color, die))
        else:
            i = self._index[move.ship]
            end = move.end
            ports = self.board.ports
            short = end not in ports and move.steps < die
            events.append(Moved(move, die, short))
            landed_on = [] if short or end in ports else self.ships_at(end)
            where = list(locations)
            where[i] = end
            if end in ports:
                previous = _put(previous, i, end)
                events.append(Docked(move.ship, end))
                card, position = self._take_card(position, color, move.ship, end)
                events.append(card)
            if landed_on:
                blocked = self.blocked
                status = list(statuses)
                for other in landed_on:
                    j = self._index[other]
                    back = previous[j]
                    where[j] = back
                    status[j] = ShipStatus.UNDER_CLOUD if back in blocked else ShipStatus.ON_BOARD
                    events.append(Bumped(other, end, back))
                statuses = tuple(status)
            locations = tuple(where)
        self.journal.append(
            {"move": str(move)}
            if not provisional
            else {"move": str(move), "provisional": list(provisional)}
        )
        outcome = _check_cards(position, self.players, self.options.target_usd)
        turn = position.turn
        if outcome is not None:
            phase = Phase.OVER
            events.append(GameOver(outcome))
        else:
            turn += 1
            phase = Phase.CLOUD if turn == len(self.order) else Phase.SHIPS
        self._position = position._replace(
            locations=locations,
            previous_ports=previous,
            statuses=statuses,
            die=None,
            turn=turn,
            phase=phase,
            outcome=outcome,
        )
        return events

    def _take_card(
        self, position: Position, color: str, ship: str, port_id: str
    ) -> tuple[Event, Position]:
        """The card a ship takes on docking (or an empty pile), and the position after."""
        seat = self._seat(color)
        product = self.board.ports[port_id].product
        bonus_left, piles = position.bonus_left, position.piles
        if product == "home":
            if bonus_left == 0:
                return PileEmpty(ship, port_id), position
            bonus_left -= 1
            value = BONUS_CARD_USD
            event: Event = BonusTaken(color, ship, value)
        else:
            k = CARD_PRODUCTS.index(product)
            pile = piles[k]
            if not pile:
                return PileEmpty(ship, port_id), position
            value = pile[0]
            piles = (*piles[:k], pile[1:], *piles[k + 1 :])
            event = CardTaken(color, ship, product, value)
        hands, totals = position.hands, position.totals
        return event, position._replace(
            piles=piles,
            bonus_left=bonus_left,
            hands=(*hands[:seat], (*hands[seat], (product, value)), *hands[seat + 1 :]),
            totals=(*totals[:seat], totals[seat] + value, *totals[seat + 1 :]),
        )

    def why_illegal(self, move: Move, die: int | None = None) -> str | None:
        """Why a move is not legal for the active player, in a sentence; None if it is legal."""
        self._need_phase(Phase.SHIPS)
        die = self._die(die)
        legal = self.legal_moves(die)
        return None if move in legal else self._why_illegal(move, die, legal)

    def _why_illegal(self, move: Move, die: int, legal: list[Move]) -> str:
        color = self.active
        if move.is_pass:
            if move.color != color:
                return f"it is {color}'s turn, not {move.color}'s"
            return f"{color} has a legal move and may not pass (ruling 8)"
        if move.ship not in self._index:
            return f"there is no ship {move.ship} in this game"
        if move.color != color:
            return f"{move.ship} is not {color}'s ship; it is {color}'s turn"
        i = self._index[move.ship]
        status = self._position.statuses[i]
        here = self._position.locations[i]
        if status is ShipStatus.IN_CLOUD:
            return f"{move.ship} is inside the cloud"
        if status is ShipStatus.OUT:
            return f"{move.ship} is out of the game"
        if status is ShipStatus.UNDER_CLOUD:
            return f"{move.ship} is under the cloud at {here} and cannot move (ruling 6)"
        if move.start != here:
            return f"{move.ship} is at {here}, not {move.start}"
        walk = move.walk
        adjacency = self.board.adjacency
        blocked = self.blocked
        for k, (a, b) in enumerate(itertools.pairwise(walk)):
            if b not in self.board.spaces:
                return f"there is no space {b} on the board"
            if b not in adjacency[a]:
                return f"{a} and {b} are not next to each other on a path"
            if b in walk[: k + 1]:
                return f"the walk visits {b} twice; a ship never goes back in one move (ruling 1)"
            if b in blocked:
                return f"{b} is under the cloud; no walk enters or crosses it (ruling 6)"
            if b in self.board.ports and k + 2 < len(walk):
                return f"a walk that enters port {b} ends there (ruling 3)"
        end = move.end
        if end in self.board.ports:
            if self._forbidden_mask(color) & self._table.port_bit[end]:
                n = len(self.ships_at(end))
                own = sum(1 for s in self.ships_at(end) if s.startswith(color + "-"))
                if own >= MAX_SHIPS_PER_PORT:
                    return f"{color} already has {own} ships in {end} (ruling 4)"
                return f"{end} is full: {n} ships for {len(self.players)} players (ruling 4)"
            if move.steps > die:
                return f"the walk has {move.steps} steps but the die shows {die}"
        if move.steps > die:
            return f"the walk has {move.steps} steps but the die shows {die}"
        if move.steps < die and end not in self.board.ports:
            if any(not m.is_pass and not self._is_short(m, die) for m in legal):
                return (
                    f"the walk has {move.steps} steps, the die shows {die}; a short move is "
                    "allowed only when no ship has a full move (ruling 7)"
                )
            return (
                "a short move must stop on the last free space before a blocked space "
                "or a port the ship may not enter (ruling 7)"
            )
        return "not a legal move"

    def _is_short(self, move: Move, die: int) -> bool:
        return move.end not in self.board.ports and move.steps < die

    # ------------------------------------------------------------------ cloud

    @_journalled
    def cloud_phase(
        self,
        spin: Spin | str | None = None,
        capture: CaptureDecision | None = None,
        *,
        provisional: Sequence[str] = (),
    ) -> list[Event]:
        """Spin (or take the given spin), move the cloud, capture, remove; start the next round.

        `capture` decides which swept ships are captured: the captured ids, or
        a function from the swept ids to the captured ids. By default each
        swept ship is captured with the `capture_probability` house rule,
        drawn from the game's random source. `provisional`: the places the cloud
        covered when the table's referee decided the captures (kept with the
        phase's journal entry, to be checked once the cloud has left them).
        """
        self._need_phase(Phase.CLOUD)
        engine_spin = spin is None
        if spin is None:
            spin = self._spinner.spin(self.rng)
        elif isinstance(spin, str):
            spin = Spin.parse(spin)
        position = self._position
        path = plan_spin(self.board.grid, position.pose, spin, self.board.cloud)
        swept = frozenset(
            point.partition("#")[0]
            for point in swept_ships(self.board, path, self._within_reach(path), STAND_TOLERANCE_MM)
        )
        ordered = tuple(s for s in self._ids if s in swept)
        if capture is None:
            p = self.options.capture_probability
            captured = tuple(s for s in ordered if p >= 1.0 or self.rng.random() < p)
        else:
            chosen = frozenset(capture(swept) if callable(capture) else capture)
            strays = sorted(chosen - swept)
            if strays:
                raise RulesError(
                    f"only swept ships can be captured; not swept: {', '.join(strays)}"
                )
            captured = tuple(s for s in ordered if s in chosen)
        events: list[Event] = [Spun(spin), CloudMoved(path.start, path.end, path.turn_deg)]
        if ordered:
            events.append(Swept(ordered))
        if captured:
            events.append(Captured(captured))
        locations = list(position.locations)
        statuses = list(position.statuses)
        for sid in captured:
            i = self._index[sid]
            locations[i] = None
            statuses[i] = ShipStatus.IN_CLOUD
        pose = path.end
        if path.leaves_board:
            lost = tuple(s for i, s in enumerate(self._ids) if statuses[i] is ShipStatus.IN_CLOUD)
            for sid in lost:
                statuses[self._index[sid]] = ShipStatus.OUT
            pose = start_pose(self.board.grid)
            events.append(CloudRemoved(lost, pose))
        position = position._replace(
            locations=tuple(locations),
            statuses=tuple(statuses),
            pose=pose,
            round=position.round + 1,
            turn=0,
            die=None,
            phase=Phase.SHIPS,
        ).with_statuses(self._table.blocked(pose))
        entry: CloudEntry = {
            "cloud": str(spin),
            "engine": engine_spin,
            "captured": list(captured),
            "decided": capture is None,
        }
        if provisional:
            entry["provisional"] = list(provisional)
        self.journal.append(entry)
        outcome = _check_fleets(position, self.players)
        if outcome is not None:
            position = _finish(position, outcome, events)
        self._position = position
        return events

    def sweep_points(self) -> dict[str, Point]:
        """Where the cloud's magnets may meet each ship on the board (ruling 14).

        A ship on a path space stands at the space (key: its id). A ship in a
        port may stand on any of the port's berths, whichever the player put it
        on: every berth is a point where the magnets may take it (keys
        `id#k`, k the berth's index). The sweep takes a ship if a magnet
        passes within the capture radius of any of its points, give or take
        `rules.cover.STAND_TOLERANCE_MM` (a token stands off-centre); which
        ships the magnets truly took is the capture decision (on the table,
        what the camera saw).
        """
        out: dict[str, Point] = {}
        board = self.board
        for sid, loc in zip(self._ids, self._position.locations, strict=True):
            if loc is None:
                continue
            port = board.ports.get(loc)
            if port is None:
                out[sid] = board.spaces[loc].position
            else:
                for k, berth in enumerate(port.berths):
                    out[f"{sid}#{k}"] = berth
        return out

    def _within_reach(self, path: SpinPath) -> dict[str, Point]:
        """The sweep points (`sweep_points`) that the cloud's magnets could come near.

        A magnet stays within its radius of the locater, and the locater moves
        along a straight segment, so a point farther than the largest magnet
        radius plus the capture radius from that segment cannot be swept.
        Leaving the others out only saves time.
        """
        grid = self.board.grid
        cloud = self.board.cloud
        reach_mm = max((m.radius_mm for m in cloud.magnets), default=0.0)
        reach_mm += cloud.capture_radius_mm + STAND_TOLERANCE_MM + 1.0
        ax, ay = grid.dot_mm(path.start.col, path.start.row)
        bx, by = grid.dot_mm(path.end.col, path.end.row)
        vx, vy = bx - ax, by - ay
        length2 = vx * vx + vy * vy
        near: dict[str, Point] = {}
        for key, (x, y) in self.sweep_points().items():
            t = 0.0 if length2 == 0.0 else ((x - ax) * vx + (y - ay) * vy) / length2
            t = min(max(t, 0.0), 1.0)
            dx, dy = x - (ax + t * vx), y - (ay + t * vy)
            if dx * dx + dy * dy <= reach_mm * reach_mm:
                near[key] = (x, y)
        return near

    # ----------------------------------------------------------- position edits

    @_journalled
    def set_ship(
        self,
        ship: str,
        location: str | None,
        previous_port: str | None = None,
        *,
        status: ShipStatus | None = None,
    ) -> None:
        """Put a ship somewhere (to set up a position, or to follow the table).

        `location` None takes it off the board: into the cloud if `status` is
        IN_CLOUD, else out of the game. A ship put in a port has that port as
        its previous port; on a path space, `previous_port` defaults to the
        one it had.
        """
        i = self._ship_index(ship)
        position = self._position
        if location is not None:
            if location not in self.board.spaces:
                raise RulesError(f"there is no space {location!r} on board {self.board.name!r}")
            if location in self.board.ports:
                previous_port = location
            new_status = ShipStatus.ON_BOARD
        else:
            if status not in (None, ShipStatus.IN_CLOUD, ShipStatus.OUT):
                raise RulesError(f"a ship off the board is in the cloud or out, not {status}")
            new_status = status or ShipStatus.OUT
        if previous_port is not None:
            if previous_port not in self.board.ports:
                raise RulesError(f"{previous_port!r} is not a port of board {self.board.name!r}")
        else:
            previous_port = position.previous_ports[i]
        position = position._replace(
            locations=_put(position.locations, i, location),
            previous_ports=_put(position.previous_ports, i, previous_port),
            statuses=_put(position.statuses, i, new_status),
        ).with_statuses(self.blocked)
        self._position = position
        self.journal.append(
            {
                "set-ship": ship,
                "location": location,
                "previous-port": previous_port,
                "status": position.statuses[i].value,
            }
        )

    @_journalled
    def set_cloud(self, pose: CloudPose) -> None:
        """Put the cloud at a pose (to set up a position, or to follow the table)."""
        if not self.board.grid.contains(pose.col, pose.row):
            raise RulesError(f"the cloud pose {pose} is off the dot grid")
        self._position = self._position._replace(pose=pose).with_statuses(self._table.blocked(pose))
        self.journal.append({"set-cloud": [pose.col, pose.row, LETTERS[pose.letter]]})

    @_journalled
    def set_turn(self, color: str, phase: Phase = Phase.SHIPS) -> None:
        """Make it `color`'s turn (to set up a position)."""
        if self._position.outcome is not None:
            raise RulesError("the game is over")
        if color not in self.order:
            raise RulesError(f"{color!r} is not a player in this game")
        self._position = self._position._replace(
            turn=self.order.index(color), phase=phase, die=None
        )
        self.journal.append({"set-turn": color, "phase": phase.value})

    # ---------------------------------------------------------------- helpers

    def _need_phase(self, phase: Phase) -> None:
        now = self._position.phase
        if now is phase:
            return
        if now is Phase.OVER:
            raise RulesError("the game is over")
        if now is Phase.CLOUD:
            raise RulesError("every player has moved: the cloud moves next")
        raise RulesError(f"it is {self.active}'s turn to move a ship, not the cloud's")

    def _die(self, die: int | None) -> int:
        if die is None:
            if self._position.die is None:
                raise RulesError(f"{self.active} has not rolled the die yet")
            return self._position.die
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= MAX_DIE:
            raise RulesError(f"a die shows 1 to {MAX_DIE}, not {die!r}")
        return die

    def _seat(self, color: str) -> int:
        try:
            return self.players.index(color)
        except ValueError:
            raise RulesError(f"{color!r} is not a player in this game") from None

    def _ship_index(self, ship: str) -> int:
        try:
            return self._index[ship]
        except KeyError:
            raise RulesError(f"there is no ship {ship!r} in this game") from None

    def __repr__(self) -> str:
        return (
            f"<Game {self.board.name} {len(self.players)} players, round {self.round}, "
            f"{self.phase.value}, {self.active if self.phase is Phase.SHIPS else '-'}>"
        )

    _table: WalkTable
    _ids: tuple[str, ...]
    _index: dict[str, int]
    _spinner: Spinner
    _position: Position
    #: The legal moves last computed: for which position (the very value) and die.
    _legal: tuple[Position, int, tuple[Move, ...]] | None
    #: Per journal entry, the game before it: its position and its random source's state.
    _before: list[tuple[Position, tuple[Any, ...]]]


def _classic_board() -> Board:
    """The default board of a game given none: the classic one, from the board-file loader.

    Imported here, not at the top: the rules never read files unless a caller
    leaves the board to them (`rules.boardfile.classic_board` reads it once).
    """
    from bermuda_hw.rules.boardfile import classic_board

    return classic_board()


def _put(items: tuple[_T, ...], i: int, value: _T) -> tuple[_T, ...]:
    """`items` with item `i` replaced by `value`."""
    return (*items[:i], value, *items[i + 1 :])


# ------------------------------------------------------------------ end of game


def _check_cards(position: Position, players: tuple[str, ...], target_usd: int) -> Outcome | None:
    for seat, total in enumerate(position.totals):
        if total >= target_usd:
            return Outcome(EndReason.TARGET, (players[seat],), _totals(position, players))
    if position.bonus_left == 0 and not any(position.piles):
        return _best(position, players, EndReason.CARDS_GONE)
    return None


def _check_fleets(position: Position, players: tuple[str, ...]) -> Outcome | None:
    statuses = position.statuses
    for seat in range(len(players)):
        first = seat * SHIPS_PER_PLAYER
        if all(statuses[i] is ShipStatus.OUT for i in range(first, first + SHIPS_PER_PLAYER)):
            return _best(position, players, EndReason.FLEET_LOST)
    return None


def _totals(position: Position, players: tuple[str, ...]) -> dict[str, int]:
    return dict(zip(players, position.totals, strict=True))


def _best(position: Position, players: tuple[str, ...], reason: EndReason) -> Outcome:
    best = max(position.totals)
    winners = tuple(c for c, t in zip(players, position.totals, strict=True) if t == best)
    return Outcome(reason, winners, _totals(position, players))


def _finish(position: Position, outcome: Outcome, events: list[Event]) -> Position:
    events.append(GameOver(outcome))
    return position._replace(outcome=outcome, phase=Phase.OVER, die=None)
