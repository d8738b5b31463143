"""What the status LED and the buzzer show at the table, one pattern per controller state."""

from __future__ import annotations

import contextlib
from enum import StrEnum

from gpiozero.exc import DeviceClosed

from bermuda_hw.controller.seams import Beeper, Light


class Pattern(StrEnum):
    """The LED's patterns (docs/controller.md, "The status LED and the buzzer")."""

    READY = "ready"  # steady on: make your move
    PRESS_SPIN = "press-spin"  # slow blink (1 s on, 1 s off): press the spin button
    FIX = "fix"  # fast blink (0.15 s): the board does not match the rules; fix it
    BUSY = "busy"  # off: the rig is homing or the cloud is moving
    FAULT = "fault"  # short flash every 2 s: motors stopped; fix, then press spin
    OVER = "over"  # long on, short off (2 s / 0.2 s): the game is over
    ASK = "ask"  # medium blink (0.5 s) and three short beeps: answer the question


_BLINKS: dict[Pattern, tuple[float, float]] = {
    Pattern.PRESS_SPIN: (1.0, 1.0),
    Pattern.FIX: (0.15, 0.15),
    Pattern.FAULT: (0.1, 1.9),
    Pattern.OVER: (2.0, 0.2),
    Pattern.ASK: (0.5, 0.5),
}

# buzzer: (on_s, off_s, count)
_BEEPS: dict[Pattern, tuple[float, float, int]] = {
    Pattern.FIX: (0.1, 0.1, 2),
    Pattern.FAULT: (1.0, 0.1, 1),
    Pattern.OVER: (0.3, 0.2, 3),
    Pattern.ASK: (0.05, 0.15, 3),
}


class TableSignals:
    """Drives the status LED (and the buzzer, if there is one) from a pattern."""

    def __init__(self, led: Light, buzzer: Beeper | None = None) -> None:
        self.led = led
        self.buzzer = buzzer
        self.pattern: Pattern | None = None

    def show(self, pattern: Pattern, *, beep: bool = True) -> None:
        """Switch to a pattern (nothing changes if it is already shown)."""
        if pattern is self.pattern:
            return
        self.pattern = pattern
        with contextlib.suppress(DeviceClosed):  # a closed device at shutdown is no fault
            if pattern is Pattern.READY:
                self.led.on()
            elif pattern is Pattern.BUSY:
                self.led.off()
            else:
                on_s, off_s = _BLINKS[pattern]
                self.led.blink(on_time=on_s, off_time=off_s, background=True)
            if beep and self.buzzer is not None and pattern in _BEEPS:
                on_s, off_s, n = _BEEPS[pattern]
                self.buzzer.beep(on_time=on_s, off_time=off_s, n=n, background=True)

    def count(self, n: int) -> None:
        """Show a number: n short flashes (and beeps), e.g. the die a press rolled;
        the pattern shown before takes over again at the next change."""
        self.pattern = None
        with contextlib.suppress(DeviceClosed):
            self.led.blink(on_time=0.25, off_time=0.25, n=n, background=True)
            if self.buzzer is not None:
                self.buzzer.beep(on_time=0.05, off_time=0.2, n=n, background=True)

    def off(self) -> None:
        self.pattern = None
        with contextlib.suppress(DeviceClosed):
            self.led.off()
            if self.buzzer is not None:
                self.buzzer.off()
