"""Endstop switches as gpiozero buttons with a configurable active level."""

from __future__ import annotations

from typing import Any

from gpiozero import Button


class Endstop:
    """A limit switch: `is_pressed` when the carriage is at the axis's end."""

    def __init__(self, pin: int, *, active_low: bool, pin_factory: Any) -> None:
        # active low: switch to ground with the internal pull-up; active high: pull-down.
        # A short hold_time: Button's hold thread waits that long when it is closed
        # while pressed (which an endstop often is).
        self._button = Button(
            pin, pull_up=active_low, bounce_time=None, hold_time=0.02, pin_factory=pin_factory
        )

    @property
    def is_pressed(self) -> bool:
        return bool(self._button.is_pressed)

    @property
    def closed(self) -> bool:
        return bool(self._button.closed)

    def close(self) -> None:
        self._button.close()

    def __enter__(self) -> Endstop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
