"""A camera that settles for longer than systemd's watchdog period keeps kicking it."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from bermuda_hw.backends import camera as sources


class _SettlingCamera:
    """picamera2.Picamera2's calls that a settle makes, and nothing more."""

    @staticmethod
    def global_camera_info() -> list[dict[str, str]]:
        return [{"Model": "imx708"}]

    def __init__(self, num: int) -> None:
        pass

    def create_video_configuration(self, main: dict[str, object]) -> dict[str, object]:
        return {"main": main}

    def configure(self, config: object) -> None:
        pass

    def set_controls(self, controls: dict[str, Any]) -> None:
        pass

    def start(self) -> None:
        pass

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 16667, "AnalogueGain": 1.5, "ColourGains": (2.0, 1.5)}

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_settle_wait_kicks_the_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("picamera2")
    module.Picamera2 = _SettlingCamera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(sources, "SETTLE_BEAT_S", 0.02)
    beats: list[float] = []
    source = sources.Picamera2Source(width_px=8, height_px=6, lock_after_s=0.2)
    source.heartbeat = lambda: beats.append(0.0)
    source.open()  # settles for 0.2 s, then locks
    try:
        assert source.locked["exposure_time_us"] == 16667
        assert len(beats) >= 5  # one every 0.02 s, not one sleep of the whole wait
    finally:
        source.close()
