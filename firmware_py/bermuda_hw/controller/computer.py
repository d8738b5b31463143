"""The computer seats' turns and the virtual die, carried out at the table.

A computer seat's turn starts once the board shows the game (mode READY): the
table rolls the virtual die for it, or asks for the die rolled at the table
(one press per pip, taken once the button rests, or told on the page); then it
chooses the seat's move (`seats.suggest`), says and shows it, and waits for a
person to make it. A roll of the virtual die for any player is carried out here
too: a roll that leaves no move passes. `Seats` holds the die told on the page
until the board is settled; the choices themselves are pure (`seats`).
"""

from __future__ import annotations

from typing import Protocol

from bermuda_hw.controller.buttons import SpinButton
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.seats import hold_spaces, seat_level, standing, suggest, to_move
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.controller.status import Mode, Status, Suggestion
from bermuda_hw.rules.moves import Move


class Table(Protocol):
    """What the computer seats need of the controller."""

    session: GameSession
    button: SpinButton
    signals: TableSignals

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None: ...

    def saved(self, committed: bool) -> bool:
        """The status after a change to the game (`committed`: the journal took it)."""
        ...

    def pass_turn(self) -> str: ...


class Seats:
    """The computer seats' turns and the die rolled for them, at the table or on the page."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.die_given: int | None = None  # a computer seat's die, given on the page

    def forget_die(self) -> None:
        """No die is awaited for a seat any more (it is asked again when the turn resumes)."""
        self.table.status.die_for, self.die_given = None, None

    def suggested(self) -> Suggestion | None:
        """The seat's move shown to the table, while it stands for this very turn."""
        return standing(self.table.session.game, self.table.status.suggestion)

    def step(self) -> bool:
        """A computer seat's turn, once the board shows the game (mode READY): the table
        rolls the virtual die for it, or asks for the die rolled at the table; then chooses
        its move (`rules.computer`), says and shows it, and waits for a person to make it.
        True when it took the button's presses (as the die's pips)."""
        table = self.table
        status, game = table.status, table.session.game
        level = seat_level(game)
        if level is None or game is None:
            self.forget_die()
            return False
        if status.mode is not Mode.READY:
            return False  # (a die given on the page is kept for when the board is settled)
        if game.die is None and table.session.die_mode == "virtual":
            self.roll()  # (a roll with no move passes: the next player is to move)
            level = seat_level(table.session.game)
        elif game.die is None:
            return self._die_from_table(game.active)
        if (
            level is not None
            and game.die is not None
            and status.mode is Mode.READY
            and self.suggested() is None
        ):
            self._choose(level)
        return False

    def _die_from_table(self, color: str) -> bool:
        """The table's physical die, rolled for a computer seat: told by presses (one per
        pip, taken once the button rests) or on the page."""
        table = self.table
        status = table.status
        if status.die_for != color:
            status.die_for = color
            self.die_given = None
            table.button.forget()
            table.set_mode(Mode.READY, self.to_move(), Pattern.READY)
            return True
        value, self.die_given = self.die_given, None
        if value is None:
            value = table.button.counted()
        if value is None:
            return True
        if not 1 <= value <= 6:
            table.say(f"{value} presses: a die shows 1 to 6; press spin once for each pip")
            return True
        game = table.session.current
        if not table.saved(table.session.set_die(value)):
            return True
        status.die_for = None
        table.status.die = value
        table.signals.count(value)
        if game.legal_moves(value) == [Move.pass_turn(color)]:
            table.pass_turn()
            return True
        level = seat_level(table.session.game)
        assert level is not None
        self._choose(level)
        return True

    def _choose(self, level: str) -> None:
        """Choose the computer seat's move for the rolled die, say it and show it."""
        table = self.table
        game = table.session.current
        chosen = suggest(game, level)
        if chosen is None:
            table.pass_turn()
            return
        table.status.suggestion = chosen
        table.status.hold = hold_spaces(game)
        table.set_mode(Mode.READY, self.to_move(), Pattern.READY)

    def roll(self) -> None:
        """The virtual die: roll for the active player; a roll with no move passes."""
        table = self.table
        game = table.session.current
        if game.die is not None:
            # a press once the die is rolled: a pass where the die gives no move (the table
            # asked first where it rests on captures under the cloud), else a reminder
            try:
                table.pass_turn()
            except ActionRefused:
                table.say(f"{game.active} has rolled {game.die} already: move a ship")
                table.signals.count(game.die)
            return
        die = table.session.roll()
        table.saved(die is not None)
        if die is None:
            return
        table.status.die = die
        table.signals.count(die)
        table.say(f"{game.active} rolls {die}")
        if game.legal_moves(die) == [Move.pass_turn(game.active)]:
            table.pass_turn()
            return
        table.status.hold = hold_spaces(game)
        table.set_mode(Mode.READY, self.to_move())

    def to_move(self) -> str:
        """The turn's line: who moves, with which die, and the seat's move if it chose one."""
        session = self.table.session
        return to_move(session.current, session.die_mode, self.suggested(), self.table.status.hold)
