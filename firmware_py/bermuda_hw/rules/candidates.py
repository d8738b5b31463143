"""The boards the active player's turn may leave: every legal move for every die value.

Pure code over the engine: each candidate is made by pushing a move on a copy
of the game (`Game.copy()` / `push`), never by re-deriving the rules. For a
position in the ship phase the candidates are:

- no change (the player has not moved yet);
- every legal move of the active player for every die value 1-6 (full moves,
  docks with count to spare, short moves when the rules allow them);
- for a move that bumps ships, three boards: the bumped ships put back in
  their previous ports, still on the landing space, or lifted off the board
  (in a player's hand on their way back);
- a pass, for the die values that leave the player without a move (its board
  is the same as no change: a pass is made with the spin button).

Each candidate carries its expected content per place (the colours of the
ships on every space and port) and its consequence: what it does to the game
(places, previous ports, cards, totals, whose turn), not its text. Two moves
with the same consequence are the same thing for the game, whatever die or
ship made them.

>>> from bermuda_hw.rules.game import Game
>>> game = Game.new(2, seed=1)
>>> cands = candidates(game)
>>> cands[0].kind.value, sum(1 for c in cands if c.kind == "move") > 0
('none', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import MAX_DIE, Move

Content = tuple[str, ...]  # the colours on one place, sorted
Consequence = tuple[object, ...]


class Kind(StrEnum):
    NONE = "none"
    MOVE = "move"
    PASS = "pass"


class Bump(StrEnum):
    """Where the ships a move bumped are on the board the candidate expects."""

    NONE = ""  # the move bumps nobody
    BACK = "back"  # back in their previous ports
    LANDING = "landing"  # still on the landing space, beside the ship that came
    LIFTED = "lifted"  # off the board, in a player's hand


@dataclass(frozen=True)
class Candidate:
    """One board the turn may leave, with what it means for the game."""

    kind: Kind
    die: int | None
    move: Move | None
    bumped: tuple[str, ...]
    bump: Bump
    contents: Mapping[str, Content] = field(hash=False, compare=False)
    consequence: Consequence = field(hash=False, compare=False)

    @property
    def dice(self) -> frozenset[int]:
        return frozenset() if self.die is None else frozenset({self.die})

    def describe(self) -> str:
        if self.kind is Kind.NONE:
            return "no change"
        assert self.move is not None
        if self.kind is Kind.PASS:
            return f"{self.move} (die {self.die})"
        extra = ""
        if self.bump is Bump.LANDING:
            extra = ", the bumped ships still on the landing space"
        elif self.bump is Bump.LIFTED:
            extra = ", the bumped ships lifted off"
        return f"{self.move} (die {self.die}{extra})"


def contents(game: Game) -> dict[str, Content]:
    """The colours the game has on every space and port that holds a ship."""
    out: dict[str, list[str]] = {}
    for ship in game.ships():
        if ship.location is not None:
            out.setdefault(ship.location, []).append(ship.color)
    return {place: tuple(sorted(colors)) for place, colors in out.items()}


def consequence(game: Game) -> Consequence:
    """What a position means for the game, by colour (ship numbers do not matter)."""
    ships = tuple(
        sorted((s.color, s.location or "", s.previous_port, s.status.value) for s in game.ships())
    )
    hands = tuple(game.hand(c) for c in game.players)
    return (ships, hands, game.bonus_left, game.turn, game.round, game.phase.value)


def candidates(game: Game, dice: frozenset[int] | None = None) -> list[Candidate]:
    """Every board the active player's turn may leave (see the module's text).

    `dice` limits the moves to those die values (when the die is known);
    the first candidate is always "no change".
    """
    base = contents(game)
    out = [Candidate(Kind.NONE, None, None, (), Bump.NONE, base, consequence(game))]
    if game.phase is not Phase.SHIPS:
        return out
    for die in range(1, MAX_DIE + 1):
        if dice is not None and die not in dice:
            continue
        for move in game.legal_moves(die):
            after = game.copy()
            after.set_die(die)
            if move.is_pass:
                after.push(move)
                out.append(Candidate(Kind.PASS, die, move, (), Bump.NONE, base, consequence(after)))
                continue
            short = move.end not in game.board.ports and move.steps < die
            bumped: tuple[str, ...] = ()
            if not short and move.end not in game.board.ports:
                bumped = tuple(s for s in game.ships_at(move.end) if s != move.ship)
            after.push(move)
            key = consequence(after)
            done = contents(after)
            boards = [(Bump.BACK if bumped else Bump.NONE, done)]
            if bumped:
                landing = {p: list(c) for p, c in done.items()}
                lifted = {p: list(c) for p, c in done.items()}
                for sid in bumped:
                    ship = game.ship(sid)
                    back = after.ship(sid).location
                    if back is not None:
                        landing[back].remove(ship.color)
                        lifted[back].remove(ship.color)
                    landing.setdefault(move.end, []).append(ship.color)
                boards.append((Bump.LANDING, as_contents(landing)))
                boards.append((Bump.LIFTED, as_contents(lifted)))
            for bump, board in boards:
                out.append(Candidate(Kind.MOVE, die, move, bumped, bump, board, key))
    return out


def as_contents(places: Mapping[str, list[str]]) -> dict[str, Content]:
    """A board of colour lists as contents: each place's colours sorted, empty places left out."""
    return {p: tuple(sorted(c)) for p, c in places.items() if c}
