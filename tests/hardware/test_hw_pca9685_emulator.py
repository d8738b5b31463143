"""The PCA9685 emulator against the datasheet's register behaviour, over the fake busio bus."""

from __future__ import annotations

import errno
import time

import pytest

from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import (
    ALL_LED_OFF_H,
    ALL_LED_ON_L,
    LED0_ON_L,
    MODE1,
    MODE2,
    PRE_SCALE,
    FakeI2C,
    PCA9685Emulator,
)

ADDRESS = 0x40


@pytest.fixture
def chip() -> PCA9685Emulator:
    return PCA9685Emulator(ADDRESS, clock=VirtualClock())


@pytest.fixture
def bus(chip: PCA9685Emulator) -> FakeI2C:
    bus = FakeI2C()
    bus.attach(chip)
    assert bus.try_lock()
    yield bus
    bus.unlock()


def read(bus: FakeI2C, reg: int, count: int = 1) -> bytes:
    buf = bytearray(count)
    bus.writeto_then_readfrom(ADDRESS, bytes([reg]), buf)
    return bytes(buf)


def write(bus: FakeI2C, reg: int, *data: int) -> None:
    bus.writeto(ADDRESS, bytes([reg, *data]))


def wake_with_ai(bus: FakeI2C) -> None:
    write(bus, MODE1, 0x20)  # awake, auto-increment


def test_power_on_registers(bus: FakeI2C) -> None:
    assert read(bus, MODE1) == b"\x11"  # SLEEP | ALLCALL
    assert read(bus, MODE2) == b"\x04"  # OUTDRV
    assert read(bus, PRE_SCALE) == b"\x1e"  # 200 Hz
    assert read(bus, 0x02, 1) == b"\xe2"
    # every LEDn starts with its full-off bit set
    assert read(bus, LED0_ON_L + 3) == b"\x10"


def test_empty_probe_write_is_acknowledged_and_changes_nothing(
    bus: FakeI2C, chip: PCA9685Emulator
) -> None:
    before = bytes(chip.regs)
    bus.writeto(ADDRESS, b"")
    assert bytes(chip.regs) == before


def test_wrong_address_is_a_remote_io_error(bus: FakeI2C) -> None:
    with pytest.raises(OSError) as info:
        bus.writeto(0x41, b"")
    assert info.value.errno == errno.EREMOTEIO
    with pytest.raises(OSError):
        bus.readfrom_into(0x41, bytearray(1))


def test_transfers_require_the_lock(chip: PCA9685Emulator) -> None:
    bus = FakeI2C()
    bus.attach(chip)
    with pytest.raises(RuntimeError, match="requires lock"):
        bus.writeto(ADDRESS, b"\x00")


def test_prescale_is_written_only_while_asleep(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    write(bus, PRE_SCALE, 121)  # asleep after power-on: accepted
    assert chip.prescale == 121
    write(bus, MODE1, 0x00)  # wake up
    write(bus, PRE_SCALE, 5)  # blocked while the oscillator runs
    assert chip.prescale == 121
    write(bus, MODE1, 0x10)
    write(bus, PRE_SCALE, 5)
    assert chip.prescale == 5
    assert chip.frequency_hz == pytest.approx(25e6 / 4096 / 6)


def test_auto_increment_writes_a_register_quadruple(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    wake_with_ai(bus)
    write(bus, LED0_ON_L + 4 * 3, 0x10, 0x01, 0x20, 0x03)
    assert chip.counts(3) == (0x0110, 0x0320)
    assert read(bus, LED0_ON_L + 4 * 3, 4) == bytes([0x10, 0x01, 0x20, 0x03])


def test_without_auto_increment_bytes_land_in_one_register(
    bus: FakeI2C, chip: PCA9685Emulator
) -> None:
    write(bus, MODE1, 0x00)  # awake, AI off
    write(bus, LED0_ON_L, 0x11, 0x22, 0x33)
    assert chip.regs[LED0_ON_L] == 0x33
    assert chip.regs[LED0_ON_L + 1] == 0x00


def test_duty_from_on_and_off_counts(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    wake_with_ai(bus)
    # on at 4000, off at 1000: the pulse wraps around the end of the period
    write(bus, LED0_ON_L, 4000 & 0xFF, 4000 >> 8, 1000 & 0xFF, 1000 >> 8)
    assert chip.output(0).duty == pytest.approx(((1000 - 4000) % 4096) / 4096)


def test_full_on_and_full_off_bits(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    wake_with_ai(bus)
    write(bus, LED0_ON_L, 0, 0x10, 0, 0)  # full on
    assert chip.output(0).duty == 1.0
    write(bus, LED0_ON_L, 0, 0x10, 0, 0x10)  # full on and full off: off wins
    assert chip.output(0).duty == 0.0


def test_all_led_registers_program_every_channel_and_read_zero(
    bus: FakeI2C, chip: PCA9685Emulator
) -> None:
    wake_with_ai(bus)
    write(bus, ALL_LED_ON_L, 0, 0, 0x00, 0x08)  # every channel on 0, off 2048
    assert all(chip.output(c).duty == pytest.approx(0.5) for c in range(16))
    assert read(bus, ALL_LED_ON_L, 4) == b"\x00\x00\x00\x00"
    assert ALL_LED_OFF_H == ALL_LED_ON_L + 3


def test_invrt_inverts_outputs(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    wake_with_ai(bus)
    write(bus, MODE2, 0x14)
    write(bus, LED0_ON_L, 0, 0, 0, 0x04)  # 1024 / 4096 high
    assert chip.output(0).duty == pytest.approx(0.75)


def test_outputs_stop_while_asleep_and_restart_after_settling(
    bus: FakeI2C, chip: PCA9685Emulator
) -> None:
    wake_with_ai(bus)
    write(bus, LED0_ON_L, 0, 0x10, 0, 0)
    write(bus, MODE1, 0x30)  # sleep with a channel running
    assert chip.output(0).duty == 0.0
    assert read(bus, MODE1)[0] & 0x80  # RESTART reads 1
    write(bus, MODE1, 0x20)  # wake: still halted until restarted
    assert chip.output(0).duty == 0.0
    write(bus, MODE1, 0xA0)  # restart too soon after waking (< 500 us)
    assert chip.restart_violations == 1
    time.sleep(0.001)
    write(bus, MODE1, 0xA0)
    assert not read(bus, MODE1)[0] & 0x80
    assert chip.output(0).duty == 1.0


def test_software_reset_on_the_general_call(bus: FakeI2C, chip: PCA9685Emulator) -> None:
    wake_with_ai(bus)
    write(bus, LED0_ON_L, 0, 0x10, 0, 0)
    bus.writeto(0x00, b"\x06")
    assert read(bus, MODE1) == b"\x11"
    assert chip.output(0).duty == 0.0


def test_injected_faults_and_a_vanishing_device(bus: FakeI2C) -> None:
    bus.fail_next(2)
    for _ in range(2):
        with pytest.raises(OSError) as info:
            bus.writeto(ADDRESS, b"\x00")
        assert info.value.errno == errno.EIO
    bus.writeto(ADDRESS, b"\x00")  # the bus works again
    bus.remove(ADDRESS)
    with pytest.raises(OSError) as gone:
        bus.writeto(ADDRESS, b"")
    assert gone.value.errno == errno.EREMOTEIO
    bus.restore(ADDRESS)
    bus.writeto(ADDRESS, b"")


def test_listeners_see_each_write_with_the_virtual_time(bus: FakeI2C) -> None:
    clock = VirtualClock(start_s=5.0)
    chip = PCA9685Emulator(0x41, clock=clock)
    bus.attach(chip)
    seen: list[float] = []
    chip.add_listener(lambda _chip, t: seen.append(t))
    bus.writeto(0x41, b"\x00\x20")
    clock.advance(0.25)
    bus.writeto(0x41, b"\x06\x00\x10\x00\x00")
    assert seen == [5.0, 5.25]
