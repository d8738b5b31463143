"""Playing whole games: rounds of turns and cloud phases, with pluggable players.

The simulated table and `bermuda-hw --simulate` use this loop; a chooser picks
each move (random legal moves by default), the game's own random source rolls
the dice, spins and decides captures.

>>> result = simulate_game(players=2, seed=3)
>>> result.game.is_over(), result.rounds[-1].number == len(result.rounds)
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.events import Event, usd
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.moves import Move

#: Picks one of the legal moves (never an empty list).
Chooser = Callable[[Game, list[Move]], Move]

DEFAULT_MAX_ROUNDS = 5_000


def random_chooser(rng: random.Random) -> Chooser:
    """A player who picks uniformly among the legal moves."""

    def choose(game: Game, moves: list[Move]) -> Move:
        return moves[0] if len(moves) == 1 else rng.choice(moves)

    return choose


@dataclass(frozen=True)
class TurnRecord:
    """One player's turn: the die, the move and what it caused."""

    color: str
    die: int
    move: Move
    events: tuple[Event, ...]


@dataclass(frozen=True)
class RoundRecord:
    """One round: every player's turn, then the cloud (absent if the game ended first)."""

    number: int
    turns: tuple[TurnRecord, ...]
    cloud: tuple[Event, ...] = ()
    totals: tuple[tuple[str, int], ...] = ()


@dataclass
class GameResult:
    """A finished game and the rounds it took."""

    game: Game
    rounds: list[RoundRecord] = field(default_factory=list)


def play_round(game: Game, choose: Chooser) -> RoundRecord:
    """Play the rest of the current round: each player's turn, then the cloud phase."""
    number = game.round
    turns: list[TurnRecord] = []
    while game.phase is Phase.SHIPS:
        color = game.active
        die = game.roll_die()
        move = choose(game, game.legal_moves(die))
        turns.append(TurnRecord(color, die, move, tuple(game.push(move))))
    cloud: tuple[Event, ...] = ()
    if game.phase is Phase.CLOUD:
        cloud = tuple(game.cloud_phase())
    return RoundRecord(number, tuple(turns), cloud, tuple(game.totals().items()))


def play_game(
    game: Game, choose: Chooser, *, max_rounds: int = DEFAULT_MAX_ROUNDS
) -> Iterator[RoundRecord]:
    """Play a game to its end, yielding each round as it is played."""
    while not game.is_over():
        if game.round > max_rounds:
            raise RulesError(f"the game did not end within {max_rounds} rounds")
        yield play_round(game, choose)


def simulate_game(
    players: int = 4,
    seed: int = 0,
    *,
    board: Board | None = None,
    options: GameOptions | None = None,
    choose: Chooser | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    keep_rounds: bool = True,
) -> GameResult:
    """One complete game with virtual dice, spinner and captures; random moves by default.

    The moves are picked with a random source of their own, seeded from `seed`,
    so the whole game follows from the seed.
    """
    game = Game.new(players, seed=seed, board=board, options=options)
    choose = choose or random_chooser(random.Random(f"moves:{seed}"))
    result = GameResult(game)
    for record in play_game(game, choose, max_rounds=max_rounds):
        if keep_rounds:
            result.rounds.append(record)
    return result


def describe_round(record: RoundRecord) -> list[str]:
    """The readable log lines of one round."""
    lines = [f"round {record.number}"]
    for turn in record.turns:
        first, *rest = turn.events
        lines.append(f"  {turn.color} rolls {turn.die}: {first}")
        lines.extend(f"      {event}" for event in rest)
    if record.cloud:
        first, *rest = record.cloud
        lines.append(f"  cloud: {first}")
        lines.extend(f"      {event}" for event in rest)
    if record.totals:
        lines.append("  totals: " + ", ".join(f"{c} {usd(t)}" for c, t in record.totals))
    return lines


def describe_standings(game: Game) -> list[str]:
    """The final (or current) standings: totals, best first, and each fleet."""
    totals = game.totals()
    ranked = sorted(game.players, key=lambda c: (-totals[c], game.players.index(c)))
    lines = []
    for place, color in enumerate(ranked, start=1):
        ships = game.ships(color)
        afloat = sum(s.status in (ShipStatus.ON_BOARD, ShipStatus.UNDER_CLOUD) for s in ships)
        cloud = sum(s.status is ShipStatus.IN_CLOUD for s in ships)
        lost = sum(s.status is ShipStatus.OUT for s in ships)
        cards = len(game.hand(color))
        lines.append(
            f"  {place}. {color:<7} {usd(totals[color]):>9} in {cards} cards;"
            f" ships: {afloat} on the board, {cloud} in the cloud, {lost} lost"
        )
    return lines
