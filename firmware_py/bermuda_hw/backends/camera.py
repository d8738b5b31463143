"""Camera sources: one interface for the Pi camera, a USB camera, replayed files and renders.

Every source opens, reads frames (a BGR image and a timestamp) and closes;
closing twice is fine and `with` works. A missing or failing camera raises
`CameraError` with a clear message; a camera that stops delivering frames
raises `CameraError` after `timeout_s` instead of blocking forever.

Live cameras (picamera2, OpenCV `VideoCapture`) are read by a background
thread that keeps only the newest frame, so a slow reader never works on a
stale picture. Replayed folders and video files deliver every frame in order.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.errors import CameraError

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
DEFAULT_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Frame:
    """One picture: BGR uint8 (height x width x 3), when it was taken, its number."""

    image: Image
    timestamp_s: float
    index: int = 0


SETTLE_BEAT_S = 1.0  # while a camera settles, the heartbeat is called this often


class CameraSource(ABC):
    """A source of frames: `open()`, `read()`, `close()`."""

    name = "camera"

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        self.timeout_s = timeout_s
        self._opened = False
        self._closed = False
        # called while the source waits on its own (a camera settling): a watchdog's kick
        self.heartbeat: Callable[[], None] | None = None

    @property
    def is_open(self) -> bool:
        return self._opened and not self._closed

    def open(self) -> None:
        """Start the camera; opening an open source does nothing."""
        if self._closed:
            raise CameraError(f"{self.name}: cannot reopen a closed camera")
        if not self._opened:
            self._open()
            self._opened = True

    def read(self, timeout_s: float | None = None) -> Frame:
        """The next frame; raises CameraError if none comes within the timeout."""
        if not self.is_open:
            raise CameraError(f"{self.name}: read before open (or after close)")
        return self._read(self.timeout_s if timeout_s is None else timeout_s)

    def close(self) -> None:
        """Stop the camera and release it; closing twice is fine."""
        if self._opened and not self._closed:
            self._close()
        self._closed = True

    def settle_and_lock(self, settle_s: float) -> dict[str, Any]:
        """Let auto exposure and white balance settle, hold them, and return their values."""
        raise CameraError(f"{self.name}: this camera has no exposure or white balance controls")

    def pause(self) -> None:  # noqa: B027 - a live camera overrides it; replays need nothing
        """Take no frames until `resume()` (while the motors run); replays ignore it."""

    def resume(self) -> None:  # noqa: B027
        """Take frames again after `pause()`."""

    def frames(self) -> Iterator[Frame]:
        """Frames until the source ends (replays) or fails."""
        while True:
            yield self.read()

    def __enter__(self) -> CameraSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _read(self, timeout_s: float) -> Frame: ...

    @abstractmethod
    def _close(self) -> None: ...


class LiveSource(CameraSource):
    """A live camera read by a background thread; `read` returns the newest frame.

    Subclasses provide `_start()`, `_grab() -> image` (blocking) and `_stop()`.
    """

    def __init__(
        self, *, timeout_s: float = DEFAULT_TIMEOUT_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(timeout_s=timeout_s)
        self.clock = clock
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._delivered = -1
        self._error: BaseException | None = None
        self._running = False
        self._paused = False
        self._thread: threading.Thread | None = None
        self.grabs = 0  # frames taken from the camera

    def pause(self) -> None:
        """Stop grabbing (the step thread has the CPU to itself) until `resume()`."""
        with self._cond:
            self._paused = True

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    @abstractmethod
    def _start(self) -> None: ...

    @abstractmethod
    def _grab(self) -> Image: ...

    @abstractmethod
    def _stop(self) -> None: ...

    def _open(self) -> None:
        self._start()
        self._running = True
        self._thread = threading.Thread(target=self._loop, name=f"{self.name}-reader", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        index = 0
        while self._running:
            with self._cond:
                while self._paused and self._running:
                    self._cond.wait(0.5)
            if not self._running:
                return
            try:
                image = self._grab()
                self.grabs += 1
            except BaseException as exc:  # reported to the reader, not lost in the thread
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()
                return
            frame = Frame(image, self.clock(), index)
            index += 1
            with self._cond:
                self._latest = frame
                self._cond.notify_all()

    def _read(self, timeout_s: float) -> Frame:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                if self._latest is not None and self._latest.index > self._delivered:
                    self._delivered = self._latest.index
                    return self._latest
                if self._error is not None:
                    raise CameraError(f"{self.name}: camera failed: {self._error}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CameraError(
                        f"{self.name}: camera stalled: no new frame in {timeout_s:g} s"
                    )
                self._cond.wait(left)

    def _close(self) -> None:
        """Stop the reader thread and wait for it, then release the device.

        A grab that never returns (a hung device) is waited for up to the
        timeout; releasing the device then ends it.
        """
        with self._cond:
            self._running = False
            self._cond.notify_all()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=self.timeout_s)
        try:
            self._stop()
        finally:
            if thread is not None and thread.is_alive():
                thread.join(timeout=self.timeout_s)


class Picamera2Source(LiveSource):
    """The Raspberry Pi camera through picamera2 (imported only when opened).

    picamera2's "RGB888" format lays pixels out in B, G, R order: what OpenCV
    expects. Set `swap_red_blue` for a sensor that delivers them the other way.
    """

    name = "picamera2"

    def __init__(
        self,
        *,
        width_px: int = 1280,
        height_px: int = 960,
        camera_num: int = 0,
        swap_red_blue: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        controls: dict[str, Any] | None = None,
        lock_after_s: float | None = None,
    ) -> None:
        """`controls`: libcamera controls by picamera2's names (see `CameraConfig`);
        `lock_after_s`: let AE and AWB settle that long after starting, then lock them."""
        super().__init__(timeout_s=timeout_s)
        self.size = (width_px, height_px)
        self.camera_num = camera_num
        self.swap_red_blue = swap_red_blue
        self.controls = dict(controls or {})
        self.lock_after_s = lock_after_s
        self.locked: dict[str, Any] = {}
        self._camera: Any = None

    def _start(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError(
                "picamera2: not installed (on Raspberry Pi OS: sudo apt install "
                "python3-picamera2, and make the venv with --system-site-packages)"
            ) from exc
        except Exception as exc:  # e.g. "numpy.dtype size changed": a numpy the apt build
            # of picamera2 was not compiled for
            raise CameraError(
                f"picamera2 cannot be imported: {type(exc).__name__}: {exc}; the venv's "
                "numpy or opencv does not match Raspberry Pi OS's picamera2: reinstall with "
                "scripts/install-pi (it pins numpy < 2 on bookworm)"
            ) from exc
        try:
            if not Picamera2.global_camera_info():
                raise CameraError("picamera2: no camera connected")
            camera = Picamera2(self.camera_num)
            config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            camera.configure(config)
            if self.controls:
                camera.set_controls(self.controls)
            camera.start()
        except CameraError:
            raise
        except Exception as exc:
            raise CameraError(f"picamera2: cannot start camera {self.camera_num}: {exc}") from exc
        self._camera = camera
        if self.lock_after_s is not None:
            self.settle_and_lock(self.lock_after_s)

    def settle_and_lock(self, settle_s: float) -> dict[str, Any]:
        """Let AE and AWB settle on the scene, then fix exposure, gain and colour gains there.

        Returns the values as `[camera]` keys (exposure_time_us, analogue_gain, colour_gains).
        """
        camera = self._camera
        if camera is None:
            raise CameraError("picamera2: settle_and_lock before the camera started")
        try:
            camera.set_controls({"AeEnable": True, "AwbEnable": True})
            # the wait may be longer than systemd's watchdog period: kick it meanwhile
            deadline_s = time.monotonic() + settle_s
            while (left_s := deadline_s - time.monotonic()) > 0:
                if self.heartbeat is not None:
                    self.heartbeat()
                time.sleep(min(left_s, SETTLE_BEAT_S))
            metadata = camera.capture_metadata()
            exposure = int(metadata["ExposureTime"])
            gain = float(metadata["AnalogueGain"])
            red, blue = (float(g) for g in metadata["ColourGains"])
            camera.set_controls(
                {
                    "AeEnable": False,
                    "AwbEnable": False,
                    "ExposureTime": exposure,
                    "AnalogueGain": gain,
                    "ColourGains": (red, blue),
                }
            )
        except CameraError:
            raise
        except Exception as exc:
            raise CameraError(f"picamera2: cannot lock exposure and white balance: {exc}") from exc
        self.locked = {
            "exposure_time_us": exposure,
            "analogue_gain": round(gain, 3),
            "colour_gains": [round(red, 3), round(blue, 3)],
        }
        return dict(self.locked)

    def _grab(self) -> Image:
        image = np.asarray(self._camera.capture_array("main"))
        if image.ndim == 3 and image.shape[2] == 4:
            image = image[..., :3]
        if self.swap_red_blue:
            image = image[..., ::-1]
        return np.ascontiguousarray(image, np.uint8)

    def _stop(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
            finally:
                self._camera.close()
                self._camera = None


class VideoCaptureSource(LiveSource):
    """A USB (UVC) camera, or a stream URL, through OpenCV's VideoCapture."""

    name = "usb"

    def __init__(
        self,
        device: int | str = 0,
        *,
        width_px: int | None = 1280,
        height_px: int | None = 960,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        super().__init__(timeout_s=timeout_s)
        self.device = device
        self.size = (width_px, height_px)
        self._capture: Any = None
        self.name = f"usb:{device}"

    def _start(self) -> None:
        capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"{self.name}: no camera (cannot open device {self.device!r})")
        width, height = self.size
        if width:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._capture = capture

    def _grab(self) -> Image:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError("the device delivered no frame (unplugged?)")
        return np.asarray(image, np.uint8)

    def _stop(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class ImageFolderSource(CameraSource):
    """Replays the images of a folder in name order (`loop` starts again at the end).

    Timestamps are the frame number divided by `fps`, so a replay is the same
    every time.
    """

    name = "folder"

    def __init__(
        self,
        folder: str | Path,
        *,
        fps: float = 10.0,
        loop: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        super().__init__(timeout_s=timeout_s)
        self.folder = Path(folder)
        self.fps = fps
        self.loop = loop
        self.files: list[Path] = []
        self._next = 0
        self.name = f"folder:{self.folder}"

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"{self.name}: not a folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"{self.name}: no images ({', '.join(IMAGE_SUFFIXES)})")

    def _read(self, timeout_s: float) -> Frame:
        if self._next >= len(self.files) and not self.loop:
            raise CameraError(f"{self.name}: no more images")
        index = self._next
        self._next += 1  # a corrupt file is reported once; the replay goes on after it
        image = read_image_file(self.files[index % len(self.files)])
        return Frame(image, index / self.fps, index)

    def _close(self) -> None:
        self.files = []


class VideoFileSource(CameraSource):
    """Replays a video file frame by frame; timestamps are the video's own."""

    name = "video"

    def __init__(self, path: str | Path, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        super().__init__(timeout_s=timeout_s)
        self.path = Path(path)
        self._capture: Any = None
        self._index = 0
        self.name = f"video:{self.path}"

    def _open(self) -> None:
        if not self.path.is_file():
            raise CameraError(f"{self.name}: file not found")
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"{self.name}: cannot be opened as a video")
        self._capture = capture

    def _read(self, timeout_s: float) -> Frame:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"{self.name}: end of video after {self._index} frames")
        msec = float(self._capture.get(cv2.CAP_PROP_POS_MSEC))
        frame = Frame(np.asarray(image, np.uint8), msec / 1000.0, self._index)
        self._index += 1
        return frame

    def _close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def read_image_file(path: str | Path) -> Image:
    """Read an image file as BGR uint8; CameraError (naming the file) if it cannot be."""
    file = Path(path)
    if not file.is_file():
        raise CameraError(f"{file}: file not found")
    try:
        data = np.fromfile(file, np.uint8)
    except OSError as exc:
        raise CameraError(f"{file}: cannot be read: {exc}") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise CameraError(f"{file}: not a readable image (corrupt or unknown format)")
    return np.asarray(image, np.uint8)
