"""What the table is in the middle of, for one state of the game.

Every request and question of the ship phase is about the board of one state of
the game: the game and its journal's length. `Turns.now(game)` hands the state
for the game as it is; once the game changes (a move or a roll journalled, an
undo, a rewind, a corrected journal, a new game) it hands a fresh one. So
nothing asked about one state outlives it: a put-back request, a question's
moves, a "not yet", a move out of sight waiting for the rest of the board, the
ships the last move bumped. No caller checks for a stale request by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CaptureDoubt
from bermuda_hw.controller.referee import Group
from bermuda_hw.rules.candidates import Candidate, Consequence
from bermuda_hw.rules.game import Game


class Request(StrEnum):
    """Why the table is asked to put bumped ships back."""

    OUT_OF_SIGHT = "out of sight"  # a tie between a move out of sight and bumps not back
    BUMPS = "bumps"  # a tie between moves that all bumped ships, none back (`tied`)
    #: a move whose bumped ship is still on the landing space, in doubt: its own ship not
    #: seen there, or something else on the board the move does not explain
    DOUBTFUL_BUMP = "doubtful bump"


#: what a put-back request is about: the move's consequence (out of sight, doubtful bump)
#: or the tied moves' (bumps)
RequestKey = Consequence | tuple[Consequence, ...]


@dataclass
class PutBack:
    """A tie, or a move the board does not show whole, that the table is asked to settle by
    putting bumped ships back."""

    kind: Request
    key: RequestKey
    asked_s: float  # when this request was first made in this state of the game
    state: object | None  # what the board read at its last stable state
    quiet_s: float  # since when it has read that way, clear of hands
    tied: tuple[Group, ...] = ()  # moves whose bumped ships are out of their ports: the tie


@dataclass
class Bumped:
    """The ships the last move bumped, until the board shows them back in their ports (or,
    in ports the camera cannot see, the table says so with a press)."""

    landing: str
    ships: tuple[str, ...]
    #: the table's word (a press) that they are back in ports the camera cannot see
    on_word: bool = False


#: a question about captures under the cloud: the ships in doubt, the ships each of its
#: options has the magnets take, and whether it was asked before a pass
AskedCaptures = tuple[CaptureDoubt, tuple[frozenset[str], ...], bool]


@dataclass
class Turn:
    """The table's business with one state of the game (`game` at `count` entries)."""

    game: Game
    count: int
    #: the moves the pending question chooses between
    tied: tuple[Group, ...] = ()
    #: the places out of sight the pending question names ("did you make ...? The camera
    #: cannot see S23"): its yes is the table's word on them
    unseen: tuple[str, ...] = ()
    #: the move out of sight the pending question asks to confirm before the spin
    landing: Provisional | None = None
    #: the provisional captures the pending question asks about
    capture: AskedCaptures | None = None
    #: the put-back request standing now
    putback: PutBack | None = None
    #: when each request was first made, until the board next matches the game: a request
    #: made again counts its give-up from then. None: none asked since the board matched
    putback_first: dict[RequestKey, float] | None = None
    #: the requests that ran out (the table was asked instead): not made again
    ran_out: set[RequestKey] = field(default_factory=set)
    #: the board a player answered "not yet" on, and when
    not_yet: tuple[object | None, float] | None = None
    #: a move out of sight waiting for the rest of the board to match (its fix is shown),
    #: with its places out of sight
    waiting: tuple[Candidate, tuple[str, ...]] | None = None
    #: the ships the move that led here bumped, still to be put back
    bumped: Bumped | None = None


class Turns:
    """The state of the table's business for the game as it is now."""

    def __init__(self) -> None:
        self._turn: Turn | None = None

    def now(self, game: Game) -> Turn:
        """The state for `game` as it is: the same while it is unchanged, else a fresh one."""
        turn = self._turn
        if turn is None or turn.game is not game or turn.count != len(game.journal):
            turn = self._turn = Turn(game, len(game.journal))
        return turn
