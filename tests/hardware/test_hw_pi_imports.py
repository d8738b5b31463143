"""The program starts on a Raspberry Pi: Blinka told it runs on one, with no gpiod module.

On a Pi, Blinka's `busio`, `digitalio` and `pwmio` load its Raspberry Pi pin module,
which raises RuntimeError without the `gpiod` platform library. The Adafruit drivers
import those modules for their annotations only; `devices.adafruit` imports them
with stand-ins. Each test runs in a fresh interpreter, since the forced board is read
once, when Blinka is first imported.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bermuda_hw

HERE = Path(__file__).parent

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gpiod") is not None,
    reason="a gpiod module is installed: Blinka would load, and the test would prove nothing",
)


def pi_env(board: str = "RASPBERRY_PI_4B") -> dict[str, str]:
    env = dict(os.environ)
    env.update(BLINKA_FORCEBOARD=board, BLINKA_FORCECHIP="BCM2XXX")
    return env


def python(code: str, board: str = "RASPBERRY_PI_4B") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=pi_env(board),
        timeout=120,
        cwd=HERE,
    )


def command(*argv: str, board: str = "RASPBERRY_PI_4B") -> subprocess.CompletedProcess[str]:
    return python(
        f"import sys; from bermuda_hw.cli import main; sys.exit(main({list(argv)!r}))", board
    )


@pytest.mark.parametrize("board", ["RASPBERRY_PI_4B", "RASPBERRY_PI_5"])
def test_blinka_on_a_pi_without_gpiod_refuses_its_hardware_modules(board: str) -> None:
    # the condition the program must survive: this is what the drivers' imports meet
    result = python("import digitalio", board)
    assert result.returncode != 0
    assert "RuntimeError" in result.stderr and "gpiod" in result.stderr


@pytest.mark.parametrize("board", ["RASPBERRY_PI_4B", "RASPBERRY_PI_5"])
def test_every_production_module_imports_on_a_pi(board: str) -> None:
    code = """
import importlib, json, pkgutil, sys, bermuda_hw
failed = {}
for info in pkgutil.walk_packages(bermuda_hw.__path__, "bermuda_hw."):
    if info.name.startswith("bermuda_hw.sim"):
        continue
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        failed[info.name] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"failed": failed, "count": len(sys.modules),
                  "standins": [m for m in ("busio", "digitalio", "pwmio") if m in sys.modules]}))
"""
    result = python(code, board)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["failed"] == {}
    assert report["standins"] == []  # the annotation stand-ins are gone after the import


def test_the_drivers_keep_blinka_s_real_modules_where_they_load() -> None:
    # on this machine Blinka loads (a generic Linux PC): a later `import busio` is Blinka's
    result = subprocess.run(
        [sys.executable, "-c", "import bermuda_hw.devices.rotation, busio; print(busio.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("busio.py")


@pytest.mark.parametrize(
    "argv", [["--help"], ["motors-off", "--simulate"], ["selftest", "--simulate"]]
)
def test_the_service_s_commands_run_on_a_pi(argv: list[str]) -> None:
    result = command(*argv)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


MOTORS_OFF_ON_THE_RIG = """
import importlib.abc, json, sys
import hw_standins
from bermuda_hw.config import load_config
from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C, PCA9685Emulator

config = load_config()
chip = hw_standins.FakeChip(0)
sys.modules["lgpio"] = hw_standins.make_lgpio({0: chip})
bus = FakeI2C()
bus.attach(PCA9685Emulator(config.rotation.i2c_address, clock=VirtualClock()))
sys.modules["smbus2"] = hw_standins.make_smbus2({1: bus})
enable = config.gantry.enable_pin
seen = {}

class Watch(importlib.abc.MetaPathFinder):
    # notes the ENABLE line's levels when a heavy module is first imported
    def find_spec(self, name, path, target=None):
        if name in HEAVY and name not in seen:
            seen[name] = chip.levels(enable)
            if name in BROKEN:
                raise ImportError(f"{name} is broken on this rig")
        return None

HEAVY = ("adafruit_pca9685", "cv2", "starlette", "uvicorn", "numpy")
BROKEN = set(sys.argv[1:])
sys.meta_path.insert(0, Watch())
import gpiozero.pins.local
gpiozero.pins.local.get_pi_revision = lambda: 0xC03114
from bermuda_hw.cli import main
code = main(["motors-off"])
print(json.dumps({"code": code, "seen": seen, "levels": chip.levels(enable),
                  "disabled": int(not config.gantry.enable_active_high)}))
"""


@pytest.mark.parametrize("broken", [[], ["adafruit_pca9685"]])
def test_motors_off_disables_enable_before_the_driver_stack_loads(
    tmp_path: Path, broken: list[str]
) -> None:
    env = pi_env()
    env.update(
        RUNTIME_DIRECTORY=str(tmp_path),
        PYTHONPATH=os.pathsep.join([str(HERE), str(Path(bermuda_hw.__file__).parents[1])]),
    )
    env.pop("LG_WD", None)
    result = subprocess.run(
        [sys.executable, "-c", MOTORS_OFF_ON_THE_RIG, *broken],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    assert report["code"] == 0
    disabled = report["disabled"]
    # ENABLE was claimed at its disabled level and never left it
    assert report["levels"] and set(report["levels"]) == {disabled}
    # the PCA9685 driver stack came only after ENABLE was driven
    driven = report["seen"]["adafruit_pca9685"]
    assert driven and set(driven) == {disabled}
    # no other command's heavy imports
    assert not {"cv2", "starlette", "uvicorn"} & set(report["seen"])
    assert lines[0].startswith("gantry drivers disabled")
    if broken:
        assert lines[1].startswith("rotation outputs not reached") and "broken" in lines[1]
    else:
        assert lines[1].startswith("rotation outputs off")


def test_motors_off_keeps_the_config_default_path() -> None:
    from bermuda_hw.cli import motors
    from bermuda_hw.config import DEFAULT_CONFIG_PATH

    assert motors.DEFAULT_CONFIG_PATH == DEFAULT_CONFIG_PATH
