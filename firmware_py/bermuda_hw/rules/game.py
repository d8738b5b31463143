"""The game: players, ships, cards, the cloud, turns, legal moves and the end of the game.

Pure code: no I/O, no clock. Every random choice (the roll for the first
player, the digital ledger's shuffle, engine dice, spins and capture decisions)
comes from the game's own `random.Random`, seeded at setup, so that a game is
reproduced exactly from its setup and its journal (`Game.replay`).

>>> game = Game.new(players=2, seed=1)
>>> game.order, game.phase.value
(('yellow', 'blue'), 'ships')
>>> die = game.roll_die()
>>> move = game.legal_moves()[0]
>>> events = game.push(move)
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from bermuda_hw.errors import IllegalMoveError, RulesError, StateError
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
    letter_index,
    plan_spin,
    start_pose,
    swept_ships,
)
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.events import (
    BonusTaken,
    Bumped,
    Captured,
    CardTaken,
    CloudMoved,
    CloudRemoved,
    Docked,
    Event,
    GameOver,
    Moved,
    Passed,
    PileEmpty,
    Spun,
    Swept,
)
from bermuda_hw.rules.moves import MAX_DIE, Move, WalkTable, ship_id, split_ship_id, walk_table

SHIPS_PER_PLAYER = 4
MAX_PLAYERS = 4
MAX_SHIPS_PER_PORT = 2
FORMAT = "bermuda-hw/game"
DIE_MODES = ("table", "virtual")
FORMAT_VERSION = 1

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


class EndReason(StrEnum):
    TARGET = "target"  # ruling 16: a player's cards reached the target
    FLEET_LOST = "fleet-lost"  # ruling 17: a player has no ships left
    CARDS_GONE = "cards-gone"  # ruling 18: every card has been taken


_REASON_TEXT = {
    EndReason.TARGET: "reached the target",
    EndReason.FLEET_LOST: "a player lost every ship",
    EndReason.CARDS_GONE: "every card has been taken",
}


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

    def __post_init__(self) -> None:
        if not 0.0 <= self.capture_probability <= 1.0:
            raise RulesError(
                f"capture_probability must be between 0 and 1, not {self.capture_probability}"
            )
        if self.target_usd <= 0:
            raise RulesError(f"target_usd must be positive, not {self.target_usd}")
        if self.die not in DIE_MODES:
            raise RulesError(f"die must be one of {', '.join(DIE_MODES)}, not {self.die!r}")


@dataclass(frozen=True)
class Outcome:
    """How the game ended: the winners (seat order), every total and the reason."""

    reason: EndReason
    winners: tuple[str, ...]
    totals: Mapping[str, int] = field(hash=False)

    def __str__(self) -> str:
        who = " and ".join(self.winners)
        verb = "wins" if len(self.winners) == 1 else "share the win"
        return f"{who} {verb} ({_REASON_TEXT[self.reason]})"


@dataclass(frozen=True)
class ShipState:
    """One ship as the rules see it."""

    id: str
    color: str
    number: int
    location: str | None  # a space or port id; None in the cloud or out of the game
    previous_port: str  # the port it last left, or lies in
    status: ShipStatus


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
    after each round, `cloud_phase`. `copy()` is cheap.
    """

    board: Board
    options: GameOptions
    players: tuple[str, ...]
    order: tuple[str, ...]
    seed: int
    rng: random.Random
    pose: CloudPose
    round: int
    turn: int
    phase: Phase
    die: int | None
    journal: list[dict[str, Any]]
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
        if not 2 <= players <= min(MAX_PLAYERS, len(board.ship_colors)):
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
        starts = [board.port_for(p).id for p in CARD_PRODUCTS]
        game._loc = [starts[i % SHIPS_PER_PLAYER] for i in range(len(game._ids))]
        game._prev = [str(loc) for loc in game._loc]
        game._status = [ShipStatus.ON_BOARD] * len(game._ids)
        if first_player is None:
            first, game.setup_rolls = roll_for_first(game.players, game.rng)
        else:
            if first_player not in game.players:
                raise RulesError(f"{first_player!r} is not one of {', '.join(game.players)}")
            first, game.setup_rolls = first_player, []
        seat = game.players.index(first)
        game.order = game.players[seat:] + game.players[:seat]
        piles: dict[str, tuple[int, ...]] = {}
        for product in CARD_PRODUCTS:
            pile = list(PRODUCT_CARDS_USD[product])
            if options.digital_ledger:
                game.rng.shuffle(pile)
            piles[product] = tuple(pile)
        game._piles = piles
        game._bonus_left = BONUS_CARDS
        game._hands = [() for _ in game.players]
        game._totals = [0 for _ in game.players]
        game.pose = start_pose(board.grid)
        game._blocked = game._table.blocked(game.pose)
        game._spinner = Spinner(board.spinner)
        game.round = 1
        game.turn = 0
        game.phase = Phase.SHIPS
        game.die = None
        game._outcome = None
        game._legal = None
        game.journal = []
        game.setup = {
            "players": players,
            "seed": seed,
            "options": asdict(options),
            "first_player": first_player,
        }
        game._refresh_statuses()
        return game

    def copy(self) -> Game:
        """An independent copy (the board and the walk table are shared)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other._loc = list(self._loc)
        other._prev = list(self._prev)
        other._status = list(self._status)
        other._piles = dict(self._piles)
        other._hands = list(self._hands)
        other._totals = list(self._totals)
        other.journal = list(self.journal)
        other.setup = dict(self.setup)
        other.setup_rolls = list(self.setup_rolls)
        return other

    # ---------------------------------------------------------------- queries

    @property
    def active(self) -> str:
        """The colour of the player whose turn it is (in the cloud phase: who moves next)."""
        return self.order[self.turn % len(self.order)]

    @property
    def blocked(self) -> frozenset[str]:
        """The spaces and ports under the cloud (ruling 6)."""
        return self._blocked

    @property
    def ship_ids(self) -> tuple[str, ...]:
        return self._ids

    def ship(self, ship: str) -> ShipState:
        i = self._ship_index(ship)
        color, number = split_ship_id(ship)
        return ShipState(ship, color, number, self._loc[i], self._prev[i], self._status[i])

    def ships(self, color: str | None = None) -> list[ShipState]:
        return [self.ship(s) for s in self._ids if color is None or s.startswith(color + "-")]

    def ships_at(self, space: str) -> list[str]:
        """The ships on a space or in a port, in seat order."""
        return [s for s, loc in zip(self._ids, self._loc, strict=True) if loc == space]

    def totals(self) -> dict[str, int]:
        """Every player's card total in dollars."""
        return dict(zip(self.players, self._totals, strict=True))

    def hand(self, color: str) -> tuple[tuple[str, int], ...]:
        """A player's cards: (product or "home", value in dollars), in the order taken."""
        return self._hands[self._seat(color)]

    def pile(self, product: str) -> tuple[int, ...]:
        """The cards left at a product port, top card first."""
        return self._piles[product]

    @property
    def bonus_left(self) -> int:
        return self._bonus_left

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        return self._outcome

    def is_over(self) -> bool:
        return self._outcome is not None

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
        for sid, loc in zip(self._ids, self._loc, strict=True):
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

    def roll_die(self) -> int:
        """Roll the die with the game's random source for the active player."""
        self._need_phase(Phase.SHIPS)
        die = self.rng.randint(1, MAX_DIE)
        self.die = die
        self.journal.append({"roll": die, "engine": True})
        return die

    def set_die(self, die: int) -> None:
        """Record a die rolled at the table for the active player."""
        self._need_phase(Phase.SHIPS)
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= MAX_DIE:
            raise RulesError(f"a die shows 1 to {MAX_DIE}, not {die!r}")
        self.die = die
        self.journal.append({"roll": die, "engine": False})

    # ------------------------------------------------------------------ moves

    def legal_moves(self, die: int | None = None) -> list[Move]:
        """The active player's legal moves for a die value (default: the rolled die).

        Full moves if any ship has one; else short moves (ruling 7); else a
        pass (ruling 8). Empty outside the ship phase.
        """
        if self.phase is not Phase.SHIPS:
            return []
        die = self._die(die)
        cached = self._legal
        if cached is not None and cached[0] == die:
            return list(cached[1])
        color = self.active
        full, short = self._walks(color, die)
        if full:
            moves = [Move(s, w) for s, w in full]
        elif short:
            moves = [Move(s, w) for s, w in short]
        else:
            moves = [Move.pass_turn(color)]
        self._legal = (die, tuple(moves))
        return moves

    def _walks(
        self, color: str, die: int
    ) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, tuple[str, ...]]]]:
        seat = self._seat(color)
        first = seat * SHIPS_PER_PLAYER
        forbidden = self._forbidden_mask(color)
        blocked = self._blocked
        table = self._table
        full: list[tuple[str, tuple[str, ...]]] = []
        short: list[tuple[str, tuple[str, ...]]] = []
        for i in range(first, first + SHIPS_PER_PLAYER):
            if self._status[i] is not ShipStatus.ON_BOARD:
                continue
            loc = self._loc[i]
            assert loc is not None
            f, s = table.moves(loc, die, blocked, forbidden)
            sid = self._ids[i]
            full.extend((sid, w) for w in f)
            short.extend((sid, w) for w in s)
        return full, short

    def _forbidden_mask(self, color: str) -> int:
        """Ruling 4: the ports that this player's ships may not enter."""
        ports = self.board.ports
        counts: dict[str, int] = {}
        own: dict[str, int] = {}
        prefix = color + "-"
        for sid, loc in zip(self._ids, self._loc, strict=True):
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

    def is_legal(self, move: Move, die: int | None = None) -> bool:
        return move in self.legal_moves(die)

    def push(self, move: Move | str) -> list[Event]:
        """Make the active player's move with the rolled die; return what it caused."""
        if isinstance(move, str):
            move = Move.parse(move)
        self._need_phase(Phase.SHIPS)
        if self.die is None:
            raise RulesError(f"{self.active} has not rolled the die yet")
        die = self.die
        legal = self.legal_moves(die)
        if move not in legal:
            raise IllegalMoveError(f"{move}: {self._why_illegal(move, die, legal)}")
        events: list[Event] = []
        color = self.active
        if move.is_pass:
            events.append(Passed(color, die))
        else:
            i = self._index[move.ship]
            end = move.end
            short = end not in self.board.ports and move.steps < die
            events.append(Moved(move, die, short))
            landed_on = [] if short or end in self.board.ports else self.ships_at(end)
            self._loc[i] = end
            if end in self.board.ports:
                self._prev[i] = end
                events.append(Docked(move.ship, end))
                events.append(self._take_card(color, move.ship, end))
            for other in landed_on:
                j = self._index[other]
                back = self._prev[j]
                self._loc[j] = back
                self._status[j] = (
                    ShipStatus.UNDER_CLOUD if back in self._blocked else ShipStatus.ON_BOARD
                )
                events.append(Bumped(other, end, back))
        self.journal.append({"move": str(move)})
        self.die = None
        self._legal = None
        outcome = self._check_cards()
        if outcome is not None:
            self._finish(outcome, events)
        else:
            self.turn += 1
            if self.turn == len(self.order):
                self.phase = Phase.CLOUD
        return events

    def _take_card(self, color: str, ship: str, port_id: str) -> Event:
        seat = self._seat(color)
        product = self.board.ports[port_id].product
        if product == "home":
            if self._bonus_left == 0:
                return PileEmpty(ship, port_id)
            self._bonus_left -= 1
            value = BONUS_CARD_USD
            event: Event = BonusTaken(color, ship, value)
        else:
            pile = self._piles[product]
            if not pile:
                return PileEmpty(ship, port_id)
            value = pile[0]
            self._piles[product] = pile[1:]
            event = CardTaken(color, ship, product, value)
        self._hands[seat] = (*self._hands[seat], (product, value))
        self._totals[seat] += value
        return event

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
        status = self._status[i]
        if status is ShipStatus.IN_CLOUD:
            return f"{move.ship} is inside the cloud"
        if status is ShipStatus.OUT:
            return f"{move.ship} is out of the game"
        if status is ShipStatus.UNDER_CLOUD:
            return f"{move.ship} is under the cloud at {self._loc[i]} and cannot move (ruling 6)"
        if move.start != self._loc[i]:
            return f"{move.ship} is at {self._loc[i]}, not {move.start}"
        walk = move.walk
        adjacency = self.board.adjacency
        for k, (a, b) in enumerate(itertools.pairwise(walk)):
            if b not in self.board.spaces:
                return f"there is no space {b} on the board"
            if b not in adjacency[a]:
                return f"{a} and {b} are not next to each other on a path"
            if b in walk[: k + 1]:
                return f"the walk visits {b} twice; a ship never goes back in one move (ruling 1)"
            if b in self._blocked:
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

    def cloud_phase(
        self, spin: Spin | str | None = None, capture: CaptureDecision | None = None
    ) -> list[Event]:
        """Spin (or take the given spin), move the cloud, capture, remove; start the next round.

        `capture` decides which swept ships are captured: the captured ids, or
        a function from the swept ids to the captured ids. By default each
        swept ship is captured with the `capture_probability` house rule,
        drawn from the game's random source.
        """
        self._need_phase(Phase.CLOUD)
        engine_spin = spin is None
        if spin is None:
            spin = self._spinner.spin(self.rng)
        elif isinstance(spin, str):
            spin = Spin.parse(spin)
        path = plan_spin(self.board.grid, self.pose, spin, self.board.cloud)
        swept = frozenset(
            point.partition("#")[0]
            for point in swept_ships(self.board, path, self._within_reach(path),
                                     STAND_TOLERANCE_MM))
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
        for sid in captured:
            i = self._index[sid]
            self._loc[i] = None
            self._status[i] = ShipStatus.IN_CLOUD
        self.pose = path.end
        if path.leaves_board:
            lost = tuple(
                s for i, s in enumerate(self._ids) if self._status[i] is ShipStatus.IN_CLOUD
            )
            for sid in lost:
                self._status[self._index[sid]] = ShipStatus.OUT
            self.pose = start_pose(self.board.grid)
            events.append(CloudRemoved(lost, self.pose))
        self._blocked = self._table.blocked(self.pose)
        self._refresh_statuses()
        self.journal.append(
            {
                "cloud": str(spin),
                "engine": engine_spin,
                "captured": list(captured),
                "decided": capture is None,
            }
        )
        self.round += 1
        self.turn = 0
        self.die = None
        self.phase = Phase.SHIPS
        outcome = self._check_fleets()
        if outcome is not None:
            self._finish(outcome, events)
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
        for sid, loc in zip(self._ids, self._loc, strict=True):
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

    # ------------------------------------------------------------- end of game

    def _check_cards(self) -> Outcome | None:
        for seat, total in enumerate(self._totals):
            if total >= self.options.target_usd:
                return Outcome(EndReason.TARGET, (self.players[seat],), self.totals())
        if self._bonus_left == 0 and not any(self._piles.values()):
            return self._best(EndReason.CARDS_GONE)
        return None

    def _check_fleets(self) -> Outcome | None:
        for color in self.players:
            seat = self._seat(color)
            first = seat * SHIPS_PER_PLAYER
            if all(
                self._status[i] is ShipStatus.OUT for i in range(first, first + SHIPS_PER_PLAYER)
            ):
                return self._best(EndReason.FLEET_LOST)
        return None

    def _best(self, reason: EndReason) -> Outcome:
        best = max(self._totals)
        winners = tuple(c for c, t in zip(self.players, self._totals, strict=True) if t == best)
        return Outcome(reason, winners, self.totals())

    def _finish(self, outcome: Outcome, events: list[Event]) -> None:
        self._outcome = outcome
        self.phase = Phase.OVER
        self.die = None
        events.append(GameOver(outcome))

    # ----------------------------------------------------------- position edits

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
        if location is not None:
            if location not in self.board.spaces:
                raise RulesError(f"there is no space {location!r} on board {self.board.name!r}")
            if location in self.board.ports:
                previous_port = location
            self._loc[i] = location
            self._status[i] = ShipStatus.ON_BOARD
        else:
            if status not in (None, ShipStatus.IN_CLOUD, ShipStatus.OUT):
                raise RulesError(f"a ship off the board is in the cloud or out, not {status}")
            self._loc[i] = None
            self._status[i] = status or ShipStatus.OUT
        if previous_port is not None:
            if previous_port not in self.board.ports:
                raise RulesError(f"{previous_port!r} is not a port of board {self.board.name!r}")
            self._prev[i] = previous_port
        self._refresh_statuses()
        self.journal.append(
            {
                "set-ship": ship,
                "location": location,
                "previous-port": self._prev[i],
                "status": self._status[i].value,
            }
        )

    def set_cloud(self, pose: CloudPose) -> None:
        """Put the cloud at a pose (to set up a position, or to follow the table)."""
        if not self.board.grid.contains(pose.col, pose.row):
            raise RulesError(f"the cloud pose {pose} is off the dot grid")
        self.pose = pose
        self._blocked = self._table.blocked(pose)
        self._refresh_statuses()
        self.journal.append({"set-cloud": [pose.col, pose.row, LETTERS[pose.letter]]})

    def set_turn(self, color: str, phase: Phase = Phase.SHIPS) -> None:
        """Make it `color`'s turn (to set up a position)."""
        if self._outcome is not None:
            raise RulesError("the game is over")
        if color not in self.order:
            raise RulesError(f"{color!r} is not a player in this game")
        self.turn = self.order.index(color)
        self.phase = phase
        self._legal = None
        self.die = None
        self.journal.append({"set-turn": color, "phase": phase.value})

    # ------------------------------------------------------------- persistence

    def record(self) -> dict[str, Any]:
        """What reproduces this game: its setup and its journal (see `replay`)."""
        return {"board": self.board.name, "setup": dict(self.setup), "journal": list(self.journal)}

    @classmethod
    def replay(cls, record: Mapping[str, Any], board: Board | None = None) -> Game:
        """Rebuild a game from `record()`: same setup, every journal entry applied again.

        Dice, spins and captures that the engine drew are drawn again from the
        same seed and checked against the journal.
        """
        board = _board_for(record, board)
        try:
            setup = record["setup"]
            game = cls.new(
                setup["players"],
                seed=setup["seed"],
                board=board,
                options=GameOptions(**setup["options"]),
                first_player=setup["first_player"],
            )
            for entry in record["journal"]:
                game._apply(entry)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, StateError):
                raise
            raise StateError(f"cannot replay the journal: {exc}") from exc
        return game

    def _apply(self, entry: Mapping[str, Any]) -> None:
        if "roll" in entry:
            if entry["engine"]:
                if self.roll_die() != entry["roll"]:
                    raise StateError(f"journal {entry}: the seed gives another roll")
            else:
                self.set_die(entry["roll"])
        elif "move" in entry:
            self.push(Move.parse(entry["move"]))
            if entry.get("provisional"):
                # the table's referee took it unseen: the note stays with the move
                self.journal[-1]["provisional"] = list(entry["provisional"])
        elif "cloud" in entry:
            spin = None if entry["engine"] else Spin.parse(entry["cloud"])
            capture = None if entry["decided"] else entry["captured"]
            self.cloud_phase(spin, capture)
            got = self.journal[-1]
            if got["cloud"] != entry["cloud"] or got["captured"] != entry["captured"]:
                raise StateError(f"journal {entry}: the seed gives {got}")
            if entry.get("provisional"):
                # captures from places the cloud covered: the note stays with the phase
                got["provisional"] = list(entry["provisional"])
        elif "set-ship" in entry:
            self.set_ship(
                entry["set-ship"],
                entry["location"],
                entry["previous-port"],
                status=ShipStatus(entry["status"]),
            )
        elif "set-cloud" in entry:
            col, row, letter = entry["set-cloud"]
            self.set_cloud(CloudPose(col, row, letter_index(letter)))
        elif "set-turn" in entry:
            self.set_turn(entry["set-turn"], Phase(entry["phase"]))
        else:
            raise StateError(f"unknown journal entry {entry!r}")

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON data."""
        version, internal, gauss = self.rng.getstate()
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "board": self.board.name,
            "setup": dict(self.setup),
            "players": list(self.players),
            "order": list(self.order),
            "setup_rolls": [dict(r) for r in self.setup_rolls],
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase.value,
            "die": self.die,
            "ships": [
                {
                    "id": sid,
                    "location": self._loc[i],
                    "previous_port": self._prev[i],
                    "status": self._status[i].value,
                }
                for i, sid in enumerate(self._ids)
            ],
            "piles": {p: list(v) for p, v in self._piles.items()},
            "bonus_left": self._bonus_left,
            "hands": {
                c: [[p, v] for p, v in self._hands[s]] for s, c in enumerate(self.players)
            },
            "cloud": {
                "col": self.pose.col,
                "row": self.pose.row,
                "letter": LETTERS[self.pose.letter],
            },
            "outcome": None
            if self._outcome is None
            else {
                "reason": self._outcome.reason.value,
                "winners": list(self._outcome.winners),
                "totals": dict(self._outcome.totals),
            },
            "rng": [version, list(internal), gauss],
            "journal": list(self.journal),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, board: Board | None = None) -> Game:
        """Restore a state written by `to_json` (the board must be the same one)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StateError(f"saved game is not JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StateError(f"saved game: not a {FORMAT} document")
        if data.get("version") != FORMAT_VERSION:
            raise StateError(f"saved game: version {data.get('version')!r} is not supported")
        board = _board_for(data, board)
        try:
            return cls._from_dict(data, board)
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise StateError(f"saved game: bad or missing field: {exc!r}") from None

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any], board: Board) -> Game:
        setup = data["setup"]
        game = cls.new(
            setup["players"],
            seed=setup["seed"],
            board=board,
            options=GameOptions(**setup["options"]),
            first_player=data["order"][0],
        )
        game.setup = dict(setup)
        if list(game.players) != data["players"]:
            raise StateError(f"saved game: players {data['players']} do not match the board")
        game.order = tuple(data["order"])
        if sorted(game.order) != sorted(game.players):
            raise StateError(f"saved game: order {data['order']} is not the players'")
        game.setup_rolls = [dict(r) for r in data["setup_rolls"]]
        game.round = int(data["round"])
        game.turn = int(data["turn"])
        game.phase = Phase(data["phase"])
        game.die = data["die"]
        ships = data["ships"]
        if [s["id"] for s in ships] != list(game._ids):
            raise StateError("saved game: the ships do not match the players")
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
            game._loc[i] = loc
            game._prev[i] = s["previous_port"]
            game._status[i] = status
        game._piles = {p: tuple(int(v) for v in data["piles"][p]) for p in CARD_PRODUCTS}
        game._bonus_left = int(data["bonus_left"])
        game._hands = [
            tuple((str(p), int(v)) for p, v in data["hands"][c]) for c in game.players
        ]
        game._totals = [sum(v for _, v in hand) for hand in game._hands]
        cloud = data["cloud"]
        game.pose = CloudPose(cloud["col"], cloud["row"], letter_index(cloud["letter"]))
        if not board.grid.contains(game.pose.col, game.pose.row):
            raise StateError(f"saved game: cloud {game.pose} is off the dot grid")
        game._blocked = game._table.blocked(game.pose)
        out = data["outcome"]
        game._outcome = (
            None
            if out is None
            else Outcome(EndReason(out["reason"]), tuple(out["winners"]), dict(out["totals"]))
        )
        version, internal, gauss = data["rng"]
        game.rng.setstate((version, tuple(internal), gauss))
        game.journal = list(data["journal"])
        game._legal = None
        return game

    # ---------------------------------------------------------------- helpers

    def _refresh_statuses(self) -> None:
        self._legal = None
        blocked = self._blocked
        for i, loc in enumerate(self._loc):
            if loc is not None:
                self._status[i] = (
                    ShipStatus.UNDER_CLOUD if loc in blocked else ShipStatus.ON_BOARD
                )

    def _need_phase(self, phase: Phase) -> None:
        if self.phase is phase:
            return
        if self.phase is Phase.OVER:
            raise RulesError("the game is over")
        if self.phase is Phase.CLOUD:
            raise RulesError("every player has moved: the cloud moves next")
        raise RulesError(f"it is {self.active}'s turn to move a ship, not the cloud's")

    def _die(self, die: int | None) -> int:
        if die is None:
            if self.die is None:
                raise RulesError(f"{self.active} has not rolled the die yet")
            return self.die
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
    _loc: list[str | None]
    _prev: list[str]
    _status: list[ShipStatus]
    _piles: dict[str, tuple[int, ...]]
    _bonus_left: int
    _hands: list[tuple[tuple[str, int], ...]]
    _totals: list[int]
    _blocked: frozenset[str]
    _spinner: Spinner
    _outcome: Outcome | None
    _legal: tuple[int, tuple[Move, ...]] | None


def _classic_board() -> Board:
    """The default board of a game given none: the classic one, from the board-file loader.

    Imported here, not at the top: the rules never read files unless a caller
    leaves the board to them (`rules.boardfile.classic_board` reads it once).
    """
    from bermuda_hw.rules.boardfile import classic_board

    return classic_board()


def _board_for(data: Mapping[str, Any], board: Board | None) -> Board:
    name = data.get("board")
    if board is None:
        if name != "classic":
            raise StateError(f"saved game is for board {name!r}: give that board to load it")
        return _classic_board()
    if name != board.name:
        raise StateError(f"saved game is for board {name!r}, not {board.name!r}")
    return board
