"""Hints for learners: what each legal move does, and why an attempted move is not legal.

Pure code: the engine decides everything. Each legal move is made on a copy
of the game to learn the card it takes and the ships it bumps; the danger of
the place it stops on comes from the spinner's exact odds
(`danger.place_odds`). An attempted move is given as the table sees it, a
ship taken from one place and set down on another, and explained in one
sentence (the engine's own reasons, `Game.why_illegal`, for a walk of the
right count; the count itself otherwise).

>>> from bermuda_hw.rules.game import Game
>>> game = Game.new(2, seed=1, first_player="yellow")
>>> game.set_die(3)
>>> [h.move for h in move_hints(game)] == game.legal_moves()
True
>>> why_illegal(game, "SUGAR", "SUGAR")
'a ship must move: yellow has a legal move with a 3 (ruling 8)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bermuda_hw.rules.danger import place_odds
from bermuda_hw.rules.events import BonusTaken, Bumped, CardTaken
from bermuda_hw.rules.game import Game, Phase, ShipStatus
from bermuda_hw.rules.moves import MAX_DIE, Move

__all__ = ["MoveHint", "move_hints", "why_illegal"]


@dataclass(frozen=True)
class MoveHint:
    """One legal move and what it would do."""

    move: Move
    #: The card it takes on docking: a product, "home" for a bonus card, None for no card.
    card: str | None
    card_usd: int
    #: The ships it sends back, each with the port it goes back to (ruling 5).
    bumps: tuple[tuple[str, str], ...]
    #: The chance that the next spin sweeps the moved ship where it stops (None for a pass;
    #: 0 for a move that ends the game).
    danger: Fraction | None
    #: A short move: as far as the ship can go toward the cloud or a closed port (ruling 7).
    short: bool


def move_hints(game: Game, die: int | None = None) -> list[MoveHint]:
    """The active player's legal moves (in `legal_moves` order), each with what it does.

    The die defaults to the rolled one. The game is not touched.
    """
    moves = game.legal_moves(die)
    if not moves:
        return []
    rolled = game.position.die if die is None else die
    trial = game.copy()
    base = game.position.with_die(rolled)
    held = len(trial.journal)
    swept = place_odds(game.board, game.pose).swept
    hints = []
    for move in moves:
        trial.position = base
        events = trial.push(move)
        over = trial.is_over()
        trial.pop(len(trial.journal) - held)
        card: str | None = None
        value = 0
        bumps = []
        for event in events:
            if isinstance(event, CardTaken):
                card, value = event.product, event.value_usd
            elif isinstance(event, BonusTaken):
                card, value = "home", event.value_usd
            elif isinstance(event, Bumped):
                bumps.append((event.ship, event.port))
        hints.append(
            MoveHint(
                move=move,
                card=card,
                card_usd=value,
                bumps=tuple(bumps),
                # a move that ends the game leaves no spin to come
                danger=None if move.is_pass else Fraction(0) if over else swept[move.end],
                short=not move.is_pass
                and move.end not in game.board.ports
                and rolled is not None
                and move.steps < rolled,
            )
        )
    return hints


def why_illegal(game: Game, start: str, end: str, die: int | None = None) -> str | None:
    """Why the active player may not take a ship from `start` and set it on `end`; None if legal.

    One sentence for the page: the wrong count, a full port, two own ships
    there already, the cloud in the way, a short move while a full one
    exists, a ship of another colour, and so on. The die defaults to the
    rolled one.
    """
    phase = game.phase
    if phase is Phase.OVER:
        return "the game is over"
    if phase is Phase.CLOUD:
        return "every player has moved: the cloud moves next"
    color = game.active
    if die is None:
        die = game.position.die
        if die is None:
            return f"{color} has not rolled the die yet"
    board = game.board
    for place in (start, end):
        if place not in board.spaces:
            return f"there is no place {place} on the board"
    own = [s for s in game.ships_at(start) if s.startswith(color + "-")]
    if not own:
        others = game.ships_at(start)
        if others:
            return f"{start} holds {', '.join(others)}, not a {color} ship: it is {color}'s turn"
        return f"there is no {color} ship at {start}"
    legal = game.legal_moves(die)
    if len(legal) == 1 and legal[0].is_pass:
        return f"{color} has no legal move with a {die} and passes (ruling 8)"
    if any(not m.is_pass and m.start == start and m.end == end for m in legal):
        return None
    if start == end:
        return f"a ship must move: {color} has a legal move with a {die} (ruling 8)"
    free = [s for s in own if game.ship(s).status is ShipStatus.ON_BOARD]
    if not free:
        return f"{own[0]} is under the cloud at {start} and cannot move (ruling 6)"
    ship = free[0]
    walks = _walks(game, start, end)
    if not walks:
        return f"{end} is more than {MAX_DIE} spaces from {start}; the die shows {die}"
    plain = [w for w in walks if _stops_nowhere(board.ports, w)]
    if not plain:
        port = next(space for space in walks[0][1:-1] if space in board.ports)
        return (
            f"{end} lies beyond {port} from {start}, and a ship that enters a port ends "
            "its move there (ruling 3)"
        )
    to_port = end in board.ports

    def fits(walk: tuple[str, ...]) -> bool:
        steps = len(walk) - 1
        return steps <= die if to_port else steps == die

    fitting = [w for w in plain if fits(w)]
    if not fitting:
        if to_port:
            shortest = min(len(w) - 1 for w in plain)
            return f"{end} is {shortest} spaces from {start}; the die shows {die}"
        for walk in plain:
            if len(walk) - 1 < die and _toward_obstacle(game, ship, walk):
                reason = game.why_illegal(Move(ship, walk), die)
                if reason is not None:
                    return reason
        said = " or ".join(str(c) for c in sorted({len(w) - 1 for w in plain}))
        said += " space" if said == "1" else " spaces"
        if any(m.start == start and m.steps < die for m in legal):
            return (
                f"{end} is {said} from {start}: a ship that cannot go the full "
                f"{die} stops on the last free space before the obstacle (ruling 7)"
            )
        return f"{end} is {said} from {start} along the paths; the die shows {die}"
    # a walk of the right count is not legal: the engine says why
    return next(
        (r for r in (game.why_illegal(Move(ship, w), die) for w in fitting) if r is not None), None
    )


def _toward_obstacle(game: Game, ship: str, walk: tuple[str, ...]) -> bool:
    """Whether a walk stops just before the cloud or a port its ship may not enter (ruling 7)."""
    for there in game.board.adjacency[walk[-1]]:
        if there in walk:
            continue
        if there in game.blocked:
            return True
        if there in game.board.ports:
            reason = game.why_illegal(Move(ship, (*walk, there)), len(walk))
            if reason is not None and "(ruling 4)" in reason:
                return True
    return False


def _stops_nowhere(ports: Mapping[str, object], walk: tuple[str, ...]) -> bool:
    """Whether a walk passes through no port (a walk must end at the first port it enters)."""
    return not any(space in ports for space in walk[1:-1])


def _walks(game: Game, start: str, end: str) -> list[tuple[str, ...]]:
    """Every walk of up to `MAX_DIE` steps from `start` to `end` that never revisits a space.

    Ports and the cloud do not stop these walks: they are what the engine is
    then asked about.
    """
    adjacency = game.board.adjacency
    found: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [(start,)]
    while stack:
        walk = stack.pop()
        for there in sorted(adjacency[walk[-1]]):
            if there in walk:
                continue
            longer = (*walk, there)
            if there == end:
                found.append(longer)
            elif len(longer) - 1 < MAX_DIE:
                stack.append(longer)
    return sorted(found, key=lambda w: (len(w), w))
