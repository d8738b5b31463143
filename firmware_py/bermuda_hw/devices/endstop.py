"""Endstop switches: a `Switch` that is pressed when the carriage is at the axis's end."""

from __future__ import annotations

from typing import Any

from bermuda_hw.config import SwitchWiring
from bermuda_hw.devices.switch import Switch


class Endstop:
    """A limit switch: `is_pressed` when the carriage is at the axis's end (or its wire is cut,
    for a normally-closed switch)."""

    def __init__(self, pin: int, *, wiring: SwitchWiring, pin_factory: Any) -> None:
        # A short hold_time: Button's hold thread waits that long when it is closed
        # while pressed (which an endstop often is).
        self._button = Switch(
            pin, wiring=wiring, bounce_time=None, hold_time=0.02, pin_factory=pin_factory
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
