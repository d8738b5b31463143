"""Backends: chosen once, real imports Pi-only modules lazily, sim hands out its parts."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import types

import pytest
from gpiozero.pins.mock import MockFactory

from bermuda_hw.backends import create_backend
from bermuda_hw.backends.real import RealBackend
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.clock import WallClock
from bermuda_hw.config import Config
from bermuda_hw.errors import HardwareError
from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C


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
    backend = create_backend(dataclasses.replace(config, backend="sim"), simulate=False)
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


def test_real_backend_uses_gpiozeros_factory_and_blinkas_bus(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    bus = FakeI2C()
    fake_board = types.ModuleType("board")
    fake_board.I2C = lambda: bus  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "board", fake_board)
    backend = RealBackend(config)
    try:
        assert isinstance(backend.pin_factory, MockFactory)
        assert backend.i2c() is bus
    finally:
        backend.close()
    assert bus.deinited


def test_real_backend_without_a_pin_factory_is_a_clear_error(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    backend = RealBackend(config)
    with pytest.raises(HardwareError, match="no GPIO pin factory"):
        _ = backend.pin_factory
    backend.close()
