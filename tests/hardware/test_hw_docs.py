"""The builder's documents agree with the code: the pin map, the wiring diagram, the steps."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bermuda_hw.config import load_config, pin_map

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware" / "README.md"


def test_the_pin_table_is_the_default_configuration() -> None:
    rows = re.findall(
        r"^\| (\d+) \| \d+ \| [^|]+ \| `([a-z_.]+)` \|$", HARDWARE.read_text(), flags=re.MULTILINE
    )
    assert {key: int(bcm) for bcm, key in rows} == {
        key: pin for key, pin in pin_map(load_config()).items()
    } | {"controls.buzzer_pin": 12, "controls.supply_relay_pin": 17}


def test_the_wiring_diagram_shows_every_default_pin() -> None:
    svg = (ROOT / "hardware" / "wiring.svg").read_text()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for key, pin in pin_map(load_config()).items():
        assert f"GPIO{pin} [" in text, key
    assert "[0, 2, 1, 3]" in text and "10 kohm" in text


@pytest.mark.parametrize(
    "phrase",
    [
        "10 kohm pull-up",
        "MS1 = MS2 = GND is 1/8",
        "at least two magnets off the axis",
        "drag chain",
        "i2c_arm_baudrate=400000",
        "**OE**",
        "RC filter",
        "wiring.svg",
        "Camera Module 3",
        "27 W",
        "Active Cooler",
        "The motor supply",
        "supply_relay_pin",
        "rotation.stepper.channels = [0, 2, 1, 3]",
        "Homing and the ships",
    ],
)
def test_the_hardware_guide_covers(phrase: str) -> None:
    assert phrase in HARDWARE.read_text()


def test_the_readme_has_the_builders_path() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Building the rig", 1)[1].split("\n## ", 1)[0]
    for phrase in (
        "scripts/install-pi",
        "bermuda-hw selftest",
        "bermuda-hw calibrate gantry",
        "calibrate rotation",
        "systemctl start bermuda-hw",
        "motors-off",
    ):
        assert phrase in section
