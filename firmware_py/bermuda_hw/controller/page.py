"""The page's actions at the table: when each request is refused, and what it does.

The page and `bermuda-hw game` queue actions (`commands`); the loop runs them
on its own thread at the top of a step (`PageActions.run`). Each is refused
(`ActionRefused`, with the mode the table is in) when the table is not asking
for it; the fields of a request are checked in `actions`. Spin and re-home are
a press of the spin button; the rest is carried out through `Table`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bermuda_hw.controller.actions import (
    answer_request,
    die_request,
    hints_request,
    new_game_request,
)
from bermuda_hw.controller.commands import ActionRefused, Command
from bermuda_hw.controller.seams import Controls
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.status import Mode, Status, asks_press
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Phase


class Table(Protocol):
    """What the page's actions need of the controller."""

    board: Board
    session: GameSession
    controls: Controls

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def press(self) -> None:
        """The same as a press of the spin button: the next step acts on it."""
        ...

    def pass_turn(self) -> str: ...
    def undo(self) -> str: ...
    def new_game(self) -> None: ...
    def answer(self, option: int) -> None: ...
    def give_die(self, value: int) -> None: ...


class PageActions:
    """The actions from outside the table, each refused unless the table is asking for it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._handlers: dict[str, Callable[[Mapping[str, Any]], str]] = {
            "spin": self.spin,
            "pass": self.pass_turn,
            "undo": self.undo,
            "new-game": self.new_game,
            "pause": self.pause,
            "resume": self.resume,
            "rehome": self.rehome,
            "answer": self.answer,
            "hints": self.hints,
            "die": self.die,
        }

    def run(self, command: Command) -> str:
        """Carry out one queued action; what it did, in words (ActionRefused if refused)."""
        return self._handlers[command.action](command.args)

    def _now(self) -> str:
        status = self.table.status
        return f"now: {status.mode.value}" + (f" ({status.message})" if status.message else "")

    def spin(self, args: Mapping[str, Any]) -> str:
        status = self.table.status
        if not asks_press(status):
            raise ActionRefused(f"spin only when the table is asked to press spin; {self._now()}")
        if status.mode is Mode.SPIN and status.paused:
            raise ActionRefused("motion is paused: resume it first")
        self.table.press()  # the same as the button: this step acts on it
        return "spin pressed"

    def pass_turn(self, args: Mapping[str, Any]) -> str:
        game = self.table.session.game
        if (
            self.table.status.mode is not Mode.READY
            or game is None
            or game.phase is not Phase.SHIPS
        ):
            raise ActionRefused(f"pass only when a player is to move; {self._now()}")
        return self.table.pass_turn()

    def undo(self, args: Mapping[str, Any]) -> str:
        mode = self.table.status.mode
        if self.table.session.game is None or mode in (
            Mode.MOVING,
            Mode.AFTER_SPIN,
            Mode.STARTING,
        ):
            raise ActionRefused(f"nothing can be undone while the cloud moves; {self._now()}")
        return self.table.undo()

    def new_game(self, args: Mapping[str, Any]) -> str:
        status, session = self.table.status, self.table.session
        if status.mode is Mode.FAULT:
            raise ActionRefused("re-home after the fault first")
        if status.paused:
            raise ActionRefused("motion is paused: resume it first (a new game moves the cloud)")
        before = session.game.options if session.game is not None else None
        asked = new_game_request(args, self.table.board.ship_colors, session.players, before)
        old = session.game_id
        session.players, session.seed, session.options = asked.players, asked.seed, asked.options
        self.table.new_game()
        return f"game {old} archived; new game {session.game_id} with {asked.players} players"

    def hints(self, args: Mapping[str, Any]) -> str:
        """Hints on or off for one player (`{"color": "blue", "on": true}`)."""
        status, game = self.table.status, self.table.session.game
        players = game.players if game is not None else ()
        color, on = hints_request(args, players)
        chosen = set(status.hints) | {color} if on else set(status.hints) - {color}
        status.hints = tuple(c for c in players if c in chosen)
        return f"hints {'on' if on else 'off'} for {color}"

    def die(self, args: Mapping[str, Any]) -> str:
        """The die rolled at the table for a computer seat (`{"value": 4}`), when asked."""
        value = die_request(args)
        status = self.table.status
        color = status.die_for
        if color is None or status.mode is not Mode.READY:
            raise ActionRefused(f"the table asks for no die now; {self._now()}")
        self.table.give_die(value)
        return f"die {value} for {color}"

    def pause(self, args: Mapping[str, Any]) -> str:
        self.table.status.paused = True
        self.table.say("motion paused: no spin until it is resumed")
        return "motion paused"

    def resume(self, args: Mapping[str, Any]) -> str:
        self.table.status.paused = False
        self.table.say("motion resumed")
        return "motion resumed"

    def rehome(self, args: Mapping[str, Any]) -> str:
        if self.table.status.mode is not Mode.FAULT:
            raise ActionRefused(f"re-home only after a fault; {self._now()}")
        if self.table.controls.estop_engaged:
            raise ActionRefused("the e-stop is still engaged: release it first")
        self.table.press()  # the same as the button after a fault: this step recovers
        return "re-homing"

    def answer(self, args: Mapping[str, Any]) -> str:
        status = self.table.status
        question = status.question
        if question is None or status.mode is not Mode.ASK:
            raise ActionRefused("there is no question to answer")
        k = answer_request(args, question.options)
        self.table.answer(k)
        return f"answered: {question.options[k - 1]}"
