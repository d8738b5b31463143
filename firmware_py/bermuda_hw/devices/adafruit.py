"""Adafruit's PCA9685 and motor drivers, imported without Blinka's platform modules.

The drivers (`adafruit_pca9685`, `adafruit_motor`, and `adafruit_bus_device` and
`adafruit_register` under them) import `busio`, `digitalio` and `pwmio` only to
name types in annotations, inside `try: ... except ImportError:`. On a Raspberry
Pi, Blinka's versions of those modules load its Raspberry Pi pin module, which
needs the `gpiod` platform library (and on a Pi 5, for `pwmio`, the separate
Raspberry Pi PWM package) and raises RuntimeError, not ImportError, without it:
the drivers' guard does not catch that, and the program would not start.

bermuda-hw never uses Blinka's pins or buses: the PCA9685 is driven over our own
`/dev/i2c-N` bus (`backends.i2c.SMBusI2C`) or the simulator's emulated bus, and
the drivers only call that bus object's methods. So the drivers are imported
while `busio`, `digitalio` and `pwmio` are stand-in modules that carry just the
names the annotations evaluate. The stand-ins are removed again at once: any
later `import busio` gets Blinka's real module, exactly as it would have.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# module -> the names the drivers' annotations take from it
ANNOTATION_MODULES: dict[str, tuple[str, ...]] = {
    "busio": ("I2C", "SPI"),
    "digitalio": ("DigitalInOut",),
    "pwmio": ("PWMOut",),
}


@contextmanager
def annotation_standins() -> Iterator[None]:
    """Stand-ins for Blinka's hardware modules while the drivers' modules are imported.

    A module already imported (Blinka's own, on a machine where it loads) is kept.
    """
    added: list[str] = []
    try:
        for name, attributes in ANNOTATION_MODULES.items():
            if name in sys.modules:
                continue
            module = types.ModuleType(name, "annotation stand-in for the Adafruit drivers")
            for attribute in attributes:
                setattr(module, attribute, type(attribute, (), {"__module__": name}))
            sys.modules[name] = module
            added.append(name)
        yield
    finally:
        for name in added:
            sys.modules.pop(name, None)


def _import_drivers() -> tuple[Any, Any, Any]:
    with annotation_standins():
        from adafruit_motor import servo, stepper
        from adafruit_pca9685 import PCA9685
    return PCA9685, stepper, servo


PCA9685, motor_stepper, motor_servo = _import_drivers()
Servo = motor_servo.Servo
