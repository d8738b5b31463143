"""Fixtures for the hardware layer: a fresh mock pin factory or simulated backend per test."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config, load_config
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board

sys.path.insert(0, str(Path(__file__).parent))  # hw_standins: stand-ins for Pi-only modules


@pytest.fixture(scope="session")
def board() -> Board:
    return load_board()


@pytest.fixture
def config() -> Config:
    return load_config()


def _tweak(config: Config, section: str, **changes: Any) -> Config:
    """A copy of the configuration with some fields of one section changed."""
    part = getattr(config, section).model_copy(update=changes)
    return config.model_copy(update={section: part})


@pytest.fixture
def tweak() -> Callable[..., Config]:
    """`tweak(config, "sim", start_x_mm=0.0)`: a changed copy of a configuration."""
    return _tweak


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory, installed as gpiozero's default and reset after the test."""
    factory = MockFactory()
    previous = Device.pin_factory
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def make_backend() -> Iterator[Callable[..., SimBackend]]:
    """Build simulated backends from configurations; all are closed after the test."""
    made: list[SimBackend] = []

    def make(config: Config | None = None, **kwargs: Any) -> SimBackend:
        backend = SimBackend(config if config is not None else load_config(), **kwargs)
        made.append(backend)
        return backend

    previous = Device.pin_factory
    try:
        yield make
    finally:
        for backend in made:
            backend.close()
        Device.pin_factory = previous


@pytest.fixture
def sim(make_backend: Callable[..., SimBackend]) -> SimBackend:
    return make_backend()


@pytest.fixture
def make_mover(
    make_backend: Callable[..., SimBackend], board: Board
) -> Iterator[Callable[..., tuple[CloudMover, SimBackend]]]:
    movers: list[CloudMover] = []

    def make(config: Config | None = None, **kwargs: Any) -> tuple[CloudMover, SimBackend]:
        backend = make_backend(config, **kwargs)
        mover = CloudMover(backend.config, backend, board)
        movers.append(mover)
        return mover, backend

    try:
        yield make
    finally:
        for mover in movers:
            mover.close()


FAST_RIG = """
# The reference rig with quarter instead of sixteenth microsteps (20 steps/mm)
# and the carriage starting near its endstops: the same physics, fewer steps.
[gantry.x]
microsteps = 4
[gantry.y]
microsteps = 4
[sim]
start_x_mm = 30.0
start_y_mm = 30.0
"""


@pytest.fixture(scope="session")
def fast_config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    path = tmp_path_factory.mktemp("config") / "fast-rig.toml"
    path.write_text(FAST_RIG)
    return load_config(path)


@pytest.fixture
def rig_mover(
    make_mover: Callable[..., tuple[CloudMover, SimBackend]], fast_config: Config
) -> tuple[CloudMover, SimBackend]:
    """A mover on a fresh simulated rig (the fast variant of the reference rig)."""
    return make_mover(fast_config)
