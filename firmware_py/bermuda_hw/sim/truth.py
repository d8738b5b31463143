"""The simulated table's truth beside the controller's journal: true moves and the table invariant.

The simulated players record every move they truly make (`TrueMove`: the
die, the ship, where from and to, the ships it bumps) at the journal
position they saw when they made it. `compare_moves` replays a journal and
sets each committed move's consequence for the game (places, previous
ports, cards, totals) beside the consequence of the move the player truly
made from the same position; a move the player made against the rules
(`TrueMove.legal` False: a wrong count, into a full port, under the cloud)
that the journal commits is an illegal move journalled as legal, counted
apart from a legal move committed with another consequence. What else the
players truly did (a ship held in hand, a knock, an instruction ignored, the
option pressed beside the true one) is kept as `TrueAct`s beside the moves.
`table_differences` is the table invariant:
at a settled board, the world's ships by (colour, place), places the cloud
hides from the camera excluded (the shared cover model with the true pose),
equal the game's expected placement.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bermuda_hw.errors import describe_os_error
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM, hidden_circles, observability
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.rules.moves import MAX_DIE, Move, split_ship_id
from bermuda_hw.rules.record import replay
from bermuda_hw.sim.render import CameraModel
from bermuda_hw.sim.render.scene import CLOUD_HEIGHT_MM
from bermuda_hw.sim.world import World

log = logging.getLogger(__name__)

#: a token this close to a space's centre or a port's berth stands there (the rules' sweep
#: counts a ship wherever within this it stands)
PLACE_TOLERANCE_MM = STAND_TOLERANCE_MM
TRUTH_FILE = "truth.jsonl"

Place = tuple[str, str | None]  # (colour, space or port id; None: off every space)


def place_of(board: Board, point: Point) -> str | None:
    """The space or port a token standing at `point` is on (None: off every space)."""
    for port in board.ports.values():
        if any(math.dist(point, b) <= PLACE_TOLERANCE_MM for b in port.berths):
            return port.id
    space, distance_mm = board.nearest_space(*point)
    return space if distance_mm <= PLACE_TOLERANCE_MM else None


# --- true moves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrueMove:
    """A move a simulated player made on the table (a pass included)."""

    seq: int  # the journal's length when the player made it (the position it was made from)
    round: int
    color: str
    die: int
    move: str  # the rules' notation (`Move.parse` reads it back)
    ship: str | None
    start: str | None
    end: str | None
    bumps: tuple[str, ...] = ()
    legal: bool = True  # False: a move against the rules (the player miscounted, ...)
    illegal: str = ""  # what made it illegal: its kind and the rules' reason

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TrueMove:
        data = json.loads(text)
        data["bumps"] = tuple(data.get("bumps", ()))
        return cls(**data)


@dataclass(frozen=True)
class TrueAct:
    """Something a simulated player truly did besides a move: held a ship, knocked a token,
    let an instruction pass, pressed an answer (with the true one beside it)."""

    time_s: float  # the table's clock
    seq: int  # the journal's length then
    color: str  # the player who did it
    kind: str  # "hold", "knock", "ignore", "half-follow", "answer", "no answer", ...
    detail: str = ""
    #: for a wrong answer, the moves the option pressed stands for
    moves: tuple[str, ...] = ()


class TruthLog:
    """The true moves of one game, in order; appended to a JSON-lines file if given one.

    `acts` are the other things the players truly did, kept in memory only.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.unwritten = ""  # why the file could not be written, once it could not
        self.moves: list[TrueMove] = []
        self.acts: list[TrueAct] = []

    def act(self, act: TrueAct) -> None:
        self.acts.append(act)

    def record(self, move: TrueMove) -> None:
        self.moves.append(move)
        self._write("a", move.to_json() + "\n")

    def clear(self) -> None:
        """A new game begins: forget the moves (and empty the file)."""
        self.moves.clear()
        self.acts.clear()
        self._write("w", "")

    def _write(self, mode: str, text: str) -> None:
        """The file is the simulator's own record, beside the journal: a disk that refuses it
        (full, read-only) is said once and the moves are kept in memory; the table itself
        meets the same disk at its next commit and says so as it would on a rig."""
        if self.path is None or self.unwritten:
            return
        try:
            with self.path.open(mode, encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            self.unwritten = describe_os_error(exc)
            log.warning(
                "the simulated players' true moves are kept in memory only: %s", self.unwritten
            )

    @staticmethod
    def read(path: Path) -> list[TrueMove]:
        """The true moves stored in a file (none if it does not exist)."""
        if not path.exists():
            return []
        return [
            TrueMove.from_json(line)
            for line in path.read_text("utf-8").splitlines()
            if line.strip()
        ]


def true_move(game: Game, move: Move, die: int, illegal: str = "") -> TrueMove:
    """The record of `move` made with `die` from the game's position now; `illegal` says
    why when the player made it against the rules (it then bumps no ship)."""
    bumps: tuple[str, ...] = ()
    if not illegal and not move.is_pass and move.end is not None:
        short = move.end not in game.board.ports and move.steps < die
        if not short and move.end not in game.board.ports:
            bumps = tuple(s for s in game.ships_at(move.end) if s != move.ship)
    return TrueMove(
        seq=len(game.journal),
        round=game.round,
        color=game.active,
        die=die,
        move=str(move),
        ship=None if move.is_pass else move.ship,
        start=None if move.is_pass else move.start,
        end=None if move.is_pass else move.end,
        bumps=bumps,
        legal=not illegal,
        illegal=illegal,
    )


# --- consequences -------------------------------------------------------------------------


@dataclass(frozen=True)
class Consequence:
    """What a move leaves in the game: ships by colour, place, previous port and status;
    each colour's cards and total."""

    ships: tuple[tuple[str, str | None, str, str], ...]
    hands: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    totals: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, game: Game) -> Consequence:
        ships = sorted(
            (s.color, s.location or "", s.previous_port, s.status.value) for s in game.ships()
        )
        return cls(
            ships=tuple((c, loc or None, prev, st) for c, loc, prev, st in ships),
            hands=tuple((c, game.hand(c)) for c in game.players),
            totals=tuple(sorted(game.totals().items())),
        )

    def differences(self, other: Consequence) -> str:
        """In words, how `other` differs from this one (empty if it does not)."""
        parts = []
        mine, theirs = Counter(self.ships), Counter(other.ships)
        if mine != theirs:
            lost = sorted((mine - theirs).elements(), key=str)
            gained = sorted((theirs - mine).elements(), key=str)
            parts.append(f"ships {lost} -> {gained}")
        if self.hands != other.hands:
            parts.append("cards differ")
        if self.totals != other.totals:
            parts.append(f"totals {dict(self.totals)} -> {dict(other.totals)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class MoveCheck:
    """One committed move beside the move truly made from the same position."""

    index: int  # the committed move's index in the journal
    round: int
    color: str
    committed: str
    truth: TrueMove | None  # None: nobody made a move from that position
    wrong: str  # how the committed consequence differs from the true one ("" if it does not)
    #: the true move was against the rules only for the die the player rolled on the table,
    #: which the referee never saw: the same walk is a legal move for another roll, so no
    #: camera of the board can tell it (only a die read or rolled by the table can)
    die_unseen: bool = False
    #: the committed move is one the player named by pressing a wrong answer: the table
    #: took the player's word, on a board that could not tell the options apart
    answered_wrong: bool = False

    @property
    def illegal_as_legal(self) -> bool:
        """The player's true move was against the rules, and the journal committed a legal
        move for it (the referee should have named it illegal and had it corrected)."""
        return self.truth is not None and not self.truth.legal and not self.die_unseen

    @property
    def illegal_for_an_unseen_die(self) -> bool:
        """An illegal move the referee could not tell from a legal one: its walk is legal for
        another roll of a die the table never saw (`die_unseen`)."""
        return self.truth is not None and not self.truth.legal and self.die_unseen

    def __str__(self) -> str:
        if self.truth is None:
            true = "no move made"
        else:
            illegal = "" if self.truth.legal else ", illegal"
            true = f"{self.truth.move} (die {self.truth.die}{illegal})"
        return (
            f"round {self.round}, {self.color}: committed {self.committed}, "
            f"true {true}: {self.wrong or 'same consequence'}"
        )


def compare_moves(
    record: Mapping[str, Any],
    truths: Sequence[TrueMove],
    board: Board | None = None,
    acts: Sequence[TrueAct] = (),
) -> list[MoveCheck]:
    """Every move the journal commits, checked against the true move made from its position.

    The true move for the committed move at journal index j is the last one
    recorded at a position after the previous committed move and not after j
    (a player who tries again after a move was not taken records it again).
    A committed move that a wrong answer of its player named in that span (`acts`) is
    marked `answered_wrong`.
    """
    entries = list(record["journal"])
    checks: list[MoveCheck] = []
    previous = -1
    for index, entry in enumerate(entries):
        if "move" not in entry:
            continue
        before = replay({**record, "journal": entries[:index]}, board)
        color = before.active
        candidates = [t for t in truths if previous < t.seq <= index and t.color == color]
        truth = candidates[-1] if candidates else None
        committed = before.copy()
        committed.push(Move.parse(entry["move"]))
        die_unseen = False
        same_board = False
        after = Consequence.of(committed)
        rolled = index > 0 and entries[index - 1].get("engine") is True
        forced = (
            rolled
            and before.die is not None
            and before.legal_moves(before.die) == [Move.pass_turn(color)]
        )
        if truth is None and forced and Move.parse(entry["move"]).is_pass:
            # the virtual die rolled a number that leaves no move: the controller passes at
            # the press that rolled it, before any player could make a move
            wrong = ""
        elif truth is None:
            wrong = "no true move from this position"
        elif not truth.legal:
            wrong = f"an illegal move journalled as legal: {truth.illegal}"
            # the virtual die is rolled by the table (an engine roll): the referee knew it
            walk = Move.parse(truth.move)
            die_unseen = not rolled and any(
                walk in before.legal_moves(die) for die in range(1, MAX_DIE + 1)
            )
        else:
            alternative = before.copy()
            try:
                alternative.set_die(truth.die)
                alternative.push(Move.parse(truth.move))
            except ValueError as exc:
                wrong = f"the true move is not legal in the committed position: {exc}"
            else:
                wrong = Consequence.of(alternative).differences(after)
                same_board = contents(alternative) == contents(committed)
        # named by the player's wrong answer, where the board could not tell: the true
        # move leaves the same ships on every place (not a legal move the board contradicts)
        answered_wrong = (
            bool(wrong)
            and same_board
            and any(
                act.kind == "answer"
                and act.color == color
                and previous < act.seq <= index
                and entry["move"] in act.moves
                for act in acts
            )
        )
        checks.append(
            MoveCheck(
                index, before.round, color, entry["move"], truth, wrong, die_unseen, answered_wrong
            )
        )
        previous = index
    return checks


# --- the table invariant ------------------------------------------------------------------


def world_places(world: World, board: Board) -> Counter[Place]:
    """Where the world's tokens truly stand, by colour (ships inside the cloud excluded)."""
    carried = set(world.carried)
    return Counter(
        (split_ship_id(sid)[0], place_of(board, point))
        for sid, point in world.ship_positions().items()
        if sid not in carried
    )


def hidden_places(world: World, board: Board, camera: CameraModel | None = None) -> frozenset[str]:
    """The spaces and ports the cloud hides from the camera where it truly is.

    The shared cover model (`rules.cover`) with the world's true cloud centre and,
    given the camera, the true parallax of the cloud's raised body: the same disks
    vision works out from the marker it sees. Without a camera, the body alone.
    """
    if not world.cloud_on_board:
        return frozenset()
    cloud = world.cloud_mm
    if camera is None:
        circles = hidden_circles(board, cloud)
    else:
        apparent, scale = camera.parallax(cloud[0], cloud[1], CLOUD_HEIGHT_MM)
        circles = hidden_circles(board, cloud, apparent, scale)

    def hidden(point: Point) -> bool:
        return observability(point[0], point[1], circles) == 0.0

    out = {s.id for s in board.spaces.values() if hidden(s.position)}
    out.update(p.id for p in board.ports.values() if any(hidden(b) for b in p.berths))
    return frozenset(out)


@dataclass(frozen=True)
class TableDifference:
    """Where the world's truth and the game's expected placement disagree."""

    round: int
    seq: int
    mode: str
    only_in_game: tuple[Place, ...]
    only_on_table: tuple[Place, ...]

    def __str__(self) -> str:
        return (
            f"round {self.round} (journal {self.seq}, {self.mode}): game has "
            f"{list(self.only_in_game)}, table has {list(self.only_on_table)}"
        )


def _visible(places: Counter[Place], hidden: Iterable[str]) -> Counter[Place]:
    skip = set(hidden)
    return Counter({p: n for p, n in places.items() if p[1] is None or p[1] not in skip})


def table_differences(
    world: World, game: Game, mode: str = "", camera: CameraModel | None = None
) -> TableDifference | None:
    """The table invariant: None when the world's truth equals the game's placement
    (places the cloud hides from the camera excluded)."""
    board = game.board
    hidden = hidden_places(world, board, camera)
    truth = _visible(world_places(world, board), hidden)
    expected = _visible(
        Counter(
            (s.color, s.location)
            for s in game.ships()
            if s.location is not None and s.status is not ShipStatus.OUT
        ),
        hidden,
    )
    if truth == expected:
        return None
    return TableDifference(
        game.round,
        len(game.journal),
        mode,
        tuple(sorted((expected - truth).elements(), key=_place_key)),
        tuple(sorted((truth - expected).elements(), key=_place_key)),
    )


def _place_key(place: Place) -> tuple[str, str]:
    return (place[0], place[1] or "")


class InvariantWatch:
    """Checks the table invariant every time the controller settles on a board.

    Call `check()` after every controller step; `violations` lists each
    disagreement once per journal position.
    """

    SETTLED = frozenset({"ready", "spin", "over"})

    def __init__(
        self, controller: Any, world: World, camera: Callable[[], CameraModel | None] = lambda: None
    ) -> None:
        self.controller = controller
        self.world = world
        self.camera = camera  # the simulated camera's model, once it is open
        self.violations: list[TableDifference] = []
        self.checked = 0
        self._last: tuple[int, str] | None = None

    def check(self) -> None:
        status = self.controller.status
        game = self.controller.game
        mode = str(status.mode.value)
        if game is None or mode not in self.SETTLED or getattr(status, "unfinished", False):
            self._last = None
            return
        key = (status.seq, mode)
        if key == self._last:
            return
        self._last = key
        self.checked += 1
        diff = table_differences(self.world, game, mode, self.camera())
        if diff is not None:
            self.violations.append(diff)
