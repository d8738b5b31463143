"""The spin button as the loop reads it: presses, a long press, and a count of presses.

gpiozero calls back on its own thread; `SpinButton` only counts there, and the
loop takes what happened on its own thread: a press (`take_press`), a long
press (`take_hold`), or the presses counted once the button has rested
`ANSWER_QUIET_S` (an answer's option, a die's pips: `counted`). The page's
"spin" and "re-home" are a press as well (`press`).
"""

from __future__ import annotations

import threading

from bermuda_hw.clock import Clock
from bermuda_hw.controller.seams import Button

ANSWER_QUIET_S = 2.0  # an answer by presses is taken once the button has rested this long
HOLD_S = 2.0  # a long press


class SpinButton:
    """The presses and long presses of the spin button, for the loop to take."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._pressed = threading.Event()
        self._held = threading.Event()
        self._lock = threading.Lock()
        self._presses = 0  # presses counted towards an answer
        self._last_press_s = 0.0

    def wire(self, button: Button) -> None:
        """Listen to the table's button."""
        button.when_pressed = self._on_pressed
        button.hold_time = HOLD_S
        button.when_held = self._held.set

    def _on_pressed(self) -> None:
        # gpiozero's event thread: count the press; the loop acts on it
        with self._lock:
            self._presses += 1
            self._last_press_s = self.clock.monotonic()
        self._pressed.set()

    def press(self) -> None:
        """A press from outside (the page): acted on as the button's, never counted."""
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
