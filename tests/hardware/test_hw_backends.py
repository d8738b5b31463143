"""Backends: chosen once, real imports Pi-only modules lazily, sim hands out its parts."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from adafruit_pca9685 import PCA9685
from gpiozero.pins.mock import MockFactory
from hw_standins import FakeChip, make_lgpio, make_smbus2

from bermuda_hw.backends import create_backend
from bermuda_hw.backends.camera import Picamera2Source
from bermuda_hw.backends.real import RealBackend
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.clock import WallClock
from bermuda_hw.config import Config
from bermuda_hw.devices.stepper import MotorEnable
from bermuda_hw.errors import BusError, CameraError, HardwareError
from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C, PCA9685Emulator


def test_create_backend_chooses_once(config: Config) -> None:
    sim = create_backend(config, simulate=True)
    try:
        assert isinstance(sim, SimBackend) and sim.name == "sim"
        assert isinstance(sim.clock, VirtualClock)
        assert isinstance(sim.pin_factory, MockFactory)
        assert isinstance(sim.i2c(), FakeI2C)
    finally:
        sim.close()
        sim.close()
    real = create_backend(config, simulate=False)
    assert isinstance(real, RealBackend) and isinstance(real.clock, WallClock)
    real.close()


def test_configured_sim_backend(config: Config) -> None:
    backend = create_backend(
        config.model_copy(update={"backend": config.backend.model_copy(update={"kind": "sim"})}),
        simulate=False,
    )
    assert backend.name == "sim"
    backend.close()


def test_real_backend_imports_no_pi_module_until_asked() -> None:
    code = (
        "import sys\n"
        "from bermuda_hw.backends import create_backend\n"
        "from bermuda_hw.config import load_config\n"
        "import bermuda_hw.motion.mover\n"
        "backend = create_backend(load_config(), simulate=False)\n"
        "backend.close()\n"
        "print(sorted(m for m in ('board', 'RPi', 'lgpio', 'pigpio') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


PI4_REVISION = 0xC03114  # Raspberry Pi 4 Model B, 4 GB
PI5_REVISION = 0xD04170  # Raspberry Pi 5, 4 GB


@pytest.fixture
def pi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., FakeChip]:
    """Make this machine look like a Pi to gpiozero, with a stand-in lgpio module."""

    def make(revision: int = PI4_REVISION, fail_open: str | None = None) -> FakeChip:
        chip = FakeChip(4 if revision == PI5_REVISION else 0)
        monkeypatch.setitem(
            sys.modules, "lgpio", make_lgpio({chip.number: chip}, fail_open=fail_open)
        )
        monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
        monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: revision)
        monkeypatch.setattr(
            "os.path.exists", lambda path: path == "/dev/gpiochip4" and revision == PI5_REVISION
        )
        monkeypatch.delenv("LG_WD", raising=False)
        monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path))
        return chip

    yield make
    sys.modules.pop("gpiozero.pins.lgpio", None)


@pytest.mark.parametrize("revision", [PI4_REVISION, PI5_REVISION])
def test_real_backend_builds_the_lgpio_factory_and_logs_the_chip(
    config: Config,
    pi: Callable[..., FakeChip],
    revision: int,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    chip = pi(revision)
    backend = RealBackend(config)
    with caplog.at_level(logging.INFO, logger="bermuda_hw.controller"):
        factory = backend.pin_factory
    try:
        assert type(factory).__mro__[1].__name__ == "LGPIOFactory"
        assert factory.chip == chip.number
        assert f"gpiozero lgpio pin factory on /dev/gpiochip{chip.number}" in caplog.text
        # lgpio's FIFO goes in systemd's RuntimeDirectory, not the working directory "/"
        assert os.environ["LG_WD"] == str(tmp_path)
    finally:
        backend.close()


def test_enable_is_claimed_already_high_with_lgpio(
    config: Config, pi: Callable[..., FakeChip]
) -> None:
    chip = pi()
    backend = RealBackend(config)
    try:
        enable_pin = config.gantry.enable_pin
        enable = MotorEnable(enable_pin, active_high=False, pin_factory=backend.pin_factory)
        # gpiozero's own lgpio pin claims an output low and then writes it high:
        # an active-low ENABLE would switch the drivers on for that moment
        assert chip.levels(enable_pin) == [1]
        enable.enable()
        enable.close()
        assert chip.levels(enable_pin) == [1, 0, 1]
        # gpiozero then leaves the line as a floating input: the 10 kohm pull-up holds it
        assert chip.line(enable_pin).mode == "input"
    finally:
        backend.close()


def test_a_pin_factory_that_cannot_start_is_fatal_and_names_itself(
    config: Config, pi: Callable[..., FakeChip], monkeypatch: pytest.MonkeyPatch
) -> None:
    pi(fail_open="can not open gpiochip")
    backend = RealBackend(config)
    with pytest.raises(
        HardwareError,
        match=r"GPIO pin factory 'lgpio' \(backend.pin_factory\) "
        r"cannot start: error: can not open gpiochip; .*group gpio",
    ):
        _ = backend.pin_factory
    backend.close()
    # no silent fallback: RPi.GPIO is used only when configured, and fails by its own name
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    rpi = config.model_copy(
        update={"backend": config.backend.model_copy(update={"pin_factory": "rpigpio"})}
    )
    backend = RealBackend(rpi)
    with pytest.raises(HardwareError, match=r"GPIO pin factory 'rpigpio'.*ModuleNotFoundError"):
        _ = backend.pin_factory
    backend.close()


def test_real_backend_i2c_on_smbus2_runs_the_adafruit_driver(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = VirtualClock()
    bus = FakeI2C()
    chip = PCA9685Emulator(0x40, clock=clock)
    bus.attach(chip)
    smbus2 = make_smbus2({1: bus})
    monkeypatch.setitem(sys.modules, "smbus2", smbus2)
    backend = RealBackend(config)
    try:
        i2c = backend.i2c()
        pca = PCA9685(i2c, address=0x40)
        pca.frequency = 1600
        pca.channels[3].duty_cycle = 0xFFFF
        assert chip.output(3).duty == 1.0
        assert round(chip.frequency_hz) in range(1500, 1700)
    finally:
        backend.close()


def test_the_i2c_probe_names_bus_and_address(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "smbus2", make_smbus2({1: FakeI2C()}))
    backend = RealBackend(config)
    with pytest.raises(BusError, match="nothing answers at address 0x40 on /dev/i2c-1"):
        backend.i2c()
    backend.close()
    other = config.model_copy(update={"backend": config.backend.model_copy(update={"i2c_bus": 3})})
    backend = RealBackend(other)
    with pytest.raises(HardwareError, match=r"no /dev/i2c-3: enable I2C"):
        backend.i2c()
    backend.close()


def test_a_picamera2_that_fails_to_import_is_a_camera_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Raspberry Pi OS's picamera2 under a venv's numpy 2 fails with a ValueError, not an
    ImportError: it is reported as a CameraError that says what to do."""
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility. "
        "Expected 96 from C header, got 88 from PyObject')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    camera = Picamera2Source()
    with pytest.raises(CameraError, match=r"numpy.dtype size changed.*scripts/install-pi"):
        camera.open()
    sys.modules.pop("picamera2", None)
