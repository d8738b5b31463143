"""The table's own player: it picks a seat's move from the position and the die.

Pure code like the rest of the rules: no I/O, no clock; every random choice
comes from a `random.Random` the caller seeds, so a computer seat plays the
same game again from the same seed.

Two levels:

- **best** makes each legal move on a copy of the game (the engine decides
  what it docks, takes and bumps) and scores the position it leaves, for
  itself against its strongest opponent (`evaluate`): the cards in hand (a
  total that reaches the target wins outright), the card each fleet can
  expect to take on its next turn (with the ports it may enter, and the
  Home Port's bonus while any is left), the chance of reaching the target
  then, and the ships the next spin may sweep, from the spinner's exact odds
  (`danger.place_odds`). Bumps, blocked ports and port capacity count
  through the positions they leave. Ties go to the first move in
  `legal_moves` order: "best" is deterministic.
- **easy** plays like "best" but, with a fixed chance (`EASY_RANDOM_SHARE`),
  picks any legal move at random instead.

Two simple movers serve as yardsticks (`benchmarks/bench_computer.py`): a
random mover (`rules.play.random_chooser`) and a greedy card-taker
(`greedy_chooser`), who docks for the biggest card it can take now.

>>> from bermuda_hw.rules.game import Game
>>> game = Game.new(2, seed=4)
>>> die = game.roll_die()
>>> move = ComputerPlayer("best").choose(game)
>>> move in game.legal_moves()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cards import BONUS_CARD_USD, CARD_PRODUCTS
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.danger import place_odds
from bermuda_hw.rules.events import BonusTaken, Bumped, CardTaken, Event, PileEmpty, usd
from bermuda_hw.rules.game import (
    COMPUTER_LEVELS,
    SHIPS_PER_PLAYER,
    Game,
    Phase,
    Position,
    ShipStatus,
)
from bermuda_hw.rules.moves import MAX_DIE, Move, walk_table
from bermuda_hw.rules.play import Chooser

LEVELS = COMPUTER_LEVELS
#: The chance that "easy" plays a random legal move instead of the best one.
EASY_RANDOM_SHARE = 0.5
#: What "the table's seat" is called when a computer seat's move is said.
TABLE_SEAT = "the table's seat"

_DIE_FACES = range(1, MAX_DIE + 1)


@dataclass(frozen=True)
class Weights:
    """How "best" weighs what a position promises, in dollars."""

    #: Weight of the card a fleet can expect to take on its next turn.
    next_card: float = 0.9
    #: Weight of the card the moved ship can then expect on the turn after (per dollar).
    later_card: float = 0.3
    #: What losing one ship to the cloud costs (a ship's cards still to come).
    ship_usd: float = 45_000.0
    #: What a certain win on the next turn is worth beyond the card itself.
    next_win_usd: float = 150_000.0
    #: What winning is worth beyond the cards in hand (a position in which the game is won).
    win_usd: float = 10_000_000.0


DEFAULT_WEIGHTS = Weights()


class MoveScore(NamedTuple):
    """One legal move and the score "best" gives the position it leaves (dollars)."""

    move: Move
    score: float


# ------------------------------------------------------------------- the reach tables


class _Reach(NamedTuple):
    """For each place: per die face, the best card a walk can take and that plus what follows."""

    card: Mapping[str, tuple[int, ...]]
    value: Mapping[str, tuple[float, ...]]


@dataclass
class _BoardCache:
    """What the computer player has worked out for one board (both depend on nothing else)."""

    board: Board
    reach: dict[tuple[frozenset[str], int, tuple[int, ...], float], _Reach]
    danger: dict[tuple[CloudPose, float], Mapping[str, float]]


_BOARDS: dict[int, _BoardCache] = {}
_CACHE_LIMIT = 4096


def _cache(board: Board) -> _BoardCache:
    """The board's cache; a board is known by its identity, as `moves.walk_table` knows it."""
    hit = _BOARDS.get(id(board))
    if hit is None or hit.board is not board:
        if len(_BOARDS) >= 64:
            _BOARDS.clear()
        hit = _BOARDS[id(board)] = _BoardCache(board, {}, {})
    return hit


def _reach(
    board: Board, blocked: frozenset[str], forbidden: int, cards: tuple[int, ...], later: float
) -> _Reach:
    """What a lone ship on each place can take with each die face (full moves only).

    `cards` is the card a ship docking at each port takes now (in the walk
    table's port order). A walk's value is its card plus `later` times the
    mean card the ship could take from where it stops on the following turn.
    """
    cache = _cache(board).reach
    key = (blocked, forbidden, cards, later)
    hit = cache.get(key)
    if hit is not None:
        return hit
    table = walk_table(board)
    port_card = dict(zip(table.port_ids, cards, strict=True))
    walks = {
        (start, die): table.moves(start, die, blocked, forbidden)[0]
        for start in board.spaces
        for die in _DIE_FACES
    }
    card = {
        start: tuple(
            max((port_card.get(w[-1], 0) for w in walks[(start, die)]), default=0)
            for die in _DIE_FACES
        )
        for start in board.spaces
    }
    mean = {start: sum(c) / MAX_DIE for start, c in card.items()}
    value = {
        start: tuple(
            max(
                (port_card.get(w[-1], 0) + later * mean[w[-1]] for w in walks[(start, die)]),
                default=0.0,
            )
            for die in _DIE_FACES
        )
        for start in board.spaces
    }
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    hit = cache[key] = _Reach(card, value)
    return hit


def _danger(board: Board, pose: CloudPose, capture_probability: float) -> Mapping[str, float]:
    """The chance that a ship on each place is captured by the next spin from `pose`."""
    cache = _cache(board).danger
    key = (pose, capture_probability)
    hit = cache.get(key)
    if hit is None:
        odds = place_odds(board, pose)
        hit = {place: float(p) * capture_probability for place, p in odds.swept.items()}
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = hit
    return hit


# ------------------------------------------------------------------------ evaluation


def _port_cards(game: Game, position: Position) -> tuple[int, ...]:
    """The card a ship docking at each port would take now, in the walk table's port order."""
    out = []
    for port_id in walk_table(game.board).port_ids:
        product = game.board.ports[port_id].product
        if product == "home":
            out.append(BONUS_CARD_USD if position.bonus_left else 0)
        else:
            pile = position.piles[CARD_PRODUCTS.index(product)]
            out.append(pile[0] if pile else 0)
    return tuple(out)


def evaluate(game: Game, weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
    """What the game's position is worth to each player, in dollars.

    A player's worth: the cards in hand; the card its fleet can expect to take
    on its next turn, the best of its free ships for each die face (with the
    ports it may enter now and the cloud where it stands now); a bonus for
    the chance that this card reaches the target; less the ships the next
    spin may capture, each at `weights.ship_usd`. Once the game is over, a
    winner is worth `weights.win_usd` more than the cards in hand.
    """
    pos = game.position
    board = game.board
    target = game.options.target_usd
    blocked = walk_table(board).blocked(pos.pose)
    cards = _port_cards(game, pos)
    danger = _danger(board, pos.pose, game.options.capture_probability)
    worth: dict[str, float] = {}
    if pos.outcome is not None:
        return {
            color: pos.totals[seat] + (weights.win_usd if color in pos.outcome.winners else 0.0)
            for seat, color in enumerate(game.players)
        }
    for seat, color in enumerate(game.players):
        total = pos.totals[seat]
        if total >= target:
            worth[color] = weights.win_usd + total
            continue
        reach = _reach(board, blocked, game.closed_ports(color), cards, weights.later_card)
        best_card = [0] * MAX_DIE
        best_value = [0.0] * MAX_DIE
        at_risk = 0.0
        first = seat * SHIPS_PER_PLAYER
        for i in range(first, first + SHIPS_PER_PLAYER):
            loc = pos.locations[i]
            if loc is None:
                continue
            at_risk += danger[loc]
            if pos.statuses[i] is not ShipStatus.ON_BOARD:
                continue
            card, value = reach.card[loc], reach.value[loc]
            for d in range(MAX_DIE):
                if card[d] > best_card[d]:
                    best_card[d] = card[d]
                if value[d] > best_value[d]:
                    best_value[d] = value[d]
        wins = sum(1 for c in best_card if c and total + c >= target) / MAX_DIE
        worth[color] = (
            total
            + weights.next_card * sum(best_value) / MAX_DIE
            + weights.next_win_usd * wins
            - weights.ship_usd * at_risk
        )
    return worth


def _relative(worth: Mapping[str, float], color: str) -> float:
    """A player's worth less its strongest opponent's."""
    return worth[color] - max(v for c, v in worth.items() if c != color)


def score_moves(
    game: Game, die: int | None = None, weights: Weights = DEFAULT_WEIGHTS
) -> list[MoveScore]:
    """Every legal move of the active player with the score of the position it leaves.

    Each move is pushed on a copy of the game; the game itself is not touched.
    The score is the mover's worth (`evaluate`) less its strongest opponent's.
    """
    moves = game.legal_moves(die)
    if not moves:
        raise RulesError("there is no move to choose: it is not a ship turn")
    color = game.active
    rolled = game.position.die if die is None else die
    trial = game.copy()
    base = game.position.with_die(rolled)
    held = len(trial.journal)
    scored = []
    for move in moves:
        trial.position = base
        trial.push(move)
        scored.append(MoveScore(move, _relative(evaluate(trial, weights), color)))
        trial.pop(len(trial.journal) - held)
    return scored


# ---------------------------------------------------------------------------- players


class ComputerPlayer:
    """A computer seat at one level; `choose` picks a legal move, `__call__` is a `Chooser`.

    `seed` seeds the random choices of "easy" ("best" makes none).
    """

    def __init__(
        self, level: str = "best", *, seed: int | str = 0, weights: Weights = DEFAULT_WEIGHTS
    ) -> None:
        if level not in LEVELS:
            raise RulesError(f"a computer seat plays {' or '.join(LEVELS)}, not {level!r}")
        self.level = level
        self.weights = weights
        self.rng = random.Random(f"computer:{level}:{seed}")

    def choose(self, game: Game, die: int | None = None) -> Move:
        """The move this seat makes with a die (default: the rolled die)."""
        moves = game.legal_moves(die)
        if not moves:
            raise RulesError("there is no move to choose: it is not a ship turn")
        if len(moves) == 1:
            return moves[0]
        if self.level == "easy" and self.rng.random() < EASY_RANDOM_SHARE:
            return self.rng.choice(moves)
        scored = score_moves(game, die, self.weights)
        return max(scored, key=lambda s: s.score).move  # max keeps the first of equals

    def __call__(self, game: Game, moves: list[Move]) -> Move:
        """`rules.play.Chooser`: pick among the legal moves with the rolled die."""
        return self.choose(game)


def greedy_chooser(rng: random.Random) -> Chooser:
    """A greedy card-taker: docks for the biggest card it can take now, else moves at random."""

    def choose(game: Game, moves: list[Move]) -> Move:
        cards = dict(
            zip(walk_table(game.board).port_ids, _port_cards(game, game.position), strict=True)
        )
        best = max((cards.get(m.end, 0) if not m.is_pass else 0) for m in moves)
        pick = [m for m in moves if not m.is_pass and cards.get(m.end, 0) == best] or moves
        return pick[0] if len(pick) == 1 else rng.choice(pick)

    return choose


# ------------------------------------------------------------------------------ matches


@dataclass(frozen=True)
class MatchResult:
    """Two-player games of one kind of player against another (seats alternate)."""

    games: int
    wins: float  # the first kind's wins; a shared win counts a half
    moves: int  # turns the first kind took, passes included

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0


def match(
    first: Callable[[int], Chooser],
    second: Callable[[int], Chooser],
    games: int,
    *,
    board: Board | None = None,
    start_seed: int = 0,
) -> MatchResult:
    """Play `games` two-player games of `first` against `second` on the rules engine alone.

    Game k has seed `start_seed + k`; each side gets a chooser made from
    that seed; `first` plays the first colour in even games and the second in
    odd ones (who moves first is the game's own high roll). The engine rolls,
    spins and decides captures.
    """
    wins = 0.0
    moves = 0
    for seed in range(start_seed, start_seed + games):
        game = Game.new(2, seed=seed, board=board)
        mine = game.players[seed % 2]
        a, b = first(seed), second(seed)
        while not game.is_over():
            if game.phase is Phase.CLOUD:
                game.cloud_phase()
                continue
            game.roll_die()
            if game.active == mine:
                moves += 1
                game.push(a(game, game.legal_moves()))
            else:
                game.push(b(game, game.legal_moves()))
        outcome = game.outcome()
        assert outcome is not None
        if mine in outcome.winners:
            wins += 1 / len(outcome.winners)
    return MatchResult(games, wins, moves)


# --------------------------------------------------------------------------- in words


def describe_move(
    game: Game, move: Move, die: int | None = None, *, seat: str | None = TABLE_SEAT
) -> str:
    """A move in words for the page and the voice, with what it takes and bumps.

    "yellow, the table's seat, rolls 4: yellow-2 from OIL to S14". The die
    defaults to the rolled one; the consequences come from the engine (the
    move is made on a copy; the game is not touched). `seat` None leaves the
    seat's description out.
    """
    color = game.active
    rolled = game.position.die if die is None else die
    if rolled is None:
        raise RulesError(f"{color} has not rolled the die yet")
    who = color if seat is None else f"{color}, {seat},"
    head = f"{who} rolls {rolled}: "
    if move.is_pass:
        return head + "no move; passes"
    trial = game.copy()
    trial.position = game.position.with_die(rolled)
    events: Sequence[Event] = trial.push(move)
    text = f"{move.ship} from {move.start} to {move.end}"
    if move.end not in game.board.ports and move.steps < rolled:
        text += " (as far as it can go)"
    for event in events:
        if isinstance(event, CardTaken):
            text += f", takes {event.product} worth {usd(event.value_usd)}"
        elif isinstance(event, BonusTaken):
            text += f", takes a Home Port bonus of {usd(event.value_usd)}"
        elif isinstance(event, PileEmpty):
            text += ", no card left there"
        elif isinstance(event, Bumped):
            text += f", sends {event.ship} back to {event.port}"
    return head + text
