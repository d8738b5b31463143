"""The configuration file: defaults, strict checking, and errors that name file, key and problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from bermuda_hw.config import load_config, pin_map
from bermuda_hw.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_built_in_defaults_describe_the_reference_rig() -> None:
    config = load_config()
    assert config.source is None
    assert config.gantry.x.steps_per_mm == pytest.approx(80.0)
    assert config.rotation.kind == "stepper"
    assert config.rotation.i2c_address == 0x40
    assert len(set(pin_map(config).values())) == len(pin_map(config))


def test_a_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = write(tmp_path, "[gantry]\naccel_mm_s2 = 90.0\n[gantry.y]\ninvert_dir = true\n")
    config = load_config(path)
    assert config.source == str(path)
    assert config.gantry.accel_mm_s2 == 90.0
    assert config.gantry.y.invert_dir is True
    assert config.gantry.max_speed_mm_s == load_config().gantry.max_speed_mm_s


def test_camera_table_passes_through_unchecked(tmp_path: Path) -> None:
    path = write(tmp_path, '[camera]\nkind = "usb"\nwhatever = [1, 2]\n[camera.inner]\nx = 1\n')
    config = load_config(path)
    assert config.camera["kind"] == "usb"
    assert config.camera["whatever"] == [1, 2]
    assert config.camera["inner"] == {"x": 1}


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[gantry]\nmax_sped_mm_s = 1.0\n", "gantry.max_sped_mm_s", "unknown key"),
        ("[nonsense]\n", "nonsense", "unknown key"),
        ("[gantry.x]\nstep_pin = 21\n", "gantry.x.step_pin", "already used by gantry.x.dir_pin"),
        ("[gantry.y]\ndir_pin = 20\n", "gantry.y.dir_pin", "already used by gantry.x.step_pin"),
        ("[controls]\nbuzzer_pin = 17\n", "controls.buzzer_pin", "already used"),
        ("[controls]\nestop_pin = 2\n", "controls.estop_pin", "I2C SDA"),
        ("[gantry.x]\nendstop_pin = 40\n", "gantry.x.endstop_pin", "not a usable GPIO"),
        ("[gantry]\naccel_mm_s2 = 0\n", "gantry.accel_mm_s2", "greater than 0"),
        ("[gantry]\naccel_mm_s2 = \"fast\"\n", "gantry.accel_mm_s2", "must be a number"),
        ("[gantry]\nmax_speed_mm_s = 200.0\n", "gantry.max_speed_mm_s", "above max_step_rate_hz"),
        ("[gantry.x]\nmicrosteps = 12\n", "gantry.x.microsteps", "power of two"),
        ("[gantry.y]\nhome_speed_mm_s = 80.0\n", "gantry.y.home_speed_mm_s", "must not exceed"),
        ("[gantry.x]\nhome_slow_speed_mm_s = 30.0\n", "gantry.x.home_slow_speed_mm_s", "exceed"),
        ("[rotation]\nkind = \"linear\"\n", "rotation.kind", "must be one of"),
        ("[rotation.stepper]\nchannels = [0, 1, 1, 3]\n", "rotation.stepper.channels", "four"),
        ("[rotation.servo]\nmax_pulse_us = 400\n", "rotation.servo.max_pulse_us", "greater"),
        (
            "[rotation]\nkind = \"servo\"\n[rotation.servo]\ncloud_deg_per_servo_deg = 1.0\n",
            "rotation.servo.actuation_range_deg",
            "letter H needs 315",
        ),
        ("[gantry]\nmin_pulse_us = 100.0\n", "gantry.max_step_rate_hz", "cannot hold"),
        ("gantry = 3\n", "gantry", "must be a table"),
    ],
)
def test_bad_values_name_file_key_and_problem(
    tmp_path: Path, text: str, key: str, problem: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.file == str(path)
    assert info.value.key == key
    assert problem in info.value.problem
    assert str(path) in str(info.value) and key in str(info.value)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[gantry\n"))


def test_optional_controls(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[controls]\nbuzzer_pin = 12\nestop_pin = 4\n"))
    assert config.controls.buzzer_pin == 12
    assert config.controls.estop_pin == 4
    assert load_config().controls.estop_pin is None
