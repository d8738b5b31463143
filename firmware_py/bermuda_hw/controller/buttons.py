"""The spin button as the loop reads it: presses, a long press, and a count of presses.

gpiozero calls back on its own thread; `SpinButton` only counts there, and the
loop takes what happened on its own thread: a press (`take_press`), a long
press (`take_hold`), or the presses counted once the button has rested
`ANSWER_QUIET_S` (an answer's option, a die's pips: `counted`). The page's
"spin" and "re-home" are a press as well (`press`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Hashable

from bermuda_hw.clock import Clock
from bermuda_hw.controller.seams import Button

ANSWER_QUIET_S = 2.0  # an answer by presses is taken once the button has rested this long
HOLD_S = 2.0  # a long press
#: a press within this long of the table leaving a state where a press confirms something
#: (an answer to a question, "the move is done" after "not yet", "the ship is back" where
#: the camera cannot see) was made for that state: a person needs about this long to see
#: the LED or hear the line change and decide to press again. Such a press is not taken for
#: what a press means now (a pass, a roll, a spin); a press dropped costs a press again
REACTION_S = 1.0


class SpinButton:
    """The presses and long presses of the spin button, for the loop to take."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._pressed = threading.Event()
        self._held = threading.Event()
        self._lock = threading.Lock()
        self._presses = 0  # presses counted towards an answer
        self._last_press_s = 0.0
        self.pressed_s = 0.0  # when the last press came, from the button or the page
        self.gate = PressGate()  # whether a press is taken for what the table asks now

    def wire(self, button: Button) -> None:
        """Listen to the table's button."""
        button.when_pressed = self._on_pressed
        button.hold_time = HOLD_S
        button.when_held = self._held.set

    def _on_pressed(self) -> None:
        # gpiozero's event thread: count the press; the loop acts on it
        with self._lock:
            self._presses += 1
            self._last_press_s = self.pressed_s = self.clock.monotonic()
        self._pressed.set()

    def press(self) -> None:
        """A press from outside (the page): acted on as the button's, never counted."""
        with self._lock:
            self.pressed_s = self.clock.monotonic()
        self._pressed.set()

    @property
    def pressed(self) -> bool:
        """A press not taken yet."""
        return self._pressed.is_set()

    def forget(self) -> None:
        """Forget the presses so far (a question just asked, a fault): count from now."""
        with self._lock:
            self._presses = 0
        self._pressed.clear()

    def take_press(self) -> bool:
        """True (once) if the button was pressed since; the presses counted are forgotten."""
        if not self._pressed.is_set():
            return False
        self._pressed.clear()
        with self._lock:
            self._presses = 0
        return True

    def take_hold(self) -> bool:
        """True (once) after a long press; the presses that made it are forgotten."""
        if not self._held.is_set():
            return False
        self._held.clear()
        self._pressed.clear()
        with self._lock:
            self._presses = 0
        return True

    def counted(self) -> int | None:
        """The presses since the last count, once the button has rested `ANSWER_QUIET_S`
        (an answer's option, a die's pips); None while none are done."""
        with self._lock:
            count = self._presses
            if count and self.clock.monotonic() - self._last_press_s >= ANSWER_QUIET_S:
                self._presses = 0
            else:
                count = 0
        self._pressed.clear()
        return count or None


class PressGate:
    """Whether a press is taken for what the table asks now, or was made for what it asked
    a moment before. A press is dropped when what a press means changed in the frame it
    was taken in (`key`: the mode, the game's length, and the flags that give a press its
    meaning), or when it came within `REACTION_S` of the table leaving a state where a
    press confirms something; the presses that follow it within `ANSWER_QUIET_S` (the rest
    of an answer by presses) are dropped with it, and a press after that is taken: a
    person pressing again, told the press was not taken, is never locked out."""

    def __init__(self) -> None:
        self._confirming_s = -math.inf  # when the table last showed a state a press confirms
        self._drop_until_s = -math.inf

    def watch(self, confirming: bool, now: float) -> None:
        """After every frame: whether a press now confirms something."""
        if confirming:
            self._confirming_s = now

    def used(self) -> None:
        """The presses so far confirmed what they were made for (an answer counted, a press
        taken while one confirms something): a press from now is a new one."""
        self._confirming_s = -math.inf

    def taken(self, before: Hashable, now: Hashable, confirming: bool, pressed_s: float) -> bool:
        """Whether a press made at `pressed_s` is taken, the table's key `before` the frame
        and `now`; `confirming`: a press now confirms something (taken, it is `used`)."""
        if pressed_s < self._drop_until_s:
            return False  # the rest of the burst of a press dropped (the window not renewed)
        late = not confirming and pressed_s - self._confirming_s < REACTION_S
        if before != now or late:
            self._drop_until_s = pressed_s + ANSWER_QUIET_S
            return False
        if confirming:
            self.used()
        return True
