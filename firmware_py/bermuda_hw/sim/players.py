"""Simulated players at the simulated table: they roll, move ship tokens, fix the board, spin.

The players act in the `World` (the truth of the simulated table) between
camera frames, as people do in front of a real camera. They know the rules:
each keeps a rules engine in step with what the controller announces (its
public status, as a status page shows it), rolls a virtual die, picks a legal
move and moves the token by hand. They put bumped ships back (at once, or
only when the controller asks: by naming the ship, or by asking for any
ship the move bumped; always then when it told them, with the roll, to leave
a ship they land on where it is), take captured ships out of the cloud when it
reaches an outside dot, follow the controller's requests to fix the board,
sometimes reach over the board with a hand, and press the spin button
through its mock pin.

How each player behaves is their `PlayerStyle`, per player and mixable
(`styles_for`): "obedient" (the default) always follows the table and moves
by the rules; "people" does what people at a real table do at the rates
documented on `PEOPLE`: holds a ship in hand while thinking, sets tokens
down off centre at any heading, lingers over the board or reaches in with a
second hand, knocks a neighbour's token, lets an instruction pass or
follows it in part, miscounts or makes another illegal move, answers late,
never, or with the wrong option. Everything they do is physical (a held
ship is off the table, a hand occludes the frames) and goes through what the
camera and the buttons show; what they truly did goes into the truth log.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bermuda_hw.controller.questions import BEFORE_SPIN, UNDER_THE_CLOUD
from bermuda_hw.controller.status import (
    NONE_OF_THESE,
    NOT_YET,
    ControllerView,
    Mode,
    Question,
)
from bermuda_hw.errors import ConfigError, RulesError
from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.rules.computer import TABLE_SEAT
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.rules.moves import MAX_DIE, Move, split_ship_id, walk_table
from bermuda_hw.sim.render import Hand
from bermuda_hw.sim.scene import WorldScene
from bermuda_hw.sim.truth import (
    PLACE_TOLERANCE_MM,
    Consequence,
    TrueAct,
    TrueMove,
    TruthLog,
    place_of,
    true_move,
)
from bermuda_hw.sim.world import World

BESIDE_MM = 5.0  # a token put down beside another stands at least this far from its centre
BESIDE_MAX_MM = 7.0  # ... and within the space (a token's beam is 9 mm)
FRAME_S = 0.1  # the table's time per frame when the players are given no clock
KNOCK_REACH_MM = 40.0  # a hand setting a token down can knock one standing this close
#: No hand sets a token down exactly where it aims: a token set squarely on a spot lands
#: this far off it per axis, and turned this far off the heading it aims at (the
#: referee's model of a hand, `controller.moved.HAND_MM`, assumes less: it must not count
#: on the players' scatter). Drawn from a source of its own, so that the players' other
#: choices are as they were without it.
AIM_SD_MM = 0.6
AIM_SD_DEG = 5.0
ILLEGAL_KINDS = ("miscount", "full port", "under the cloud")
#: after a fault the players read the table's message this long before they act on it (and
#: press spin again no sooner after a press that did not end the fault)
FAULT_READ_S = 5.0
#: what a homing refused for names as in the cloud's way ("... passes near blue-4, the red
#: ship at (120, 40) mm. Clear the way ..."): the game's ships, and ships the camera saw
_IN_THE_WAY = re.compile(r"passes near (.*?)\. Clear the way")
_NAMED_SHIP = re.compile(r"([a-z]+-\d+)|the ([a-z]+) ship at \((-?\d+), (-?\d+)\) mm")

Range = tuple[float, float]


#: A fix asked this many times for a ship that stands where it is asked for: a person
#: straightens it (the camera may read it so, off centre or turned, as another colour)
NUDGE_AFTER = 2


@dataclass(frozen=True)
class PlayerStyle:
    """How one player at the simulated table behaves: chances per occasion, ranges of
    seconds and millimetres. Every draw comes from the player's own seeded random source,
    so a game is reproduced from its seed."""

    name: str = "obedient"
    #: a hand over the board for a frame or two when setting a token down
    hand_chance: float = 0.2
    #: a bumped ship is left beside the mover until the table asks for it
    late_putback_chance: float = 0.5
    #: the ship is lifted and held in hand (off the table) while thinking, for hold_s
    hold_chance: float = 0.0
    hold_s: Range = (0.0, 30.0)
    #: a token is set down off the space's centre by off_centre_mm, at any heading
    off_centre_chance: float = 0.0
    off_centre_mm: Range = (2.0, 6.0)
    #: the hand stays over the board for linger_s after setting a token down
    linger_chance: float = 0.0
    linger_s: Range = (1.0, 6.0)
    #: a second hand reaches in (to point, to steady the board) for linger_s
    second_hand_chance: float = 0.0
    #: a neighbour's token within reach is knocked by knock_mm (it stays on its place)
    knock_chance: float = 0.0
    knock_mm: Range = (1.0, 5.0)
    #: an instruction from the table (put back, leave it, fix) is let pass for ignore_s;
    #: told to leave a landed-on ship, the bumped ship is put back at once instead
    ignore_chance: float = 0.0
    ignore_s: Range = (10.0, 40.0)
    #: a ship landed on and put back at once is lifted off and taken to its port before
    #: the mover is set down on the space (aimed at its centre, as any token is set
    #: down), instead of the mover set down beside it first
    putback_first_chance: float = 0.0
    #: a ship of the player's own colour landed on and put back at once from beside the
    #: mover: the two tokens are alike, and the player lifts the mover instead and takes it
    #: to the port; the ship landed on stands where it stood, untouched
    swap_chance: float = 0.0
    #: an instruction is followed in part: one fix now and the rest after follow_s; a
    #: bumped ship lifted and held for follow_s before it goes to its port
    half_follow_chance: float = 0.0
    follow_s: Range = (2.0, 10.0)
    #: per turn, a move against the rules (when the board offers one): a wrong count
    #: (one space short or long), into a full port, onto a space under the cloud
    miscount_chance: float = 0.0
    full_port_chance: float = 0.0
    under_cloud_chance: float = 0.0
    #: per question: answered after late_answer_s; not answered at all (until it is asked
    #: again); answered with an option other than the true one (or with one when none is)
    late_answer_chance: float = 0.0
    late_answer_s: Range = (3.0, 30.0)
    no_answer_chance: float = 0.0
    wrong_answer_chance: float = 0.0
    #: after acting (a token set down, a fix made, a press), the player watches the table
    #: for up to patience_s for it to react (a new reading of the board or a new message)
    #: before acting on what it shows; 0: acts on what the table shows at once
    patience_s: float = 0.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name.endswith("_chance") and not 0.0 <= value <= 1.0:
                raise ConfigError(
                    None,
                    f"style {self.name}.{f.name}",
                    f"must be a chance from 0 to 1, not {value!r}",
                )
            if isinstance(value, tuple) and not 0.0 <= value[0] <= value[1]:
                raise ConfigError(
                    None,
                    f"style {self.name}.{f.name}",
                    f"must be a range (low, high) with 0 <= low <= high, not {value!r}",
                )


#: The players the referee was first built for: they follow every instruction at once, move
#: by the rules, answer every question at once and truly.
OBEDIENT = PlayerStyle()

#: People at a real table. The rates are per occasion (a move, a token set down, an
#: instruction, a question) and are rough figures for a casual family table, chosen so
#: that every behaviour happens several times in a game of ~100 moves:
#: - a quarter of the moves are thought over with the ship in hand (people pick a ship up
#:   before they decide), for 0-30 s drawn evenly (the long holds, rarer at a real table,
#:   are the ones a referee must not take for a move, so they are not made rare here);
#: - most tokens are not centred: 2-6 mm off the centre is what a hand leaves on a 20 mm
#:   space, and nobody turns a token to the path's heading;
#: - a hand stays over the board after one move in four; a second hand (pointing, holding
#:   the board) in one of ten; a neighbour's token is knocked in one of twenty;
#: - one instruction in four is not heard at first (talk at the table, a phone) and is
#:   followed 10-40 s later; one in seven is followed in part;
#: - people put a ship they bump back at once (the rules say so), so they leave it for the
#:   table to ask for in one bump of five; half of those who put it back at once lift it
#:   off before they set their own ship down on the space;
#: - one move in twenty-five is miscounted (by one space: the commonest slip with a die),
#:   one in fifty goes into a full port or under the cloud when the board offers that;
#: - one question in four is answered late (3-30 s), one in ten not at all until it is
#:   asked again, one in twenty with the wrong option (a press too many or too few).
PEOPLE = PlayerStyle(
    name="people",
    hand_chance=0.2,
    late_putback_chance=0.2,
    hold_chance=0.25,
    hold_s=(0.0, 30.0),
    off_centre_chance=0.7,
    off_centre_mm=(2.0, 6.0),
    linger_chance=0.25,
    linger_s=(1.0, 6.0),
    second_hand_chance=0.1,
    knock_chance=0.05,
    knock_mm=(1.0, 5.0),
    ignore_chance=0.25,
    ignore_s=(10.0, 40.0),
    putback_first_chance=0.5,
    swap_chance=0.3,
    half_follow_chance=0.15,
    follow_s=(2.0, 10.0),
    miscount_chance=0.04,
    full_port_chance=0.02,
    under_cloud_chance=0.02,
    late_answer_chance=0.25,
    late_answer_s=(3.0, 30.0),
    no_answer_chance=0.1,
    wrong_answer_chance=0.05,
    patience_s=10.0,
)

STYLES: dict[str, PlayerStyle] = {s.name: s for s in (OBEDIENT, PEOPLE)}


def styles_for(name: str, colors: tuple[str, ...] | list[str]) -> dict[str, PlayerStyle]:
    """Each player's style for a set's name: one style's name for every player
    ("obedient", "people"), "mixed" (people and obedient players in turn round the table,
    people first), or style names joined by "+" given to the seats in turn."""
    parts = ["people", "obedient"] if name == "mixed" else name.split("+")
    unknown = [p for p in parts if p not in STYLES]
    if unknown or not parts:
        raise ConfigError(
            None,
            "style",
            f"no player style {', '.join(unknown) or name!r}: "
            f"the styles are {', '.join(STYLES)} (or 'mixed', or styles "
            "joined by '+')",
        )
    return {c: STYLES[parts[i % len(parts)]] for i, c in enumerate(colors)}


@dataclass
class _Held:
    """A ship lifted for a move and held in hand while its player thinks."""

    token: str
    start: Point
    target: Point
    heading_deg: float | None
    move: Move
    die: int
    illegal: str
    record: TrueMove
    made_from: int  # the journal's length when the ship was lifted
    until_s: float


class SimulatedPlayers:
    """The people at the simulated table; `tick()` runs before every camera frame."""

    def __init__(
        self,
        controller: ControllerView,
        world: World,
        scene: WorldScene,
        spin_pin: Any,
        *,
        seed: int = 0,
        pause_frames: int = 3,
        retry_frames: int = 15,
        hand_chance: float | None = None,
        late_putback_chance: float | None = None,
        truth: TruthLog | None = None,
        style: str | PlayerStyle | Mapping[str, PlayerStyle] = "obedient",
        clock: Callable[[], float] | None = None,
        presses_spin: bool = True,
    ) -> None:
        self.controller = controller
        #: False: the players leave the spin to the page (or a person at the button)
        self.presses_spin = presses_spin
        self.world = world
        self.scene = scene
        self.board: Board = controller.board
        self.spin_pin = spin_pin
        self.rng = random.Random(f"players:{seed}")
        self.pause_frames = pause_frames
        self.retry_frames = retry_frames
        self._acted_frame = 0
        self._undo: dict[str, Point] = {}
        self._undo_seq = -1
        colors = tuple(controller.game.players) if controller.game is not None else ()
        self._style_name = style if isinstance(style, str) else None
        if isinstance(style, str):
            self.styles = styles_for(style, colors)  # again once the game's players are known
            self.default_style = STYLES.get(style, OBEDIENT)
        elif isinstance(style, PlayerStyle):
            self.styles = dict.fromkeys(colors, style)
            self.default_style = style
        else:
            self.styles = dict(style)
            self.default_style = OBEDIENT
        overrides: dict[str, float] = {}
        if hand_chance is not None:
            overrides["hand_chance"] = hand_chance
        if late_putback_chance is not None:
            overrides["late_putback_chance"] = late_putback_chance
        self._overrides = overrides
        if overrides:
            self.styles = {
                c: dataclasses.replace(s, **overrides)  # type: ignore[arg-type]
                for c, s in self.styles.items()
            }
            self.default_style = dataclasses.replace(self.default_style, **overrides)  # type: ignore[arg-type]
        self.seed = seed
        self.clock = clock
        self._rngs: dict[str, random.Random] = {}
        self._aim = random.Random(f"aim:{seed}")  # where a hand truly sets a token (AIM_SD_MM)
        self._holding: _Held | None = None
        # tokens held to be set down later: (when, token, where, heading)
        self._scheduled: list[tuple[float, str, Point, float | None]] = []
        self._busy_until_s = 0.0
        self._hand_until_s: float | None = None
        self._other_hand_until_s: float | None = None
        self._deferred: dict[tuple[str, int, str], float] = {}
        self._fault_since_s: float | None = None  # when the players saw the table's fault
        self._illegal_at = -1  # the journal's length at the last illegal move made
        self._told_die = -1  # the journal's length when a computer seat's die was told
        self._redo: tuple[int, int] | None = None  # (journal length, die) to move again with
        self._asked: Question | None = None
        self._answer_due_s = 0.0
        self.frame = 0
        self._next_frame = 0
        # what the table showed when the players last acted, and when: a person waits for
        # the table to react before following an instruction it showed before
        self._awaiting: tuple[tuple[object, ...], float] | None = None
        self._acted_seq = -1
        self._hand_frames = 0
        self.knowledge: Game | None = None
        self._roll = 0  # the last die rolled and move made, to answer the controller
        self._move = ""
        # the move made on the table and the journal's length then: until the controller
        # takes it, the players count it in what the game should show
        self._made: tuple[int, Move, int] | None = None
        self._moved_token: str | None = None  # the token of that move
        self._answered: Question | None = None
        self.actions: list[str] = []
        #: tokens taken out of the cloud at an outside dot: out of the game for good
        self.out_of_game: set[str] = set()
        #: every move the players truly make, at the journal position they made it from
        self.truth = truth if truth is not None else TruthLog()

    def attach(self) -> None:
        """Act before every frame the simulated camera takes."""
        self.scene.before_frame.append(self.tick)

    # --- each frame ---------------------------------------------------------------------

    def tick(self) -> None:
        self.frame += 1
        now = self.now_s()
        if self._hand_frames > 0:
            self._hand_frames -= 1
            if self._hand_frames == 0:
                self.scene.hand = None
        if self._hand_until_s is not None and now >= self._hand_until_s:
            self.scene.hand, self._hand_until_s = None, None
        if self._other_hand_until_s is not None and now >= self._other_hand_until_s:
            self.scene.other_hand, self._other_hand_until_s = None, None
        self._set_down_scheduled(now)
        self._empty_cloud_at_edge()
        status = self.controller.status
        if self._undo and status.seq != self._undo_seq:
            self._undo = {}  # the controller took the move
        if self.frame < self._next_frame or self.controller.game is None:
            return
        if self._holding is not None:
            if now >= self._holding.until_s:
                self._set_down(self._holding)
                self._acted_frame = self.frame
                self._wait()
            return  # thinking, ship in hand: the table's requests go unheard
        if now < self._busy_until_s:
            return
        if self._awaiting is not None:
            shown, since_s = self._awaiting
            if shown == self._shown() and now - since_s < self.style().patience_s:
                return  # the table has not looked at what was just done
            self._awaiting = None
        mode = status.mode
        if mode is not Mode.FAULT:
            self._fault_since_s = None
        if mode is Mode.FAULT:
            self._recover()
            return
        if mode is Mode.ASK:
            self._answer()
            return
        if mode in (Mode.SETUP, Mode.FIX):
            if not self.world.ship_positions():
                self._set_up()
            elif status.fix is not None:
                if self._ignored("fix"):
                    return
                # the fix the controller names, even when it was asked after our own move
                self._undo = {}
                missing, extra = status.fix.missing, status.fix.extra
                if status.back_unseen and self._stands_as_asked(missing, extra):
                    # a bumped ship asked back into a port the camera cannot see stands
                    # there already: the table asks for a press to say so
                    self.actions.append(f"press spin: back already ({status.message})")
                    self._press()
                    self._wait()
                    return
                if len(missing) + len(extra) > 1 and self._chance("half_follow_chance"):
                    # one of the fixes now, the rest when asked again after a while
                    missing, extra = (missing[:1], ()) if missing else ((), extra[:1])
                    self._busy_until_s = self.now_s() + self._draw("follow_s")
                    self._act("half-follow", f"fix: {missing or extra} of {status.message}")
                self._fix(missing, extra)
            elif status.putback:
                if self._ignored("put back"):
                    return
                self._put_back_bumped(later=self._chance("half_follow_chance"))
            self._wait()
        elif mode in (Mode.READY, Mode.SPIN):
            if status.seq == self._acted_seq:
                if self.frame - self._acted_frame < self.retry_frames:
                    return
                if self._undo:
                    # the controller did not take the move: put the tokens back, try again
                    for token, point in self._undo.items():
                        self.world.place_ship(token, *point)
                    self.actions.append("no reaction: tokens put back")
                    self._undo = {}
                    self._acted_seq = -1
                    self._wait()
                    return
            self._acted_seq = status.seq
            self._acted_frame = self.frame
            self._undo = {}
            if mode is Mode.READY:
                self._turn()
            elif self.presses_spin:
                self.actions.append("press spin")
                self._press()
            self._wait()

    def on_clock(self) -> None:
        """The table's clock moved on. In a fault the controller reads no frames, so the
        players act on the clock instead: they read the message, clear the way if it asks,
        and press spin."""
        if self.controller.status.mode is Mode.FAULT:
            self.tick()

    def _recover(self) -> None:
        """After a fault: the table says what to do and to press spin. The players lift
        the ships a refused homing names as in the cloud's way off the board (the table
        asks for them back once it has homed), then press spin."""
        now = self.now_s()
        if self._fault_since_s is None:
            self._fault_since_s = now
        if now - self._fault_since_s < FAULT_READ_S:
            return
        in_the_way = _IN_THE_WAY.search(self.controller.status.message)
        for named in _NAMED_SHIP.finditer(in_the_way.group(1) if in_the_way else ""):
            sid = named.group(1) or self._token_near(
                named.group(2), (float(named.group(3)), float(named.group(4)))
            )
            if (
                sid is not None
                and sid in self.world.ship_positions()
                and sid not in self.world.carried
            ):
                self.world.remove(sid)
                self.actions.append(f"clear the way: {sid} lifted off the board")
        self.actions.append("press spin after the fault")
        self._press()
        self._fault_since_s = now  # again after FAULT_READ_S if the fault stays

    def _token_near(self, color: str, point: Point) -> str | None:
        """The token of a colour standing nearest a point on the board (not in the cloud)."""
        mine = [
            (math.dist(p, point), sid)
            for sid, p in self.world.ship_positions().items()
            if split_ship_id(sid)[0] == color and sid not in self.world.carried
        ]
        return min(mine)[1] if mine else None

    def _wait(self) -> None:
        self._next_frame = self.frame + self.pause_frames
        self._awaiting = (self._shown(), self.now_s())

    def _shown(self) -> tuple[object, ...]:
        """What the table shows, and how many boards it has read: what the players watch
        for a reaction."""
        status = self.controller.status
        return (status.mode, status.message, status.seq, status.observations)

    # --- the players' styles ------------------------------------------------------------

    def now_s(self) -> float:
        """The table's time (its clock, else the frames counted at FRAME_S)."""
        return self.clock() if self.clock is not None else self.frame * FRAME_S

    def _color(self) -> str:
        game = self.controller.game
        return game.active if game is not None else ""

    def style(self, color: str | None = None) -> PlayerStyle:
        """The style of a player (the active one by default)."""
        color = color if color is not None else self._color()
        game = self.controller.game
        if color not in self.styles and self._style_name is not None and game is not None:
            self.styles = {
                c: dataclasses.replace(s, **self._overrides)  # type: ignore[arg-type]
                for c, s in styles_for(self._style_name, game.players).items()
            }
        return self.styles.get(color, self.default_style)

    def rng_of(self, color: str | None = None) -> random.Random:
        """A player's own random source for their style's choices, seeded from the game's
        seed and their colour (apart from the one the obedient behaviour draws from)."""
        color = color if color is not None else self._color()
        rng = self._rngs.get(color)
        if rng is None:
            rng = self._rngs[color] = random.Random(f"people:{self.seed}:{color}")
        return rng

    def _chance(self, rate: str, color: str | None = None) -> bool:
        """Whether a behaviour of the player's style happens on this occasion."""
        p = float(getattr(self.style(color), rate))
        return p > 0.0 and self.rng_of(color).random() < p

    def _draw(self, span: str, color: str | None = None) -> float:
        low, high = getattr(self.style(color), span)
        return float(self.rng_of(color).uniform(low, high))

    def _act(
        self, kind: str, detail: str = "", color: str | None = None, moves: tuple[str, ...] = ()
    ) -> None:
        game = self.controller.game
        color = color if color is not None else self._color()
        seq = len(game.journal) if game else 0
        self.truth.act(TrueAct(self.now_s(), seq, color, kind, detail, moves))
        self.actions.append(f"{color} {kind}: {detail}")

    def _ignored(self, kind: str) -> bool:
        """Whether the active player lets the table's instruction of this kind pass for now
        (decided once per instruction; followed once ignore_s is over)."""
        status = self.controller.status
        key = (kind, status.seq, status.message)
        until = self._deferred.get(key)
        if until is None:
            until = 0.0
            if self._chance("ignore_chance"):
                until = self.now_s() + self._draw("ignore_s")
                self._act("ignore", f"{kind}: {status.message} (for {until - self.now_s():.0f} s)")
            self._deferred[key] = until
        return self.now_s() < until

    def _set_down_scheduled(self, now: float) -> None:
        for item in [i for i in self._scheduled if i[0] <= now]:
            self._scheduled.remove(item)
            _, token, point, heading_deg = item
            self.world.place_ship(token, *point, heading_deg=heading_deg)
            self.actions.append(f"set down {token} at last")

    def _placement(self, place: str, point: Point, color: str) -> tuple[Point, float | None]:
        """Where a hand truly sets a token meant for `point` at `place` down, and its
        heading (None: turned like the space): off centre at any heading when the style
        says so and the token has its space or berth to itself (a token set beside another
        is off centre already)."""
        centres = (
            self.board.ports[place].berths
            if place in self.board.ports
            else ((self.board.spaces[place].position,) if place in self.board.spaces else ())
        )
        if point not in centres:
            return point, None  # beside another token: off centre already, at its place
        if not self._chance("off_centre_chance", color):
            return self._aimed(place, point)
        rng = self.rng_of(color)
        off_mm = self._draw("off_centre_mm", color)
        angle = rng.uniform(0.0, 360.0)
        ux, uy = heading_vector(angle)
        self._act("off centre", f"{off_mm:.1f} mm on {place}", color)
        return (point[0] + off_mm * ux, point[1] + off_mm * uy), rng.uniform(0.0, 360.0)

    def _aimed(self, place: str | None, point: Point) -> tuple[Point, float]:
        """Where a hand sets a token it aims squarely at `point` on `place` (turned like
        the place: a path space's heading, else north) truly lands, and its heading."""
        space = self.board.spaces.get(place or "")
        heading = space.heading_deg if space is not None and place not in self.board.ports else 0.0
        aim = self._aim
        return (
            (point[0] + aim.gauss(0.0, AIM_SD_MM), point[1] + aim.gauss(0.0, AIM_SD_MM)),
            heading + aim.gauss(0.0, AIM_SD_DEG),
        )

    def _after_set_down(self, token: str, point: Point, color: str) -> None:
        """A lingering hand, a second hand, a knocked neighbour: what a hand does about a
        token it has just set down."""
        rng = self.rng_of(color)
        now = self.now_s()
        if self._chance("linger_chance", color):
            self.scene.hand = Hand(point[0], point[1], side=rng.choice("NESW"))  # type: ignore[arg-type]
            self._hand_frames = 0
            self._hand_until_s = now + self._draw("linger_s", color)
            self._act("linger", f"over {token}", color)
        if self._chance("second_hand_chance", color):
            x, y = (
                rng.uniform(0.25, 0.75) * self.board.width_mm,
                rng.uniform(0.25, 0.75) * self.board.height_mm,
            )
            self.scene.other_hand = Hand(x, y, side=rng.choice("NESW"))  # type: ignore[arg-type]
            self._other_hand_until_s = now + self._draw("linger_s", color)
            self._act("second hand", f"at ({x:.0f}, {y:.0f}) mm", color)
        if self._chance("knock_chance", color):
            self._knock(token, point, color)

    def _knock(self, mover: str, point: Point, color: str) -> None:
        """A neighbour's token within reach is pushed a little; it stays on its place."""
        rng = self.rng_of(color)
        carried = self.world.carried
        near = sorted(
            sid
            for sid, p in self.world.ship_positions().items()
            if sid != mover and sid not in carried and math.dist(p, point) <= KNOCK_REACH_MM
        )
        if not near:
            return
        sid = rng.choice(near)
        where = self.world.ship_positions()[sid]
        place = self._place_of(where)
        push_mm = self._draw("knock_mm", color)
        for _ in range(8):
            ux, uy = heading_vector(rng.uniform(0.0, 360.0))
            knocked = (where[0] + push_mm * ux, where[1] + push_mm * uy)
            if self._place_of(knocked) == place:
                heading = self.world.heading_of(sid)
                self.world.place_ship(
                    sid,
                    *knocked,
                    heading_deg=None if heading is None else heading + rng.uniform(-20.0, 20.0),
                )
                self._act("knock", f"{sid} {push_mm:.1f} mm at {place}", color)
                return

    def _press(self) -> None:
        self.spin_pin.drive_low()
        self.spin_pin.drive_high()

    def _reach(self, point: Point) -> None:
        """A hand over the board for a frame or two (the camera must wait)."""
        if self.rng.random() < self.style().hand_chance:
            self.scene.hand = Hand(point[0], point[1], side=self.rng.choice("NESW"))  # type: ignore[arg-type]
            self._hand_frames = 2

    # --- knowledge ----------------------------------------------------------------------

    def _know(self) -> Game:
        game = self.controller.game
        assert game is not None
        if self.knowledge is None or self.knowledge.journal != game.journal:
            self.knowledge = game.copy()
            if not game.journal:
                # a new game: the ships an earlier game lost are back in the box
                self.out_of_game.clear()
        return self.knowledge

    # --- actions ------------------------------------------------------------------------

    def _set_up(self) -> None:
        game = self._know()
        for sid, (x_mm, y_mm) in game.ship_positions().items():
            ship = game.ship(sid)
            point, heading = self._aimed(ship.location, (x_mm, y_mm))
            self.world.place_ship(sid, *point, heading_deg=heading)
        self.actions.append("set up the ships")

    def _answer(self) -> None:
        """Answer the controller's question from the roll and move made: k presses for
        option k, once per question (late, never, or with another option as the asked
        player's style has it)."""
        question = self.controller.status.question
        if question is None or question is self._answered:
            return
        color = question.color or self._color()
        if question is not self._asked:
            self._asked, self._answer_due_s = question, self.now_s()
            if self._chance("no_answer_chance", color):
                self._answered = question
                self._act("no answer", question.text, color)
                return
            if self._chance("late_answer_chance", color):
                self._answer_due_s = self.now_s() + self._draw("late_answer_s", color)
        if self.now_s() < self._answer_due_s:
            return
        self._answered = question
        n = len(question.options)
        landing = f", {BEFORE_SPIN}: " in question.text
        if f", {UNDER_THE_CLOUD}: " in question.text:
            # which ships the cloud took where the camera cannot see: the players look
            true_k: int | None = self._captures_seen(question)
            landing = True  # (the table says what to set back, if anything)
        elif landing:
            # before the spin: whether a ship stands where a move of this round put it; the
            # players look (a token of its colour there), whoever moved it
            move = Move.parse(question.moves[0][0])
            there = self._token_at(move.color, move.end) is not None
            true_k = 1 if there else None
        else:
            true_k = next(
                (
                    k
                    for k, (dice, moves) in enumerate(
                        zip(question.dice, question.moves, strict=True), 1
                    )
                    if (dice and self._roll in dice) or (not dice and self._move in moves)
                ),
                None,
            )
        if true_k is None and NONE_OF_THESE in question.options:
            # none of the moves is what was done: the table offers to say so
            true_k = question.options.index(NONE_OF_THESE) + 1
        pressed = true_k
        if n and self._chance("wrong_answer_chance", color):
            others = [k for k in range(1, n + 1) if k != true_k]
            if others:
                pressed = self.rng_of(color).choice(others)
        if pressed != true_k:
            self._act(
                "answer",
                f"pressed {pressed} for {true_k or 'none of these'}: {question.text}",
                color,
                question.moves[pressed - 1] if pressed is not None else (),
            )
        if pressed is not None:
            self.actions.append(f"answer {pressed}: {question.options[pressed - 1]}")
            for _ in range(pressed):
                self._press()
            if question.options[pressed - 1] != NONE_OF_THESE or landing:
                return  # (before the spin the table is told what to set back)
            # told "none of these" was taken: the board goes back as the game has it, and
            # the move is made again
        # none of the options is what was done: take the move back and make it again
        for token, point in self._undo.items():
            self.world.place_ship(token, *point)
        self._undo = {}
        self._acted_seq = -1
        self.actions.append(f"cannot answer: {question.text}; move taken back")

    def _turn(self) -> None:
        game = self._know()
        status = self.controller.status
        color = game.active
        at = len(game.journal)
        table_seat = color in dict(game.options.computer)
        if table_seat:
            followed = self._table_seat(game, at)
            if followed is None:
                return
            die, move = followed
            illegal = ""
        elif game.options.die == "virtual":
            if status.die is None:
                self.actions.append(f"{game.active} presses spin to roll")
                self._press()
                return
            die = status.die
        elif self._redo is not None and self._redo[0] == at:
            die = self._redo[1]  # moving again after an illegal move: the same roll
        else:
            die = self.rng.randint(1, MAX_DIE)
        if not table_seat:
            moves = game.legal_moves(die)
            move = moves[0] if len(moves) == 1 else self.rng.choice(moves)
            illegal = ""
            if self._illegal_at != at and not (self._redo is not None and self._redo[0] == at):
                wrong = self._illegal_move(game, die)
                if wrong is not None:
                    move, illegal = wrong
                    self._illegal_at, self._redo = at, (at, die)
        self._roll = die
        if move.is_pass:
            self.truth.record(true_move(game, move, die))
            self.actions.append(f"{game.active} rolls {die}: pass (spin button)")
            self._press()
            return
        token = self._token_at(color, move.start)
        if token is None:
            return
        target = self._spot(move.end, token)
        target, heading_deg = self._placement(move.end, target, color)
        start = self.world.ship_positions()[token]
        held = _Held(
            token,
            start,
            target,
            heading_deg,
            move,
            die,
            illegal,
            true_move(game, move, die, illegal),
            at,
            self.now_s(),
        )
        if self._chance("hold_chance", color):
            hold_s = self._draw("hold_s", color)
            held.until_s = self.now_s() + hold_s
            self.world.remove(token)
            self._holding = held
            self._act(
                "hold",
                f"{token} lifted from {move.start} for {hold_s:.1f} s "
                f"({'illegal: ' + illegal if illegal else str(move)})",
                color,
            )
            return
        self._set_down(held)

    def _table_seat(self, game: Game, at: int) -> tuple[int, Move] | None:
        """A computer seat's turn: the players roll the table's die for it when asked (and
        tell it by presses, one per pip), then make the move the table chose; None while
        the table has not chosen."""
        status = self.controller.status
        color = game.active
        if status.die_for == color:
            if self._told_die != at:
                die = self.rng.randint(1, MAX_DIE)
                self._told_die = at
                self.actions.append(f"{color} ({TABLE_SEAT}): rolls {die}, told by presses")
                for _ in range(die):
                    self._press()
            return None
        chosen = status.suggestion
        if chosen is None or chosen.seq != at or chosen.color != color:
            return None  # the table rolls, or chooses, first
        move = next(
            (
                m
                for m in game.legal_moves(chosen.die)
                if m.ship == chosen.ship and m.walk == chosen.path
            ),
            None,
        )
        if move is None:
            return None
        self.actions.append(f"{color} ({TABLE_SEAT}): makes the table's move {move}")
        return chosen.die, move

    def _set_down(self, held: _Held) -> None:
        """The move's token set down where its player means it to go, then what follows."""
        self._holding = None
        game = self._know()
        status = self.controller.status
        move, token, target, die = held.move, held.token, held.target, held.die
        color = move.color
        self._reach(target)
        self._undo = {token: held.start}
        self._undo_seq = status.seq
        self.world.place_ship(token, *target, heading_deg=held.heading_deg)
        self.truth.record(held.record)
        self._move = str(move)
        self._made = (held.made_from, move, die)
        self._moved_token = token
        self.actions.append(
            f"{color} rolls {die}: {move}" + (f" (illegal: {held.illegal})" if held.illegal else "")
        )
        self._after_set_down(token, target, color)
        if held.illegal or held.made_from != len(game.journal):
            return  # no bump to put back (or the game went on while the ship was in hand)
        short = move.end not in self.board.ports and move.steps < die
        if short or move.end in self.board.ports:
            return
        if move.end in status.hold:
            if not self._chance("ignore_chance", color):
                return  # told to leave it for now: the controller will ask for it
            self._act("ignore", f"told to leave the ship at {move.end}; put back at once", color)
        elif self.rng.random() < self.style(color).late_putback_chance:
            return  # the controller will ask for it
        self._put_back_at_once(token, move, color, game)

    def _put_back_at_once(self, token: str, move: Move, color: str, game: Game) -> None:
        """The ships the move bumped go back to their ports now: from beside the mover, or
        (`putback_first_chance`) lifted off first, the mover then set down on the space as
        a hand sets any token there. In one tick, so no frame sees the two in between."""
        bumped = [sid for sid in game.ships_at(move.end or "") if sid != move.ship]
        first = bool(bumped) and self._chance("putback_first_chance", color)
        alike = self._alike_at(token, move, color) if bumped and not first else None
        swap = alike is not None and self._chance("swap_chance", color)
        self._put_back_bumped()
        if swap and alike is not None:
            # the same board as if the mover had gone to the port and the other never moved
            other, point, heading_deg = alike
            self.world.place_ship(token, *point, heading_deg=heading_deg)
            self._act("swap", f"{token} taken to port for {other}, which stands where it stood")
            return
        if not first or move.end is None:
            return
        point, heading_deg = self._placement(move.end, self._spot(move.end, token), color)
        self.world.place_ship(token, *point, heading_deg=heading_deg)
        self._act("put back first", f"{', '.join(bumped)} to port, then {token} on {move.end}")

    def _alike_at(
        self, token: str, move: Move, color: str
    ) -> tuple[str, Point, float | None] | None:
        """A token of the mover's colour standing on its landing space beside it (a ship of
        the player's own that the move bumped): it, where it stands and its heading."""
        positions = self.world.ship_positions()
        other = self._token_at(color, move.end or "", exclude=token)
        if other is None or other not in positions:
            return None
        return other, positions[other], self.world.heading_of(other)

    def _illegal_move(self, game: Game, die: int) -> tuple[Move, str] | None:
        """A move against the rules the active player makes this turn, if their style makes
        one and the board offers one: (the move, its kind and the rules' reason)."""
        for kind, rate in zip(
            ILLEGAL_KINDS,
            ("miscount_chance", "full_port_chance", "under_cloud_chance"),
            strict=True,
        ):
            if not self._chance(rate):
                continue
            walks = self._illegal_walks(game, die, kind)
            if walks:
                move = self.rng_of().choice(walks)
                return move, f"{kind}: {_why_illegal(game, move, die)}"
        return None

    def _illegal_walks(self, game: Game, die: int, kind: str) -> list[Move]:
        """The active player's walks of one kind that break the rules for `die`, each
        leaving the board unlike any legal move (a wrong count that ends where a legal walk
        ends is no wrong move on the board)."""
        table = walk_table(self.board)
        blocked = game.blocked
        legal = [m for m in game.legal_moves(die) if not m.is_pass]
        ends = {(m.ship, m.end) for m in legal}
        ports = self.board.ports
        found: list[Move] = []
        for ship in game.ships(game.active):
            start = ship.location
            if ship.status is not ShipStatus.ON_BOARD or start is None:
                continue
            if kind == "miscount":
                walks = [
                    w
                    for d in (die - 1, die + 1)
                    if 1 <= d <= MAX_DIE
                    for w in table.moves(start, d, blocked, 0)[0]
                    if w[-1] not in ports
                ]
            elif kind == "full port":
                walks = [w for w in table.moves(start, die, blocked, 0)[0] if w[-1] in ports]
            else:
                walks = [
                    w
                    for w in table.moves(start, die, frozenset(), 0)[0]
                    if w[-1] in blocked and w[-1] not in ports
                ]
            found += [
                Move(ship.id, w)
                for w in walks
                if (ship.id, w[-1]) not in ends
                and not any(
                    m.ship != ship.id and m.start == start and m.end == w[-1] for m in legal
                )
            ]
        return found

    def _put_back_bumped(self, later: bool = False) -> None:
        """The ships our move (not yet taken by the controller) bumped go back to their
        ports, from beside our token on the landing space; `later`: each is lifted now and
        held for the style's follow_s before it is set down in its port."""
        made, token = self._made, self._moved_token
        game = self._know()
        if made is None or token is None or made[0] != len(game.journal):
            return
        _, move, die = made
        try:
            after = _after(game, move, die)
        except (RulesError, ValueError):
            return
        positions = self.world.ship_positions()
        for sid in game.ships_at(move.end):
            port = after.ship(sid).location
            if sid == move.ship or port == move.end or port is None:
                continue  # the mover, or a ship the move leaves where it is
            other = self._token_at(game.ship(sid).color, move.end, exclude=token)
            if other is not None:
                self._undo.setdefault(other, positions[other])
                point, heading_deg = self._placement(port, self._spot(port, other), move.color)
                if later:
                    self.world.remove(other)
                    until_s = self.now_s() + self._draw("follow_s", move.color)
                    self._scheduled.append((until_s, other, point, heading_deg))
                    self._act(
                        "half-follow",
                        f"{other} held until {until_s:.1f} s, then to {port}",
                        move.color,
                    )
                    continue
                self.world.place_ship(other, *point, heading_deg=heading_deg)
                self.actions.append(f"put back {other} to {port}")

    def _fix(
        self, missing: tuple[tuple[str, str | None], ...], extra: tuple[tuple[str, str | None], ...]
    ) -> None:
        # the players look before they act: a fix that the table already shows as the game
        # has it (the camera misread a place) leaves the tokens alone
        truth, game = self._on_table(), self._expected_game()
        expected = self._expected_places(game)
        unseen = [m for m in missing if m[1] is not None and truth[m] >= expected[m]]
        if unseen and self.controller.status.fix_attempts >= NUDGE_AFTER:
            # asked again for a ship that stands there: a person straightens it on its place
            for color, space in unseen:
                assert space is not None
                standing = self._token_at(color, space)
                if standing is not None:
                    point = self._spot(space, standing)
                    self.world.place_ship(standing, *point, heading_deg=self.rng.uniform(0, 360))
                    self.actions.append(f"straighten: {standing} on {space} (the table misses it)")
        missing = tuple(m for m in missing if truth[m] < expected[m])
        spare = [e for e in extra if truth[e] > expected[e]]
        for color, space in missing:
            if space is None:
                continue
            twin = next((e for e in spare if e[0] == color), None)
            token: str | None = None
            if twin is not None:
                spare.remove(twin)
                token = self._token_at(color, twin[1])
            if token is None:
                # a token of that colour standing where the game has none (often the one
                # just moved, in a place the camera cannot see well) before one from the
                # cloud or from beside the board
                token = self._misplaced_token(color, game)
            if token is None:
                token = self._spare_token(color)
            if token is not None:
                point, heading_deg = self._placement(space, self._spot(space, token), self._color())
                self.world.place_ship(token, *point, heading_deg=heading_deg)
                self.actions.append(f"fix: {token} to {space}")
        for color, space in spare:
            token = self._token_at(color, space)
            if token is not None:
                self.world.remove(token)
                self.actions.append(f"fix: {token} off the table")

    def _stands_as_asked(
        self, missing: tuple[tuple[str, str | None], ...], extra: tuple[tuple[str, str | None], ...]
    ) -> bool:
        """Whether the tokens on the table already stand as a fix asks: each ship it misses
        stands there, and none it calls extra does."""
        truth, expected = self._on_table(), self._expected_places()
        return all(truth[m] >= expected[m] for m in missing) and all(
            truth[e] <= expected[e] for e in extra
        )

    def _expected_places(self, game: Game | None = None) -> Counter[tuple[str, str | None]]:
        """The ships by colour and place of the game as the players expect the table."""
        game = game if game is not None else self._expected_game()
        return Counter((s.color, s.location) for s in game.ships() if s.location is not None)

    def _expected_game(self) -> Game:
        """The game as the players expect the table: the controller's, with the move it
        waits on counted when that move does what the players did (the fix is about the
        rest; the controller may name another ship or route with the same consequence)."""
        game = self._know()
        made = self._made
        waiting = self.controller.status.waiting
        if made is None or waiting is None or made[0] != len(game.journal):
            return game
        _, move, die = made
        try:
            ours = _after(game, move, die)
            theirs = _after(game, Move.parse(waiting), die)
        except (RulesError, ValueError):
            return game
        return theirs if Consequence.of(theirs) == Consequence.of(ours) else game

    def _empty_cloud_at_edge(self) -> None:
        """At an outside dot the players take the captured ships out of the cloud."""
        if not self.world.carried:
            return
        col, row = self.board.grid.nearest_dot(*self.world.cloud_mm)
        if self.board.grid.is_outside(col, row):
            for sid in list(self.world.carried):
                self.world.remove(sid)
                self.out_of_game.add(sid)
                self.actions.append(f"take {sid} out of the cloud")

    # --- where things are ---------------------------------------------------------------

    def _place_of(self, point: Point) -> str | None:
        return place_of(self.board, point)

    def _on_table(self) -> Counter[tuple[str, str | None]]:
        """The tokens on the table by colour and place (not those in the cloud)."""
        carried = self.world.carried
        return Counter(
            (split_ship_id(sid)[0], self._place_of(point))
            for sid, point in self.world.ship_positions().items()
            if sid not in carried
        )

    def _captures_seen(self, question: Question) -> int | None:
        """The option of a question about captures under the cloud that the tokens on the
        table show (by colour and place: alike tokens are told apart by neither), or None."""
        takes = [
            [tuple(m.split("@", 1)) for m in moves]
            for moves, option in zip(question.moves, question.options, strict=True)
            if option not in (NONE_OF_THESE, NOT_YET)
        ]
        asked = {ship_place for taken in takes for ship_place in taken}
        game = self._know()
        standing: Counter[tuple[str, str]] = Counter()
        for sid, place in asked:
            color = split_ship_id(sid)[0]
            others = sum(
                1 for s in game.ships(color) if s.location == place and (s.id, place) not in asked
            )
            standing[(color, place)] = self._tokens_at(color, place) - others
        for k, taken in enumerate(takes, 1):
            left = Counter((split_ship_id(s)[0], p) for s, p in asked if (s, p) not in taken)
            if all(left[key] == n for key, n in standing.items()):
                return k
        return None

    def _tokens_at(self, color: str, place: str) -> int:
        """How many tokens of a colour stand at a place, not in the cloud."""
        carried = self.world.carried
        return sum(
            1
            for sid, point in self.world.ship_positions().items()
            if sid not in carried
            and split_ship_id(sid)[0] == color
            and self._place_of(point) == place
        )

    def _token_at(self, color: str, place: str | None, exclude: str | None = None) -> str | None:
        """A token of a colour standing at a place (None: off every space), not in the cloud."""
        carried = self.world.carried
        for sid, point in sorted(self.world.ship_positions().items()):
            if sid in carried or sid == exclude or split_ship_id(sid)[0] != color:
                continue
            if self._place_of(point) == place:
                return sid
        return None

    def _spare_token(self, color: str) -> str | None:
        """A token of that colour from the cloud or from beside the board.

        A token taken out of the cloud at an outside dot is out of the game
        and never comes back.
        """
        for sid in sorted(self.world.carried):
            if split_ship_id(sid)[0] == color:
                return sid
        on_table = set(self.world.ship_positions())
        game = self._know()
        for ship in game.ships(color):
            if ship.id not in on_table and ship.id not in self.out_of_game:
                return ship.id
        return None

    def _misplaced_token(self, color: str, game: Game) -> str | None:
        """A token of that colour standing where `game` (as the players expect the table,
        their move counted) has no ship of that colour: a ship their move bumped, still on
        the landing space, is the one a fix asks for in its port."""
        expected = [s.location for s in game.ships(color) if s.location is not None]
        for sid, point in sorted(self.world.ship_positions().items()):
            if split_ship_id(sid)[0] != color or sid in self.world.carried:
                continue
            place = self._place_of(point)
            if place in expected:
                expected.remove(place)
            else:
                return sid
        return None

    def _spot(self, place: str, moving: str | None = None) -> Point:
        """Where to put a token: the space's centre, or a free berth of a port; beside any
        token already there, never exactly on it (two tokens cannot stand at one point).
        """
        taken = [
            p
            for sid, p in self.world.ship_positions().items()
            if sid != moving and sid not in self.world.carried
        ]
        port = self.board.ports.get(place)
        if port is not None:
            for berth in port.berths:
                if all(math.dist(berth, t) > PLACE_TOLERANCE_MM for t in taken):
                    return berth
            centre = port.berths[-1]
            heading_deg = 0.0
        else:
            space = self.board.spaces[place]
            centre = space.position
            if all(math.dist(centre, t) > BESIDE_MM for t in taken):
                return centre
            heading_deg = space.heading_deg
        return self._beside(centre, heading_deg, taken)

    def _beside(self, centre: Point, heading_deg: float, taken: list[Point]) -> Point:
        """A point within a token's beam of `centre`, alongside the tokens there."""
        best = centre
        for _ in range(8):
            offset_mm = self.rng.uniform(BESIDE_MM, BESIDE_MAX_MM) * self.rng.choice((-1, 1))
            along_mm = self.rng.uniform(-2.0, 2.0)
            ux, uy = heading_vector(heading_deg + 90.0)
            vx, vy = -uy, ux
            point = (
                centre[0] + offset_mm * ux + along_mm * vx,
                centre[1] + offset_mm * uy + along_mm * vy,
            )
            if all(math.dist(point, t) > BESIDE_MM for t in taken):
                return point
            best = point
        return best


def _why_illegal(game: Game, move: Move, die: int) -> str:
    """The rules' reason a move is illegal with `die` (empty if it is legal)."""
    try:
        _after(game, move, die)
    except RulesError as exc:
        return str(exc)
    return ""


def _after(game: Game, move: Move, die: int) -> Game:
    """A copy of the game with a move made (the die set if it is not yet)."""
    after = game.copy()
    if after.die is None:
        after.set_die(die)
    after.push(move)
    return after
