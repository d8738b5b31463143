"""The simulated camera's picamera2 controls: they change the frames, auto exposure and white
balance converge, and `calibrate camera --simulate` settles, locks and writes the values."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.camera_config import parse_camera_config
from bermuda_hw.cli import main
from bermuda_hw.config import Config, load_config
from bermuda_hw.rigcheck.configfile import update_config_text
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.sensor import NEUTRAL_GAINS, Room, SimulatedSensor
from bermuda_hw.sim.world import World

SMALL = """
[camera]
width_px = 320
height_px = 240
"""
DIM_WARM = Room(light=0.45, cast=(1.35, 0.7))  # an evening room under a warm bulb


def _means(image: Any) -> np.ndarray:
    """Mean blue, green and red of a frame."""
    return np.asarray(image, np.float64).reshape(-1, 3).mean(axis=0)


def _backend(
    make_backend: Callable[..., SimBackend], config: Config, board: Board, room: Room | None
) -> SimBackend:
    backend = make_backend(config, world=World(board))
    backend.room = room
    return backend


def test_controls_change_the_frames() -> None:
    image = np.full((4, 4, 3), 100, np.uint8)
    sensor = SimulatedSensor()
    assert sensor.expose(image) is image  # the default room, settled: the rendered look
    sensor.set_controls({"AeEnable": False, "ExposureTime": 10_000})
    assert _means(sensor.expose(image)) == pytest.approx((50, 50, 50), abs=1)
    sensor.set_controls(
        {"AwbEnable": False, "ColourGains": (NEUTRAL_GAINS[0] * 1.2, NEUTRAL_GAINS[1] * 0.8)}
    )
    blue, _green, red = _means(sensor.expose(image))
    assert red == pytest.approx(60, abs=1) and blue == pytest.approx(40, abs=1)
    with pytest.raises(RuntimeError, match="not advertised"):
        sensor.set_controls({"Brightnes": 0.1})
    metadata = sensor.capture_metadata()
    assert metadata["ExposureTime"] == 10_000
    assert metadata["ColourGains"] == pytest.approx(
        (NEUTRAL_GAINS[0] * 1.2, NEUTRAL_GAINS[1] * 0.8)
    )


def test_auto_exposure_and_white_balance_converge_in_a_dim_warm_room() -> None:
    image = np.full((4, 4, 3), 120, np.uint8)
    sensor = SimulatedSensor(DIM_WARM)
    first = _means(sensor.expose(image))
    assert first[1] < 60 and first[2] > first[0] * 1.5  # dark, and orange
    for _ in range(30):
        last = _means(sensor.expose(image))
    assert last == pytest.approx((120, 120, 120), abs=2)
    assert sensor.capture_metadata()["AeLocked"]


def test_settled_values_written_to_the_config_reproduce_the_settled_look(
    make_backend: Callable[..., SimBackend], board: Board, tmp_path: Path
) -> None:
    path = tmp_path / "rig.toml"
    path.write_text(SMALL)
    config = load_config(path)
    backend = _backend(make_backend, config, board, DIM_WARM)
    with backend.open_camera(board) as camera:
        unsettled = _means(camera.read().image)
        values = camera.settle_and_lock(2.0)
        settled = _means(camera.read().image)
        again = _means(camera.read().image)
    assert settled == pytest.approx(again, abs=0.5)  # locked: it holds
    assert np.abs(unsettled - settled).max() > 30  # settling changed the look a lot
    path.write_text(update_config_text(path.read_text(), {"camera": values}))
    # a later start in the same room, with the written values: the settled look at once
    written = load_config(path)
    camera_config = parse_camera_config(written.camera, written.source)
    assert camera_config.exposure_time_us == values["exposure_time_us"]
    fresh = _backend(make_backend, written, board, DIM_WARM)
    with fresh.open_camera(board, camera_config) as camera:
        first = _means(camera.read().image)
    assert first == pytest.approx(settled, abs=1.5)
    # and without them the first frame is the unsettled one
    bare = _backend(make_backend, config, board, DIM_WARM)
    with bare.open_camera(board) as camera:
        assert _means(camera.read().image) == pytest.approx(unsettled, abs=1.5)


def test_calibrate_camera_simulated_writes_the_values(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = table_dir / "rig.toml"
    path.write_text(SMALL)
    assert main(["calibrate", "camera", "--simulate", "--config", str(path), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "settled and locked" in out
    assert "+exposure_time_us = " in out  # the diff, shown before writing
    camera = parse_camera_config(load_config(path).camera)
    assert camera.exposure_time_us > 0 and camera.analogue_gain > 0
    assert camera.colour_gains == pytest.approx(NEUTRAL_GAINS, abs=0.01)
    assert camera.width_px == 320  # the rest of the section is kept
