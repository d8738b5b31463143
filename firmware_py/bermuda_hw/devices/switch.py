"""Switches (endstops, buttons, the e-stop) as gpiozero buttons, wired NC or NO, pulled any way."""

from __future__ import annotations

from typing import Any

from gpiozero import Button

from bermuda_hw.config import SwitchWiring


class Switch(Button):  # type: ignore[misc]
    """A gpiozero `Button` that is pressed when the switch is actuated, however it is wired.

    gpiozero ties the active level to the pull (a pull-up means active low, gpiozero
    issue #921), which suits a normally-open switch. A normally-closed switch on
    the Pi's pull-up is pressed when the line is *high*: the pull is kept, and the
    active level is turned round before any event is reported. With an external
    pull the Pi's own pull is off and gpiozero takes the active level as given.
    """

    def __init__(
        self,
        pin: int,
        *,
        wiring: SwitchWiring,
        bounce_time: float | None = None,
        hold_time: float = 1.0,
        pin_factory: Any = None,
    ) -> None:
        self.wiring = wiring
        pressed = wiring.pressed_level
        if wiring.pull == "external":
            super().__init__(
                pin,
                pull_up=None,
                active_state=pressed,
                bounce_time=bounce_time,
                hold_time=hold_time,
                pin_factory=pin_factory,
            )
            return
        super().__init__(
            pin,
            pull_up=wiring.pull == "up",
            bounce_time=bounce_time,
            hold_time=hold_time,
            pin_factory=pin_factory,
        )
        active: bool = getattr(self, "_active_state")  # noqa: B009 (untyped in gpiozero)
        if active != pressed:
            # a normally-closed contact: pressed is the level the pull gives
            self._active_state, self._inactive_state = pressed, not pressed
            self._fire_events(self.pin_factory.ticks(), self.is_active)

    @property
    def level(self) -> bool:
        """The line's level now (True: high)."""
        return bool(self.pin.state)
