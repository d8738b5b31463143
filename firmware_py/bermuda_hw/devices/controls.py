"""The table's controls: spin button, status LED, optional buzzer and emergency-stop button."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpiozero import LED, Buzzer

from bermuda_hw.config import ControlsConfig
from bermuda_hw.devices.switch import Switch


class TableControls:
    """The buttons and signals at the table, built from the `[controls]` section."""

    def __init__(self, config: ControlsConfig, *, pin_factory: Any) -> None:
        self.config = config
        self._devices: list[Any] = []
        try:
            self.spin_button = self._add(
                Switch(
                    config.spin_button_pin,
                    wiring=config.spin_button,
                    bounce_time=0.05,
                    pin_factory=pin_factory,
                )
            )
            self.status_led = self._add(LED(config.status_led_pin, pin_factory=pin_factory))
            self.buzzer: Buzzer | None = None
            if config.buzzer_pin is not None:
                self.buzzer = self._add(Buzzer(config.buzzer_pin, pin_factory=pin_factory))
            self.estop_button: Switch | None = None
            if config.estop_pin is not None:
                self.estop_button = self._add(
                    Switch(
                        config.estop_pin,
                        wiring=config.estop,
                        bounce_time=None,
                        pin_factory=pin_factory,
                    )
                )
        except Exception:
            self.close()
            raise

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def on_estop(self, callback: Callable[[], None]) -> None:
        """Call `callback` (in gpiozero's event thread) when the e-stop button is pressed."""
        if self.estop_button is not None:
            self.estop_button.when_pressed = callback
            if self.estop_button.is_pressed:
                callback()

    @property
    def estop_engaged(self) -> bool:
        """True while the e-stop button is held (False when there is none)."""
        return self.estop_button is not None and bool(self.estop_button.is_pressed)

    def close(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> TableControls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
