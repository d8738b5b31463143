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


def test_the_camera_table_goes_through_the_same_checks(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[camera]\nsource = "usb:0"\nwidth_px = 640\n'))
    camera = config.camera
    assert (camera.source, camera.width_px, camera.height_px) == ("usb:0", 640, 960)
    assert camera.model_fields_set == {"source", "width_px"}  # the keys the file wrote
    for text, key, problem in (
        ('[camera]\nkind = "usb"\n', "camera.kind", "unknown key"),
        ("[camera]\nwidth_px = 10\n", "camera.width_px", "at least 64"),
        ('[camera]\nwidth_px = "wide"\n', "camera.width_px", "must be an integer"),
        ("camera = 3\n", "camera", "must be a table"),
        ("[camera.inner]\nx = 1\n", "camera.inner", "unknown key"),
    ):
        with pytest.raises(ConfigError) as info:
            load_config(write(tmp_path, text))
        assert (info.value.key, info.value.file) == (key, str(tmp_path / "config.toml"))
        assert problem in info.value.problem


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[gantry]\nmax_sped_mm_s = 1.0\n", "gantry.max_sped_mm_s", "unknown key"),
        ("[nonsense]\n", "nonsense", "unknown key"),
        ("[gantry.x]\nstep_pin = 21\n", "gantry.x.step_pin", "already used by gantry.x.dir_pin"),
        ("[gantry.y]\ndir_pin = 20\n", "gantry.y.dir_pin", "already used by gantry.x.step_pin"),
        ("[controls]\nbuzzer_pin = 7\n", "controls.buzzer_pin", "already used"),
        ("[controls]\nestop_pin = 2\n", "controls.estop_pin", "I2C SDA"),
        ("[gantry.x]\nendstop_pin = 40\n", "gantry.x.endstop_pin", "not a usable GPIO"),
        ("[gantry]\naccel_mm_s2 = 0\n", "gantry.accel_mm_s2", "greater than 0"),
        ('[gantry]\naccel_mm_s2 = "fast"\n', "gantry.accel_mm_s2", "must be a number"),
        ("[gantry]\nmax_speed_mm_s = 200.0\n", "gantry.max_speed_mm_s", "above max_step_rate_hz"),
        ("[gantry.x]\nmicrosteps = 12\n", "gantry.x.microsteps", "power of two"),
        ("[gantry.y]\nhome_speed_mm_s = 80.0\n", "gantry.y.home_speed_mm_s", "must not exceed"),
        ("[gantry.x]\nhome_slow_speed_mm_s = 30.0\n", "gantry.x.home_slow_speed_mm_s", "exceed"),
        ('[rotation]\nkind = "linear"\n', "rotation.kind", "must be one of"),
        ("[rotation.stepper]\nchannels = [0, 1, 1, 3]\n", "rotation.stepper.channels", "four"),
        ("[rotation.servo]\nmax_pulse_us = 400\n", "rotation.servo.max_pulse_us", "greater"),
        (
            '[rotation]\nkind = "servo"\n[rotation.servo]\ncloud_deg_per_servo_deg = 1.0\n',
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
    with pytest.raises(ConfigError, match=r"missing\.toml: file not found"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[gantry\n"))


def test_optional_controls(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[controls]\nbuzzer_pin = 12\nestop_pin = 4\n"))
    assert config.controls.buzzer_pin == 12
    assert config.controls.estop_pin == 4
    assert load_config().controls.estop_pin == 4  # required on the rig: wired by default
    assert load_config().controls.buzzer_pin is None


@pytest.mark.parametrize(
    ("text", "key", "names"),
    [
        (
            "[gantry.x]\nendstop_active_low = true\n",
            "gantry.x.endstop_active_low",
            "endstop_contact",
        ),
        ("[controls]\nestop_active_low = false\n", "controls.estop_active_low", "estop_pull"),
        (
            "[controls]\nspin_button_active_low = true\n",
            "controls.spin_button_active_low",
            "spin_button_contact",
        ),
    ],
)
def test_the_old_active_low_keys_name_their_replacements(
    tmp_path: Path, text: str, key: str, names: str
) -> None:
    with pytest.raises(ConfigError, match="replaced by") as info:
        load_config(write(tmp_path, text))
    assert info.value.key == key and names in str(info.value)


def test_switch_wiring_defaults_fail_safe() -> None:
    config = load_config()
    # the e-stop and the endstops are normally closed to ground: a cut wire reads pressed
    for wiring in (config.controls.estop, config.gantry.x.endstop, config.gantry.y.endstop):
        assert (wiring.contact, wiring.pull) == ("nc", "up")
        assert wiring.open_level == wiring.pressed_level
    assert (config.controls.spin_button.contact, config.controls.spin_button.pull) == ("no", "up")


def test_switch_wiring_keys_are_checked(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path, '[gantry.y]\nendstop_contact = "no"\nendstop_pull = "external"\n')
    )
    assert (config.gantry.y.endstop.contact, config.gantry.y.endstop.pull) == ("no", "external")
    with pytest.raises(ConfigError, match=r"gantry.x.endstop_pull: must be one of up, down"):
        load_config(write(tmp_path, '[gantry.x]\nendstop_pull = "sideways"\n'))


@pytest.mark.parametrize("key", ["step_pin", "dir_pin"])
def test_step_and_dir_refuse_pins_pulled_high_at_boot(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match="pulled high at boot") as info:
        load_config(write(tmp_path, f"[gantry.y]\n{key} = 6\n"))
    assert info.value.key == f"gantry.y.{key}"
    defaults = load_config()
    for axis in defaults.gantry.axes:
        assert axis.step_pin >= 9 and axis.dir_pin >= 9
    assert defaults.gantry.enable_pin < 9  # ENABLE (active low) is pulled high at boot


def test_backend_keys(tmp_path: Path) -> None:
    settings = load_config().backend
    assert (settings.pin_factory, settings.gpio_chip, settings.i2c_bus) == ("lgpio", None, 1)
    path = write(tmp_path, '[backend]\npin_factory = "rpigpio"\ngpio_chip = 4\ni2c_bus = 3\n')
    settings = load_config(path).backend
    assert (settings.pin_factory, settings.gpio_chip, settings.i2c_bus) == ("rpigpio", 4, 3)
    with pytest.raises(ConfigError, match=r"backend\.pin_factory: must be one of lgpio, rpigpio"):
        load_config(write(tmp_path, '[backend]\npin_factory = "native"\n'))


def test_the_example_config_loads_and_names_every_key() -> None:
    """hardware/config.example.toml is the builder's reference: it loads, and it shows every
    key the built-in defaults have (a key added to one and not the other fails here)."""
    import tomllib
    from pathlib import Path

    from bermuda_hw.config import default_config_text

    example = Path(__file__).resolve().parents[2] / "hardware" / "config.example.toml"
    load_config(example)

    def keys(table: dict[str, object], prefix: str = "") -> set[str]:
        out: set[str] = set()
        for k, v in table.items():
            out |= keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k}
        return out

    defaults = keys(tomllib.loads(default_config_text()))
    shown = keys(tomllib.loads(example.read_text("utf-8")))
    assert defaults - shown == set()
