"""The camera view for the page: the latest frame with vision's overlay and the places to fix.

Frames are encoded only while a client watches, at most `max_fps` a second,
and once per frame whatever the number of clients: the encoder keeps the last
JPEG and the frame number it came from.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import cv2
import numpy as np

from bermuda_hw.rules.board import Board
from bermuda_hw.vision.annotate import annotate

MAX_FPS = 4.0
MAX_WIDTH_PX = 640
FIX_BGR = (0, 140, 255)


class CameraEncoder:
    """Annotated JPEGs of the controller's latest frame, made on demand and shared."""

    def __init__(
        self,
        board: Board,
        view: Callable[[], Any],
        *,
        max_fps: float = MAX_FPS,
        max_width_px: int = MAX_WIDTH_PX,
    ) -> None:
        self.board = board
        self.view = view  # returns the controller's CameraView (or None)
        self.max_fps = max_fps
        self.max_width_px = max_width_px
        self._lock = threading.Lock()
        self._last: tuple[int, bytes] | None = None
        self._encoded_at = 0.0
        self.encoded = 0  # frames encoded so far (for tests and benchmarks)

    def jpeg(self, fix_places: Iterable[str] = ()) -> bytes | None:
        """The latest frame as JPEG, re-encoded at most `max_fps` times a second."""
        with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._encoded_at < 1.0 / self.max_fps:
                return self._last[1]
            view = self.view()
            if view is None:
                return None if self._last is None else self._last[1]
            if self._last is not None and self._last[0] == view.frame:
                return self._last[1]
            data = self._encode(view, tuple(fix_places))
            self._last = (view.frame, data)
            self._encoded_at = now
            self.encoded += 1
            return data

    def _encode(self, view: Any, fix_places: tuple[str, ...]) -> bytes:
        image: Any
        if view.reading is not None:
            image = annotate(view.image, self.board, view.reading, view.pose)  # a copy
        else:
            image = view.image.copy()  # the controller's frame is never drawn on
        if fix_places and view.pose is not None:
            for place in fix_places:
                space = self.board.spaces.get(place)
                if space is None:
                    continue
                c = view.pose.to_image(np.array([[space.x_mm, space.y_mm]], np.float64))[0]
                r = max(8, round(view.pose.px_per_mm(space.x_mm, space.y_mm) * 16))
                cv2.circle(
                    image, (round(float(c[0])), round(float(c[1]))), r, FIX_BGR, 3, cv2.LINE_AA
                )
        h, w = image.shape[:2]
        if w > self.max_width_px:
            image = cv2.resize(
                image,
                (self.max_width_px, round(h * self.max_width_px / w)),
                interpolation=cv2.INTER_AREA,
            )
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if not ok:  # pragma: no cover - OpenCV encodes any BGR image
            raise RuntimeError("JPEG encoding failed")
        return bytes(buf)


def fix_places(status: Mapping[str, Any] | None) -> list[str]:
    """The places a fix request names (missing and extra ships)."""
    fix = (status or {}).get("fix") or {}
    places = [p[1] for key in ("missing", "extra") for p in fix.get(key, ()) if p[1]]
    return sorted(set(places))
