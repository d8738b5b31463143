"""Camera sources: replayed folders and videos, live cameras that fail or stall, the sim camera."""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from pytest_mock import MockerFixture
from vision_helpers import on_space

from bermuda_hw.backends.camera import (
    ImageFolderSource,
    LiveSource,
    Picamera2Source,
    VideoCaptureSource,
    VideoFileSource,
)
from bermuda_hw.errors import CameraError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.camera import SimulatedCamera
from bermuda_hw.sim.render import Scene
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import ObservationStream, StabilitySettings


def _write(path: Path, value: int) -> None:
    cv2.imwrite(str(path), np.full((20, 30, 3), value, np.uint8))


def test_folder_replays_images_in_name_order(tmp_path: Path) -> None:
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30), ("notes.txt", 0)):
        if name.endswith(".txt"):
            (tmp_path / name).write_text("x")
        else:
            _write(tmp_path / name, value)
    with ImageFolderSource(tmp_path, fps=5.0) as cam:
        frames = [cam.read() for _ in range(3)]
        with pytest.raises(CameraError, match="no more images"):
            cam.read()
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30]
    assert [f.timestamp_s for f in frames] == [0.0, 0.2, 0.4]
    assert frames[0].image.shape == (20, 30, 3)


def test_folder_loops_and_names_a_corrupt_image(tmp_path: Path) -> None:
    _write(tmp_path / "a.png", 1)
    (tmp_path / "b.png").write_bytes(b"broken")
    cam = ImageFolderSource(tmp_path, loop=True)
    cam.open()
    cam.read()
    with pytest.raises(CameraError, match=r"b\.png: not a readable image"):
        cam.read()
    assert int(cam.read().image[0, 0, 0]) == 1  # looped back to a.png
    cam.close()
    cam.close()  # twice is fine


def test_missing_sources_raise_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="not a folder"):
        ImageFolderSource(tmp_path / "none").open()
    with pytest.raises(CameraError, match="no images"):
        ImageFolderSource(tmp_path).open()
    with pytest.raises(CameraError, match="file not found"):
        VideoFileSource(tmp_path / "none.mp4").open()
    (tmp_path / "junk.avi").write_bytes(b"not a video")
    with pytest.raises(CameraError):
        VideoFileSource(tmp_path / "junk.avi").open()


def test_read_before_open_and_after_close(tmp_path: Path) -> None:
    _write(tmp_path / "a.png", 1)
    cam = ImageFolderSource(tmp_path)
    with pytest.raises(CameraError, match="before open"):
        cam.read()
    cam.open()
    cam.close()
    with pytest.raises(CameraError):
        cam.read()
    with pytest.raises(CameraError, match="reopen"):
        cam.open()


def test_video_file_replay(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    with VideoFileSource(path) as cam:
        frames = [cam.read() for _ in range(5)]
        with pytest.raises(CameraError, match="end of video after 5 frames"):
            cam.read()
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[0].image.shape == (48, 64, 3)
    assert frames[4].timestamp_s > frames[0].timestamp_s


class _Scripted(LiveSource):
    """A live camera that delivers some frames, then blocks (stall) or fails."""

    name = "scripted"

    def __init__(self, frames: int, then: str) -> None:
        super().__init__(timeout_s=0.3)
        self.left = frames
        self.then = then
        self.release = threading.Event()

    def _start(self) -> None:
        pass

    def _grab(self) -> np.ndarray:
        if self.left > 0:
            self.left -= 1
            return np.zeros((4, 4, 3), np.uint8)
        if self.then == "fail":
            raise OSError("USB disconnect")
        self.release.wait(5.0)
        raise OSError("stopped")

    def _stop(self) -> None:
        self.release.set()


def test_a_stalled_camera_times_out() -> None:
    cam = _Scripted(1, "stall")
    with cam:
        assert cam.read().index == 0
        with pytest.raises(CameraError, match="stalled"):
            cam.read(timeout_s=0.2)


def test_a_failing_camera_reports_the_failure() -> None:
    cam = _Scripted(0, "fail")
    with cam, pytest.raises(CameraError, match="USB disconnect"):
        cam.read()


def test_no_usb_camera() -> None:
    with pytest.raises(CameraError, match="no camera"):
        VideoCaptureSource("/dev/null/no-such-camera").open()


def test_picamera2_missing_is_a_clear_error(mocker: MockerFixture) -> None:
    mocker.patch.dict(sys.modules, {"picamera2": None})
    with pytest.raises(CameraError, match="python3-picamera2"):
        Picamera2Source().open()


def test_picamera2_frames_through_a_stand_in_module(mocker: MockerFixture) -> None:
    calls: list[str] = []

    class FakePicamera2:
        @staticmethod
        def global_camera_info() -> list[dict[str, str]]:
            return [{"Model": "imx708"}]

        def __init__(self, num: int) -> None:
            calls.append(f"init {num}")

        def create_video_configuration(self, main: dict[str, object]) -> dict[str, object]:
            calls.append(f"config {main['format']} {main['size']}")
            return {"main": main}

        def configure(self, config: object) -> None:
            calls.append("configure")

        def start(self) -> None:
            calls.append("start")

        def capture_array(self, stream: str) -> np.ndarray:
            image = np.zeros((6, 8, 4), np.uint8)
            image[..., 0] = 7  # blue first: BGR(X) order
            return image

        def stop(self) -> None:
            calls.append("stop")

        def close(self) -> None:
            calls.append("close")

    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    mocker.patch.dict(sys.modules, {"picamera2": module})
    with Picamera2Source(width_px=8, height_px=6) as cam:
        frame = cam.read()
    assert frame.image.shape == (6, 8, 3) and int(frame.image[0, 0, 0]) == 7
    assert calls[:4] == ["init 0", "config RGB888 (8, 6)", "configure", "start"]
    assert calls[-2:] == ["stop", "close"]


def test_simulated_camera_faults(classic_board: Board) -> None:
    with pytest.raises(CameraError, match="no camera"):
        SimulatedCamera(classic_board, Scene, missing=True).open()
    cam = SimulatedCamera(classic_board, Scene, stall_after=1)
    with cam:
        assert cam.read().image.shape == (960, 1280, 3)
        with pytest.raises(CameraError, match="stalled"):
            cam.read()


def test_observation_stream_from_the_simulated_camera(classic_board: Board) -> None:
    board = classic_board
    scene = Scene((on_space(board, "S09", "green"), on_space(board, "S29", "blue")))
    ticks = iter(float(i) * 0.2 for i in range(100))
    clock: Callable[[], float] = lambda: next(ticks)  # noqa: E731
    with SimulatedCamera(board, lambda: scene, clock=clock) as cam:
        stream = ObservationStream(cam, BoardReader(board), StabilitySettings(3, 0.3))
        results = [stream.step() for _ in range(3)]
    assert results[0] is None and results[1] is None
    observation = results[2]
    assert observation is not None
    assert sorted((s.color, s.space) for s in observation.ships) == [
        ("blue", "S29"),
        ("green", "S09"),
    ]
