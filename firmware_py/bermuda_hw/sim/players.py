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
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from bermuda_hw.controller.status import NONE_OF_THESE, ControllerView, Mode, Question
from bermuda_hw.errors import RulesError
from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import MAX_DIE, Move, split_ship_id
from bermuda_hw.sim.render import Hand
from bermuda_hw.sim.scene import WorldScene
from bermuda_hw.sim.truth import (
    PLACE_TOLERANCE_MM,
    Consequence,
    TruthLog,
    place_of,
    true_move,
)
from bermuda_hw.sim.world import World

BESIDE_MM = 5.0  # a token put down beside another stands at least this far from its centre
BESIDE_MAX_MM = 7.0  # ... and within the space (a token's beam is 9 mm)


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
        hand_chance: float = 0.2,
        late_putback_chance: float = 0.5,
        truth: TruthLog | None = None,
    ) -> None:
        self.controller = controller
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
        self.hand_chance = hand_chance
        self.late_putback_chance = late_putback_chance
        self.frame = 0
        self._next_frame = 0
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
        if self._hand_frames > 0:
            self._hand_frames -= 1
            if self._hand_frames == 0:
                self.scene.hand = None
        self._empty_cloud_at_edge()
        status = self.controller.status
        if self._undo and status.seq != self._undo_seq:
            self._undo = {}  # the controller took the move
        if self.frame < self._next_frame or self.controller.game is None:
            return
        mode = status.mode
        if mode is Mode.ASK:
            self._answer()
            return
        if mode in (Mode.SETUP, Mode.FIX):
            if not self.world.ship_positions():
                self._set_up()
            elif status.fix is not None:
                # the fix the controller names, even when it was asked after our own move
                self._undo = {}
                self._fix(status.fix.missing, status.fix.extra)
            elif status.putback:
                self._put_back_bumped()
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
            else:
                self.actions.append("press spin")
                self._press()
            self._wait()

    def _wait(self) -> None:
        self._next_frame = self.frame + self.pause_frames

    def _press(self) -> None:
        self.spin_pin.drive_low()
        self.spin_pin.drive_high()

    def _reach(self, point: Point) -> None:
        """A hand over the board for a frame or two (the camera must wait)."""
        if self.rng.random() < self.hand_chance:
            self.scene.hand = Hand(point[0], point[1], side=self.rng.choice("NESW"))  # type: ignore[arg-type]
            self._hand_frames = 2

    # --- knowledge ----------------------------------------------------------------------

    def _know(self) -> Game:
        game = self.controller.game
        assert game is not None
        if self.knowledge is None or self.knowledge.journal != game.journal:
            self.knowledge = game.copy()
        return self.knowledge

    # --- actions ------------------------------------------------------------------------

    def _set_up(self) -> None:
        game = self._know()
        for sid, (x_mm, y_mm) in game.ship_positions().items():
            self.world.place_ship(sid, x_mm, y_mm)
        self.actions.append("set up the ships")

    def _answer(self) -> None:
        """Answer the controller's question from the roll and move made: k presses for
        option k, once per question."""
        question = self.controller.status.question
        if question is None or question is self._answered:
            return
        self._answered = question
        for k, (dice, moves) in enumerate(zip(question.dice, question.moves, strict=True), 1):
            if (dice and self._roll in dice) or (not dice and self._move in moves):
                self.actions.append(f"answer {k}: {question.options[k - 1]}")
                for _ in range(k):
                    self._press()
                return
        # none of the options is what was done: say so, take the move back and make it again
        if NONE_OF_THESE in question.options:
            k = question.options.index(NONE_OF_THESE) + 1
            self.actions.append(f"answer {k}: {NONE_OF_THESE}")
            for _ in range(k):
                self._press()
        for token, point in self._undo.items():
            self.world.place_ship(token, *point)
        self._undo = {}
        self._acted_seq = -1
        self.actions.append(f"cannot answer: {question.text}; move taken back")

    def _turn(self) -> None:
        game = self._know()
        status = self.controller.status
        if game.options.die == "virtual":
            if status.die is None:
                self.actions.append(f"{game.active} presses spin to roll")
                self._press()
                return
            die = status.die
        else:
            die = self.rng.randint(1, MAX_DIE)
        self._roll = die
        moves = game.legal_moves(die)
        move = moves[0] if len(moves) == 1 else self.rng.choice(moves)
        if move.is_pass:
            self.truth.record(true_move(game, move, die))
            self.actions.append(f"{game.active} rolls {die}: pass (spin button)")
            self._press()
            return
        color = split_ship_id(move.ship)[0]
        token = self._token_at(color, move.start)
        if token is None:
            return
        target = self._spot(move.end, token)
        self._reach(target)
        positions = self.world.ship_positions()
        self._undo = {token: positions[token]}
        self._undo_seq = self.controller.status.seq
        self.world.place_ship(token, *target)
        self.truth.record(true_move(game, move, die))
        self._move = str(move)
        self._made = (len(game.journal), move, die)
        self._moved_token = token
        self.actions.append(f"{game.active} rolls {die}: {move}")
        short = move.end not in self.board.ports and move.steps < die
        if short or move.end in self.board.ports:
            return
        if move.end in status.hold or self.rng.random() < self.late_putback_chance:
            return  # the controller will ask for it (or told us to leave it for now)
        self._put_back_bumped()

    def _put_back_bumped(self) -> None:
        """The ships our move (not yet taken by the controller) bumped go back to their
        ports, from beside our token on the landing space."""
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
                self.world.place_ship(other, *self._spot(port, other))
                self.actions.append(f"put back {other} to {port}")

    def _fix(self, missing: tuple[tuple[str, str | None], ...],
             extra: tuple[tuple[str, str | None], ...]) -> None:
        # the players look before they act: a fix that the table already shows as the game
        # has it (the camera misread a place) leaves the tokens alone
        truth = self._on_table()
        game = self._expected_game()
        expected: Counter[tuple[str, str | None]] = Counter(
            (s.color, s.location) for s in game.ships() if s.location is not None)
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
                token = self._misplaced_token(color)
            if token is None:
                token = self._spare_token(color)
            if token is not None:
                self.world.place_ship(token, *self._spot(space, token))
                self.actions.append(f"fix: {token} to {space}")
        for color, space in spare:
            token = self._token_at(color, space)
            if token is not None:
                self.world.remove(token)
                self.actions.append(f"fix: {token} off the table")

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
        return Counter((split_ship_id(sid)[0], self._place_of(point))
                       for sid, point in self.world.ship_positions().items()
                       if sid not in carried)

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

    def _misplaced_token(self, color: str) -> str | None:
        """A token of that colour standing where the game has no ship of that colour."""
        game = self._know()
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
        taken = [p for sid, p in self.world.ship_positions().items()
                 if sid != moving and sid not in self.world.carried]
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
            point = (centre[0] + offset_mm * ux + along_mm * vx,
                     centre[1] + offset_mm * uy + along_mm * vy)
            if all(math.dist(point, t) > BESIDE_MM for t in taken):
                return point
            best = point
        return best


def _after(game: Game, move: Move, die: int) -> Game:
    """A copy of the game with a move made (the die set if it is not yet)."""
    after = game.copy()
    if after.die is None:
        after.set_die(die)
    after.push(move)
    return after
