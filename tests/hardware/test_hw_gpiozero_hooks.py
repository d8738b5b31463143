"""The private gpiozero hooks the simulated rig relies on, checked loudly; and the LED signals.

`sim/rig.py` subclasses gpiozero's MockPin and overrides `_change_state` and
`_set_pull`, reads `_function`, `states` and `info.name`. These are not
gpiozero's public API: pyproject pins gpiozero below 3, and this test fails
with a plain message the day an upgrade changes them.
"""

from __future__ import annotations

import inspect

import pytest
from gpiozero import LED, Button
from gpiozero.exc import DeviceClosed
from gpiozero.pins.mock import MockFactory, MockPin

from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.sim.rig import ObservedPin


def test_mockpin_still_has_the_hooks_the_simulated_rig_overrides() -> None:
    for name in ("_change_state", "_set_pull"):
        hook = getattr(MockPin, name, None)
        assert callable(hook), f"gpiozero's MockPin lost {name}: update sim/rig.py"
        params = list(inspect.signature(hook).parameters)
        assert params == ["self", "value"], f"MockPin.{name}{params}: update sim/rig.py"


def test_mockpin_hooks_behave_as_the_simulated_rig_expects() -> None:
    seen: list[tuple[int, bool]] = []
    factory = MockFactory(pin_class=ObservedPin)
    factory.observer = lambda pin, t, level: seen.append((pin.bcm, level))
    factory.clock = type("C", (), {"monotonic": staticmethod(lambda: 0.0)})()
    try:
        button = Button(17, pin_factory=factory)
        pin = factory.pin(17)
        assert isinstance(pin, ObservedPin)
        assert pin.info.name == "GPIO17" and pin.bcm == 17
        assert pin._function == "input"
        pin.hold(False)  # a switch holds the level through a change of pull
        pin._set_pull("up")
        assert not pin.state
        pin.drive_high()
        assert seen[-1] == (17, True)
        assert [s.state for s in pin.states][-1] is True
        button.close()
        led = LED(18, pin_factory=factory)
        led.on()
        assert seen[-1] == (18, True)
        led.close()
    finally:
        factory.reset()
        factory.close()


class _Broken:
    def on(self) -> None:
        raise RuntimeError("a wiring fault")

    def off(self) -> None:
        raise RuntimeError("a wiring fault")

    def blink(
        self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True
    ) -> None:
        raise RuntimeError("a wiring fault")


def test_signals_ignore_a_closed_led_but_not_other_errors() -> None:
    factory = MockFactory()
    try:
        led = LED(18, pin_factory=factory)
        signals = TableSignals(led)
        led.close()
        with pytest.raises(DeviceClosed):
            led.on()
        signals.show(Pattern.READY)  # at shutdown: no fault
        signals.off()
        with pytest.raises(RuntimeError, match="wiring"):
            TableSignals(_Broken()).show(Pattern.READY)
        with pytest.raises(RuntimeError, match="wiring"):
            TableSignals(_Broken()).count(3)
    finally:
        factory.reset()
        factory.close()
