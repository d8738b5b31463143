"""The `[camera]` controls: parsed with their keys' names, applied through picamera2's controls."""

from __future__ import annotations

import sys
import types
from typing import Any, ClassVar

import numpy as np
import pytest
from pytest_mock import MockerFixture

from bermuda_hw.backends.camera import Picamera2Source
from bermuda_hw.camera_config import parse_camera_config
from bermuda_hw.errors import ConfigError


def test_controls_in_picamera2_s_names() -> None:
    config = parse_camera_config(
        {
            "exposure_time_us": 12000,
            "analogue_gain": 2.5,
            "colour_gains": [1.9, 1.6],
            "af_mode": "manual",
            "lens_position": 2.0,
            "flicker_hz": 50,
        }
    )
    assert config.picamera2_controls() == {
        "AeEnable": False,
        "ExposureTime": 12000,
        "AnalogueGain": 2.5,
        "AwbEnable": False,
        "ColourGains": (1.9, 1.6),
        "AfMode": 0,
        "LensPosition": 2.0,
        "AeFlickerMode": 1,
        "AeFlickerPeriod": 10000,
    }
    assert parse_camera_config({}).picamera2_controls() == {}  # all automatic
    assert parse_camera_config({"af_mode": "continuous"}).picamera2_controls() == {"AfMode": 2}


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("colour_gains", [1.0], "red, blue"),
        ("af_mode", "sometimes", "manual, auto, continuous"),
        ("flicker_hz", 55, "0, 50 or 60"),
        ("exposure_time_us", -1, "at least 0"),
        ("lens_position", "near", "number"),
    ],
)
def test_bad_camera_controls_name_their_key(key: str, value: Any, words: str) -> None:
    with pytest.raises(ConfigError, match=rf"camera\.{key}.*{words}"):
        parse_camera_config({key: value}, "rig.toml")


class _FakeCamera:
    """A stand-in for picamera2.Picamera2 that records controls and reports metadata."""

    log: ClassVar[list[Any]] = []

    @staticmethod
    def global_camera_info() -> list[dict[str, str]]:
        return [{"Model": "imx708"}]

    def __init__(self, num: int) -> None:
        self.controls: dict[str, Any] = {}

    def create_video_configuration(self, main: dict[str, object]) -> dict[str, object]:
        return {"main": main}

    def configure(self, config: object) -> None:
        pass

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.log.append(dict(controls))
        self.controls.update(controls)

    def start(self) -> None:
        self.log.append("start")

    def capture_metadata(self) -> dict[str, Any]:
        return {
            "ExposureTime": 16667,
            "AnalogueGain": 1.8125,
            "ColourGains": (2.03, 1.52),
            "Lux": 300.0,
        }

    def capture_array(self, stream: str) -> np.ndarray:
        return np.zeros((6, 8, 3), np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def fake_picamera2(mocker: MockerFixture) -> list[Any]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakeCamera  # type: ignore[attr-defined]
    mocker.patch.dict(sys.modules, {"picamera2": module})
    _FakeCamera.log = []
    return _FakeCamera.log


def test_controls_are_set_before_the_camera_starts(fake_picamera2: list[Any]) -> None:
    controls = parse_camera_config({"exposure_time_us": 8000, "flicker_hz": 60})
    with Picamera2Source(width_px=8, height_px=6, controls=controls.picamera2_controls()) as cam:
        cam.read()
    assert fake_picamera2[0] == {
        "AeEnable": False,
        "ExposureTime": 8000,
        "AeFlickerMode": 1,
        "AeFlickerPeriod": 8333,
    }
    assert fake_picamera2[1] == "start"


def test_settle_and_lock_holds_what_auto_exposure_found(fake_picamera2: list[Any]) -> None:
    with Picamera2Source(width_px=8, height_px=6) as cam:
        values = cam.settle_and_lock(0.0)
    assert values == {
        "exposure_time_us": 16667,
        "analogue_gain": 1.812,
        "colour_gains": [2.03, 1.52],
    }
    assert fake_picamera2[-1] == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 16667,
        "AnalogueGain": 1.8125,
        "ColourGains": (2.03, 1.52),
    }
    # the values parse back as [camera] keys that lock the camera there
    config = parse_camera_config(values)
    assert config.picamera2_controls()["ExposureTime"] == 16667


def test_the_real_backend_hands_the_camera_keys_to_picamera2(fake_picamera2: list[Any]) -> None:
    """`[camera]` controls reach picamera2 on the rig, not only in a test of the source."""

    from bermuda_hw.backends.real import RealBackend
    from bermuda_hw.config import load_config
    from bermuda_hw.rules.boardfile import load_board

    camera_keys = {"source": "picamera2", "width_px": 64, "height_px": 64, "exposure_time_us": 8000}
    config = load_config().model_copy(update={"camera": parse_camera_config(camera_keys)})
    camera = RealBackend(config).open_camera(load_board())
    assert isinstance(camera, Picamera2Source)
    with camera as cam:
        cam.read()
    assert fake_picamera2[0] == {"AeEnable": False, "ExposureTime": 8000}
