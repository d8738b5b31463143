"""The camera behind the backend seam: `[camera]` checked, real sources built, the sim renders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bermuda_hw.backends.camera import ImageFolderSource, Picamera2Source, VideoCaptureSource
from bermuda_hw.backends.real import RealBackend
from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.camera_config import CameraConfig, parse_camera_config
from bermuda_hw.config import Config, load_config
from bermuda_hw.errors import CameraError, ConfigError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.sim.world import Carried, World
from bermuda_hw.vision import BoardReader


@pytest.mark.parametrize(
    ("data", "key", "problem"),
    [
        ({"colour": 1}, "camera.colour", "unknown key"),
        ({"width_px": "wide"}, "camera.width_px", "integer"),
        ({"width_px": 10}, "camera.width_px", "at least 64"),
        ({"timeout_s": -1}, "camera.timeout_s", "at least 0.05"),
        ({"swap_red_blue": 1}, "camera.swap_red_blue", "true or false"),
        ({"source": "webcam"}, "camera.source", "picamera2, usb:N"),
        ({"stable_frames": 0}, "camera.stable_frames", "at least 1"),
    ],
)
def test_bad_camera_settings_name_file_key_and_problem(
    data: dict[str, object], key: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_camera_config(data, "/etc/bermuda-hw/config.toml")
    message = str(caught.value)
    assert message.startswith("/etc/bermuda-hw/config.toml: " + key)
    assert problem in message


def test_camera_section_from_a_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[camera]\nsource = "usb:1"\nwidth_px = 800\nheight_px = 600\n')
    camera = parse_camera_config(load_config(path).camera, path)
    assert camera == CameraConfig(source="usb:1", width_px=800, height_px=600)


def test_real_backend_builds_the_configured_source(tmp_path: Path) -> None:
    config = load_config()
    backend = RealBackend(config)
    board_stub: Board = None  # type: ignore[assignment]
    assert isinstance(backend.open_camera(board_stub, CameraConfig()), Picamera2Source)
    usb = backend.open_camera(board_stub, CameraConfig(source="usb:2"))
    assert isinstance(usb, VideoCaptureSource) and usb.device == 2
    folder = backend.open_camera(board_stub, CameraConfig(source=str(tmp_path)))
    assert isinstance(folder, ImageFolderSource)
    missing = backend.open_camera(board_stub, CameraConfig(source=str(tmp_path / "x.mp4")))
    with pytest.raises(CameraError, match="not found"):
        missing.open()


def test_sim_backend_camera_renders_the_world(board: Board, table_config: Config) -> None:
    world = World(board)
    game = Game.new(2, seed=1, board=board)
    for sid, (x_mm, y_mm) in game.ship_positions().items():
        world.place_ship(sid, x_mm, y_mm)
    backend = SimBackend(table_config, world)
    try:
        camera = backend.open_camera(board)
        with camera:
            first = camera.read()
            second = camera.read()
        assert first.image.shape == (480, 640, 3) and first.image.dtype == np.uint8
        assert second.timestamp_s > first.timestamp_s  # each frame advances the sim clock
        reading = BoardReader(board).read(second.image, second.timestamp_s)
        seen = sorted((s.color, s.space) for s in reading.ships)
        assert seen == sorted((s.color, s.location) for s in game.ships())
        assert reading.cloud is not None
        # a ship carried by the cloud is inside it: not drawn
        world.carried["blue-1"] = Carried(0.0, 0.0)
        assert backend.scene is not None
        assert len(backend.scene().ships) == len(game.ship_ids) - 1
    finally:
        backend.close()


def test_sim_camera_faults_are_injectable(board: Board, table_config: Config) -> None:
    backend = SimBackend(table_config, World(board))
    try:
        backend.camera_missing = True
        with pytest.raises(CameraError, match="no camera"):
            backend.open_camera(board).open()
    finally:
        backend.close()
