"""Devices on a fresh MockFactory: pins, levels, direction sense, closing."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from bermuda_hw.config import Config, Contact, Pull, SwitchWiring
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.devices.endstop import Endstop
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis
from bermuda_hw.devices.switch import Switch


def test_enable_starts_disabled_and_follows_its_active_level(mock_factory: MockFactory) -> None:
    low = MotorEnable(17, active_high=False, pin_factory=mock_factory)
    assert mock_factory.pin(17).state is True  # active low: high is disabled
    low.enable()
    assert mock_factory.pin(17).state is False and low.is_enabled
    low.close()
    low.close()
    high = MotorEnable(17, active_high=True, pin_factory=mock_factory)
    assert mock_factory.pin(17).state is False
    high.close()


def test_stepper_axis_direction_sense(mock_factory: MockFactory, config: Config) -> None:
    axis = StepperAxis(config.gantry.x, pin_factory=mock_factory)
    axis.set_direction(+1)
    assert mock_factory.pin(config.gantry.x.dir_pin).state is True
    axis.set_direction(-1)
    assert mock_factory.pin(config.gantry.x.dir_pin).state is False
    axis.close()
    inverted = StepperAxis(
        config.gantry.x.model_copy(update={"invert_dir": True}), pin_factory=mock_factory
    )
    inverted.set_direction(+1)
    assert mock_factory.pin(config.gantry.x.dir_pin).state is False
    inverted.close()
    inverted.close()


def test_stepper_axis_step_pin_makes_edges(mock_factory: MockFactory, config: Config) -> None:
    axis = StepperAxis(config.gantry.y, pin_factory=mock_factory)
    for _ in range(3):
        axis.step_pin.state = True
        axis.step_pin.state = False
    states = [s.state for s in mock_factory.pin(config.gantry.y.step_pin).states]
    assert states == [False, True, False, True, False, True, False]
    axis.close()


# (contact, pull) -> (line level released, pressed, with a broken wire, the Pi's pull)
WIRINGS = {
    ("no", "up"): (True, False, True, "up"),  # to ground: closes to low when pressed
    ("nc", "up"): (False, True, True, "up"),  # to ground: opens to high when pressed
    ("no", "down"): (False, True, False, "down"),  # to 3.3 V: closes to high when pressed
    ("nc", "down"): (True, False, False, "down"),  # to 3.3 V: opens to low when pressed
    ("no", "external"): (True, False, True, "floating"),  # external pull-up, to ground
    ("nc", "external"): (False, True, True, "floating"),
}


@pytest.mark.parametrize(("contact", "pull"), sorted(WIRINGS))
def test_every_wiring_reads_pressed_at_the_pin_level(
    mock_factory: MockFactory, contact: Contact, pull: Pull
) -> None:
    released, pressed, cut, resistor = WIRINGS[(contact, pull)]
    wiring = SwitchWiring(contact, pull)
    assert (wiring.level(False), wiring.level(True), wiring.open_level) == (released, pressed, cut)
    pin = mock_factory.pin(5)
    switch = Switch(5, wiring=wiring, pin_factory=mock_factory)
    events: list[str] = []
    switch.when_pressed = lambda: events.append("pressed")
    switch.when_released = lambda: events.append("released")
    assert pin.pull == resistor
    pin.drive_high() if released else pin.drive_low()
    assert not switch.is_pressed
    pin.drive_high() if pressed else pin.drive_low()
    assert switch.is_pressed
    pin.drive_high() if released else pin.drive_low()
    assert not switch.is_pressed
    assert events[-2:] == ["pressed", "released"]
    switch.close()
    # a broken wire leaves the line where the pull holds it
    endstop = Endstop(5, wiring=wiring, pin_factory=mock_factory)
    pin.drive_high() if cut else pin.drive_low()
    assert endstop.is_pressed == (contact == "nc")
    endstop.close()
    endstop.close()


def test_table_controls_and_the_estop_callback(mock_factory: MockFactory, config: Config) -> None:
    controls_config = config.controls.model_copy(update={"estop_pin": 4, "buzzer_pin": 12})
    calls: list[str] = []
    with TableControls(controls_config, pin_factory=mock_factory) as controls:
        # the built-in e-stop is normally closed to ground: unwired, it reads pressed
        assert controls.estop_engaged
        mock_factory.pin(4).drive_low()  # the closed contact
        controls.on_estop(lambda: calls.append("stop"))
        assert not controls.estop_engaged and calls == []
        mock_factory.pin(4).drive_high()  # pressed: the contact opens
        assert calls == ["stop"] and controls.estop_engaged
        controls.status_led.on()
        assert mock_factory.pin(16).state is True
        assert controls.buzzer is not None
    assert controls.spin_button.closed
