"""Devices on a fresh MockFactory: pins, levels, direction sense, closing."""

from __future__ import annotations

import dataclasses

from gpiozero.pins.mock import MockFactory

from bermuda_hw.config import Config
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.devices.endstop import Endstop
from bermuda_hw.devices.stepper import MotorEnable, StepperAxis


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
        dataclasses.replace(config.gantry.x, invert_dir=True), pin_factory=mock_factory
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


def test_endstop_levels(mock_factory: MockFactory) -> None:
    low = Endstop(5, active_low=True, pin_factory=mock_factory)
    assert not low.is_pressed
    mock_factory.pin(5).drive_low()
    assert low.is_pressed
    low.close()
    low.close()
    high = Endstop(19, active_low=False, pin_factory=mock_factory)
    assert not high.is_pressed
    mock_factory.pin(19).drive_high()
    assert high.is_pressed
    high.close()


def test_table_controls_and_the_estop_callback(
    mock_factory: MockFactory, config: Config
) -> None:
    controls_config = dataclasses.replace(config.controls, estop_pin=4, buzzer_pin=12)
    calls: list[str] = []
    with TableControls(controls_config, pin_factory=mock_factory) as controls:
        controls.on_estop(lambda: calls.append("stop"))
        assert not controls.estop_engaged
        mock_factory.pin(4).drive_low()
        assert calls == ["stop"] and controls.estop_engaged
        controls.status_led.on()
        assert mock_factory.pin(16).state is True
        assert controls.buzzer is not None
    assert controls.spin_button.closed
