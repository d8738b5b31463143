"""The unmodified Adafruit PCA9685 and motor drivers against the emulator."""

from __future__ import annotations

from typing import Any

import pytest
from adafruit_motor import stepper
from adafruit_motor.servo import Servo
from adafruit_pca9685 import PCA9685
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C, PCA9685Emulator
from bermuda_hw.sim.rig import RotorModel


def rig_bus(address: int = 0x40) -> tuple[FakeI2C, PCA9685Emulator]:
    chip = PCA9685Emulator(address, clock=VirtualClock())
    bus = FakeI2C()
    bus.attach(chip)
    return bus, chip


def test_driver_finds_the_chip_and_sets_the_frequency() -> None:
    bus, chip = rig_bus()
    pca = PCA9685(bus)
    pca.frequency = 50
    assert chip.prescale == round(25e6 / 4096 / 50) - 1
    assert pca.frequency == pytest.approx(chip.frequency_hz)
    assert not chip.asleep
    assert chip.regs[0] & 0x20  # the driver turns auto-increment on


def test_driver_reports_a_missing_chip() -> None:
    bus, _ = rig_bus(0x41)
    with pytest.raises(ValueError, match="No I2C device"):
        PCA9685(bus, address=0x40)


def test_duty_cycle_round_trip_and_full_bits() -> None:
    bus, chip = rig_bus()
    pca = PCA9685(bus)
    pca.frequency = 1000
    channel = pca.channels[7]
    channel.duty_cycle = 0x8000
    assert channel.duty_cycle == 0x8000
    assert chip.output(7).duty == pytest.approx(0.5)
    channel.duty_cycle = 0xFFFF
    assert chip.output(7).duty == 1.0 and channel.duty_cycle == 0xFFFF
    channel.duty_cycle = 0
    assert chip.output(7).duty == 0.0 and channel.duty_cycle == 0


@settings(max_examples=60, deadline=None)
@given(angle=st.floats(min_value=0.0, max_value=180.0))
def test_servo_angle_to_pulse_width_within_one_tick(angle: float) -> None:
    """One 12-bit tick, plus the two truncations the driver makes at 16 bits first."""
    bus, chip = rig_bus()
    pca = PCA9685(bus)
    pca.frequency = 50
    servo = Servo(pca.channels[4], actuation_range=180, min_pulse=500, max_pulse=2500)
    servo.angle = angle
    tick_us = 1e6 / chip.frequency_hz / 4096
    # the pulse the driver means, at the frequency the chip really runs at
    expected_us = 500 + angle / 180 * 2000
    driver_rounding_us = 2 * 1e6 / chip.frequency_hz / 0x10000
    assert abs(chip.pulse_width_us(4) - expected_us) <= tick_us + driver_rounding_us


def test_servo_pulse_spot_values() -> None:
    bus, chip = rig_bus()
    pca = PCA9685(bus)
    pca.frequency = 50
    servo = Servo(pca.channels[0], actuation_range=180, min_pulse=1000, max_pulse=2000)
    tick_us = 1e6 / chip.frequency_hz / 4096
    for angle, pulse_us in ((0, 1000), (90, 1500), (180, 2000)):
        servo.angle = angle
        assert abs(chip.pulse_width_us(0) - pulse_us) <= tick_us
    servo.angle = None
    assert chip.pulse_width_us(0) == 0.0


def _turn_uln2003(
    channels: tuple[int, int, int, int], half_steps: int
) -> tuple[RotorModel, Any, Any]:
    """Half-step a 28BYJ-48 whose ULN2003 IN1..IN4 are on PCA9685 channels 0..3, with the
    driver's AIN1, AIN2, BIN1, BIN2 on `channels`."""
    bus, chip = rig_bus()
    pca = PCA9685(bus)
    pca.frequency = 1600
    motor = stepper.StepperMotor(*(pca.channels[c] for c in channels), microsteps=2)
    rotor = RotorModel(pull_out_hz=1000.0)
    t = 0.0

    def phases() -> tuple[float, float, float, float]:
        in1, in2, in3, in4 = (round(chip.output(c).duty) for c in range(4))
        return (in1, in2, in3, in4)

    rotor.coils(t, phases())
    previous = phases()
    for _ in range(half_steps):
        motor.onestep(direction=stepper.FORWARD, style=stepper.INTERLEAVE)
        now = phases()
        assert sum(a != b for a, b in zip(previous, now, strict=True)) == 1
        assert 1 <= sum(now) <= 2
        t += 0.01
        rotor.coils(t, now)
        previous = now
    return rotor, motor, chip


def test_uln2003_wired_as_windings_turns_the_rotor() -> None:
    # IN1/IN3 are one winding, IN2/IN4 the other: AIN1, AIN2, BIN1, BIN2 = 0, 2, 1, 3
    rotor, motor, chip = _turn_uln2003((0, 2, 1, 3), 16)
    # forward turns the field one way, 16 half steps, none lost
    assert abs(rotor.rotor_steps) == 16 and rotor.lost_steps == 0
    motor.release()
    assert all(chip.output(c).duty == 0 for c in range(4))


def test_uln2003_wired_in_phase_order_dithers() -> None:
    # channels 0, 1, 2, 3 put IN1/IN2 on one "winding": the field jumps about and
    # passes through nothing twice per cycle, so the rotor never gets round
    rotor, _, _ = _turn_uln2003((0, 1, 2, 3), 64)
    assert abs(rotor.rotor_steps) < 8 and rotor.lost_steps > 0
