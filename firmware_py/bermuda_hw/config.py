"""The rig's configuration: one TOML file read once at start-up into typed, checked objects."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from bermuda_hw.errors import ConfigError, not_utf8

DEFAULT_CONFIG_PATH = Path("/etc/bermuda-hw/config.toml")

# BCM numbers a device may use on the 40-pin header (0 and 1 are the HAT EEPROM's I2C).
_USABLE_BCM = range(2, 28)
# BCM 2 and 3 carry the I2C bus that the PCA9685 is on.
_I2C_PINS = {2: "I2C SDA", 3: "I2C SCL"}
# BCM 0-8 are pulled high from power-on until the service claims them: a STEP or DIR
# line there would see an edge before the software runs (BCM 9-27 are pulled low).
BOOT_PULL_UP_BCM = range(0, 9)

Contact = Literal["nc", "no"]
Pull = Literal["up", "down", "external"]
PinFactoryName = Literal["lgpio", "rpigpio"]


@dataclass(frozen=True)
class SwitchWiring:
    """How a switch is wired to its input: its contact, and what holds the line when open.

    `pull` "up" (the Pi's pull-up, switch to ground), "down" (the Pi's pull-down,
    switch to 3.3 V) or "external" (a resistor on the board pulls the line up,
    switch to ground; the Pi's own pull is off). A normally-closed ("nc") contact
    opens when pressed, so a broken wire reads as pressed.
    """

    contact: Contact
    pull: Pull

    @property
    def closed_level(self) -> bool:
        """The line's level while the contact is closed (True: high)."""
        return self.pull == "down"

    @property
    def pressed_level(self) -> bool:
        """The line's level while the switch is pressed (actuated)."""
        return self.closed_level if self.contact == "no" else not self.closed_level

    def level(self, pressed: bool) -> bool:
        """The line's level for a switch that is, or is not, pressed."""
        return self.pressed_level if pressed else not self.pressed_level

    @property
    def open_level(self) -> bool:
        """The level of an open contact, or of a broken wire: where the pull holds it."""
        return not self.closed_level


@dataclass(frozen=True)
class AxisConfig:
    """One gantry axis: pins, mechanics, travel, calibration and homing."""

    name: str
    step_pin: int
    dir_pin: int
    invert_dir: bool
    belt_pitch_mm: float
    pulley_teeth: int
    full_steps_per_rev: int
    microsteps: int
    travel_mm: float
    board_offset_mm: float
    endstop_pin: int
    endstop: SwitchWiring
    home_speed_mm_s: float
    home_slow_speed_mm_s: float
    home_backoff_mm: float
    home_margin_mm: float
    measured_steps_per_mm: float = 0.0  # `steps_per_mm` as calibrated; 0: from the mechanics

    @property
    def nominal_steps_per_mm(self) -> float:
        """Steps per millimetre from the belt, the pulley and the microstepping."""
        return self.full_steps_per_rev * self.microsteps / (self.belt_pitch_mm * self.pulley_teeth)

    @property
    def steps_per_mm(self) -> float:
        """Motor (micro)steps per millimetre of carriage travel (the calibrated value if set)."""
        if self.measured_steps_per_mm > 0:
            return self.measured_steps_per_mm
        return self.nominal_steps_per_mm


@dataclass(frozen=True)
class GantryConfig:
    """The two-axis gantry and its motion limits."""

    enable_pin: int
    enable_active_high: bool
    min_pulse_us: float
    max_step_rate_hz: float
    max_speed_mm_s: float
    accel_mm_s2: float
    jerk_mm_s3: float
    park_dot: tuple[int, int]
    idle_disable: bool
    x: AxisConfig
    y: AxisConfig
    skew_deg: float = 0.0  # the y axis leans east by this angle as it runs south

    @property
    def axes(self) -> tuple[AxisConfig, AxisConfig]:
        return (self.x, self.y)


@dataclass(frozen=True)
class StepperRotationConfig:
    """A geared four-coil stepper (28BYJ-48 through a ULN2003) on four PCA9685 channels."""

    channels: tuple[int, int, int, int]
    pwm_frequency_hz: float
    half_steps_per_rev: float  # need not be whole: a 28BYJ-48 is about 4075.77
    gear_ratio: float
    step_rate_hz: float
    invert: bool
    zero_offset_steps: int

    @property
    def half_steps_per_cloud_rev(self) -> float:
        return self.half_steps_per_rev * self.gear_ratio


@dataclass(frozen=True)
class ServoRotationConfig:
    """A positional servo on one PCA9685 channel, with its calibrated pulse range."""

    channel: int
    pwm_frequency_hz: float
    min_pulse_us: int
    max_pulse_us: int
    actuation_range_deg: float
    cloud_deg_per_servo_deg: float
    settle_s: float


@dataclass(frozen=True)
class RotationConfig:
    """The actuator that turns the cloud."""

    kind: Literal["stepper", "servo"]
    i2c_address: int
    stepper: StepperRotationConfig
    servo: ServoRotationConfig

    @property
    def channels(self) -> tuple[int, ...]:
        return self.stepper.channels if self.kind == "stepper" else (self.servo.channel,)


@dataclass(frozen=True)
class ControlsConfig:
    """The table's controls: spin button, status LED, optional buzzer and e-stop."""

    spin_button_pin: int
    spin_button: SwitchWiring
    status_led_pin: int
    buzzer_pin: int | None
    estop_pin: int | None
    estop: SwitchWiring


@dataclass(frozen=True)
class SimConfig:
    """The simulated table's physics and pace."""

    real_time_factor: float
    start_x_mm: float
    start_y_mm: float
    pull_out_speed_mm_s: float
    motor_accel_mm_s2: float
    rotor_pull_out_hz: float
    # the simulated rig's true mechanics: another configuration file ("": this one)
    rig: str = ""
    # faults to rehearse, at the device interface
    dead_endstop: str = ""  # "x" or "y": that endstop never closes
    missing_pca9685: bool = False  # nothing answers at the PCA9685's address
    covered_marker: int = -1  # the ArUco marker with this id is covered on the table


@dataclass(frozen=True)
class BackendConfig:
    """Which backend runs, and how the real one reaches the GPIO and I2C devices."""

    kind: Literal["real", "sim"]
    pin_factory: PinFactoryName
    gpio_chip: int | None  # /dev/gpiochipN; None: the Pi's own (0, or 4 on a Pi 5 kernel)
    i2c_bus: int  # /dev/i2c-N of the PCA9685


@dataclass(frozen=True)
class WebConfig:
    """The table's page: served or not, and where ("" chooses by backend)."""

    enabled: bool
    bind: str  # "host:port"; "" is 0.0.0.0:8080 on the rig, 127.0.0.1:8080 simulated

    def address(self, simulate: bool) -> tuple[str, int]:
        """The host and port to listen on."""
        text = self.bind or ("127.0.0.1:8080" if simulate else "0.0.0.0:8080")
        host, _, port = text.rpartition(":")
        return host.strip("[]"), int(port)


@dataclass(frozen=True)
class VoiceConfig:
    """Spoken announcements through espeak-ng."""

    enabled: bool
    voice: str
    words_per_minute: int


@dataclass(frozen=True)
class Config:
    """The whole configuration; `source` is the file it came from (None: built-in)."""

    source: str | None
    backend: Literal["real", "sim"]
    gantry: GantryConfig
    rotation: RotationConfig
    controls: ControlsConfig
    sim: SimConfig
    web: WebConfig = WebConfig(True, "")
    voice: VoiceConfig = VoiceConfig(False, "en", 160)
    camera: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    backend_settings: BackendConfig = field(
        default_factory=lambda: BackendConfig("real", "lgpio", None, 1)
    )


# --- reading -----------------------------------------------------------------------------


def default_config_text() -> str:
    """The built-in configuration of the reference rig, as TOML text."""
    return (resources.files("bermuda_hw") / "data" / "default-config.toml").read_text("utf-8")


def load_config(path: str | Path | None = None) -> Config:
    """Read and check a configuration file; None reads only the built-in defaults.

    Keys missing from the file take the built-in default; unknown keys, wrong types,
    values out of bounds, pins used twice and impossible limits raise ConfigError
    naming the file, the key and the problem.
    """
    defaults = tomllib.loads(default_config_text())
    if path is None:
        return parse_config(defaults, None)
    file = Path(path)
    try:
        text = file.read_text("utf-8-sig")  # a byte-order mark is no error
    except UnicodeDecodeError as exc:
        raise ConfigError(file, None, not_utf8(exc)) from None
    except OSError as exc:
        raise ConfigError(file, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: a 5,000-digit number
        raise ConfigError(file, None, f"not valid TOML: {exc}") from exc
    _check_known(data, defaults, file, "", extra_sections={"camera"})
    merged = _merge(defaults, data)
    return parse_config(merged, file, _dotted_keys(data))


def _dotted_keys(data: Mapping[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in data.items():
        keys.add(f"{prefix}{key}")
        if isinstance(value, dict):
            keys |= _dotted_keys(value, f"{prefix}{key}.")
    return keys


def _check_known(
    data: Mapping[str, Any],
    known: Mapping[str, Any],
    file: Path | None,
    prefix: str,
    extra_sections: set[str] | None = None,
) -> None:
    optional = {
        "controls.": {"buzzer_pin", "estop_pin"}, "backend.": {"gpio_chip"}
    }.get(prefix, set())
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if extra_sections and key in extra_sections:
            if not isinstance(value, dict):
                raise ConfigError(file, dotted, "must be a table")
            continue
        if key not in known and key not in optional:
            if key.endswith("_active_low"):
                stem = key.removesuffix("_active_low")
                raise ConfigError(
                    file, dotted,
                    f"replaced by {stem}_contact (\"nc\" or \"no\") and {stem}_pull "
                    f"(\"up\", \"down\" or \"external\"); a switch to ground with the "
                    f"internal pull-up is {stem}_pull = \"up\"",
                )
            raise ConfigError(file, dotted, "unknown key")
        if isinstance(value, dict):
            if not isinstance(known.get(key), dict):
                raise ConfigError(file, dotted, "must be a value, not a table")
            _check_known(value, known[key], file, f"{dotted}.")
        elif isinstance(known.get(key), dict):
            raise ConfigError(file, dotted, "must be a table")


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            out[key] = _merge(base[key], value)
        else:
            out[key] = value
    return out


class _Reader:
    """Reads typed values out of one table, naming file and dotted key on error."""

    def __init__(self, data: Mapping[str, Any], file: Path | None, prefix: str) -> None:
        self.data = data
        self.file = file
        self.prefix = prefix

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def fail(self, name: str, problem: str) -> ConfigError:
        return ConfigError(self.file, self.key(name), problem)

    def raw(self, name: str) -> Any:
        if name not in self.data:
            raise self.fail(name, "missing")
        return self.data[name]

    def table(self, name: str) -> _Reader:
        value = self.raw(name)
        if not isinstance(value, dict):
            raise self.fail(name, "must be a table")
        return _Reader(value, self.file, self.key(name) + ".")

    def boolean(self, name: str) -> bool:
        value = self.raw(name)
        if not isinstance(value, bool):
            raise self.fail(name, f"must be true or false, not {value!r}")
        return value

    def integer(self, name: str, low: int | None = None, high: int | None = None) -> int:
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(name, f"must be an integer, not {value!r}")
        self._bounds(name, value, low, high)
        return value

    def number(
        self, name: str, low: float | None = None, high: float | None = None, *, positive: bool
    ) -> float:
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(name, f"must be a number, not {value!r}")
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            raise self.fail(name, "must be finite")
        if positive and number <= 0:
            raise self.fail(name, f"must be greater than 0, not {number:g}")
        self._bounds(name, number, low, high)
        return number

    def _bounds(self, name: str, value: float, low: float | None, high: float | None) -> None:
        if low is not None and value < low:
            raise self.fail(name, f"must be at least {low:g}, not {value:g}")
        if high is not None and value > high:
            raise self.fail(name, f"must be at most {high:g}, not {value:g}")

    def pin(self, name: str) -> int:
        value = self.integer(name)
        if value not in _USABLE_BCM:
            raise self.fail(name, f"BCM pin {value} is not a usable GPIO (2..27)")
        if value in _I2C_PINS:
            raise self.fail(name, f"BCM pin {value} is the PCA9685's {_I2C_PINS[value]}")
        return value

    def optional_pin(self, name: str) -> int | None:
        return self.pin(name) if name in self.data else None

    def choice(self, name: str, options: tuple[str, ...]) -> str:
        value = self.raw(name)
        if value not in options:
            raise self.fail(name, f"must be one of {', '.join(options)}, not {value!r}")
        return str(value)

    def switch(self, stem: str) -> SwitchWiring:
        contact = self.choice(f"{stem}_contact", ("nc", "no"))
        pull = self.choice(f"{stem}_pull", ("up", "down", "external"))
        return SwitchWiring(
            contact="nc" if contact == "nc" else "no",
            pull="up" if pull == "up" else "down" if pull == "down" else "external",
        )

    def int_list(self, name: str, length: int, low: int, high: int) -> tuple[int, ...]:
        value = self.raw(name)
        if not isinstance(value, list) or len(value) != length:
            raise self.fail(name, f"must be a list of {length} integers")
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int) or not low <= item <= high:
                raise self.fail(name, f"items must be integers from {low} to {high}, not {item!r}")
        return tuple(value)


def parse_config(
    data: Mapping[str, Any], file: Path | None, written: set[str] | None = None
) -> Config:
    """Check a complete configuration table (defaults already merged) and type it.

    `written` holds the dotted keys the file itself sets: a clash of pins is
    reported at the key the owner wrote.
    """
    root = _Reader(data, file, "")
    hardware = _parse_backend(root.table("backend"))
    backend = hardware.kind
    gantry = _parse_gantry(root.table("gantry"))
    rotation = _parse_rotation(root.table("rotation"))
    controls = _parse_controls(root.table("controls"))
    sim = _parse_sim(root.table("sim"))
    web = _parse_web(root.table("web"))
    voice = _parse_voice(root.table("voice"))
    camera_raw = data.get("camera", {})
    if not isinstance(camera_raw, dict):
        raise ConfigError(file, "camera", "must be a table")
    config = Config(
        source=str(file) if file is not None else None,
        backend="sim" if backend == "sim" else "real",
        gantry=gantry,
        rotation=rotation,
        controls=controls,
        sim=sim,
        web=web,
        voice=voice,
        camera=MappingProxyType(dict(camera_raw)),
        backend_settings=hardware,
    )
    _check_pins(config, file, written or set())
    return config


def _parse_backend(r: _Reader) -> BackendConfig:
    kind = r.choice("kind", ("real", "sim"))
    factory = r.choice("pin_factory", ("lgpio", "rpigpio"))
    chip = r.integer("gpio_chip", 0, 64) if "gpio_chip" in r.data else None
    return BackendConfig(
        kind="sim" if kind == "sim" else "real",
        pin_factory="rpigpio" if factory == "rpigpio" else "lgpio",
        gpio_chip=chip,
        i2c_bus=r.integer("i2c_bus", 0, 255),
    )


def _output_pin(r: _Reader, name: str) -> int:
    """A STEP or DIR pin: not one that the Pi pulls high at boot."""
    pin = r.pin(name)
    if pin in BOOT_PULL_UP_BCM:
        raise r.fail(
            name,
            f"BCM {pin} is pulled high at boot, before the service runs: the driver would "
            "see a step or a direction change; use a pin from BCM 9-27",
        )
    return pin


def _parse_axis(r: _Reader, name: str) -> AxisConfig:
    axis = AxisConfig(
        name=name,
        step_pin=_output_pin(r, "step_pin"),
        dir_pin=_output_pin(r, "dir_pin"),
        invert_dir=r.boolean("invert_dir"),
        belt_pitch_mm=r.number("belt_pitch_mm", high=50.0, positive=True),
        pulley_teeth=r.integer("pulley_teeth", 5, 200),
        full_steps_per_rev=r.integer("full_steps_per_rev", 4, 2000),
        microsteps=r.integer("microsteps", 1, 256),
        travel_mm=r.number("travel_mm", high=5000.0, positive=True),
        board_offset_mm=r.number("board_offset_mm", -5000.0, 5000.0, positive=False),
        endstop_pin=r.pin("endstop_pin"),
        endstop=r.switch("endstop"),
        home_speed_mm_s=r.number("home_speed_mm_s", positive=True),
        home_slow_speed_mm_s=r.number("home_slow_speed_mm_s", positive=True),
        home_backoff_mm=r.number("home_backoff_mm", positive=True),
        home_margin_mm=r.number("home_margin_mm", low=0.0, positive=False),
        measured_steps_per_mm=r.number("steps_per_mm", 0.0, 100_000.0, positive=False),
    )
    if axis.microsteps & (axis.microsteps - 1):
        raise r.fail("microsteps", f"must be a power of two, not {axis.microsteps}")
    if axis.home_slow_speed_mm_s > axis.home_speed_mm_s:
        raise r.fail("home_slow_speed_mm_s", "must not exceed home_speed_mm_s")
    if axis.home_backoff_mm >= axis.travel_mm:
        raise r.fail("home_backoff_mm", "must be shorter than travel_mm")
    return axis


def _parse_gantry(r: _Reader) -> GantryConfig:
    x = _parse_axis(r.table("x"), "x")
    y = _parse_axis(r.table("y"), "y")
    park = r.int_list("park_dot", 2, 0, 99)
    gantry = GantryConfig(
        enable_pin=r.pin("enable_pin"),
        enable_active_high=r.boolean("enable_active_high"),
        min_pulse_us=r.number("min_pulse_us", high=1000.0, positive=True),
        max_step_rate_hz=r.number("max_step_rate_hz", high=200_000.0, positive=True),
        max_speed_mm_s=r.number("max_speed_mm_s", positive=True),
        accel_mm_s2=r.number("accel_mm_s2", positive=True),
        jerk_mm_s3=r.number("jerk_mm_s3", low=0.0, positive=False),
        park_dot=(park[0], park[1]),
        idle_disable=r.boolean("idle_disable"),
        x=x,
        y=y,
        skew_deg=r.number("skew_deg", -10.0, 10.0, positive=False),
    )
    period_us = 1e6 / gantry.max_step_rate_hz
    if 2 * gantry.min_pulse_us > period_us:
        raise r.fail(
            "max_step_rate_hz",
            f"a step period of {period_us:.1f} us cannot hold a {gantry.min_pulse_us:g} us pulse",
        )
    for axis in gantry.axes:
        needed_hz = gantry.max_speed_mm_s * axis.steps_per_mm
        if needed_hz > gantry.max_step_rate_hz:
            raise r.fail(
                "max_speed_mm_s",
                f"{gantry.max_speed_mm_s:g} mm/s needs {needed_hz:.0f} steps/s on axis "
                f"{axis.name}, above max_step_rate_hz = {gantry.max_step_rate_hz:g}",
            )
        for key in ("home_speed_mm_s", "home_slow_speed_mm_s"):
            if getattr(axis, key) > gantry.max_speed_mm_s:
                raise ConfigError(
                    r.file, f"gantry.{axis.name}.{key}", "must not exceed gantry.max_speed_mm_s"
                )
    return gantry


def _parse_rotation(r: _Reader) -> RotationConfig:
    kind = r.choice("kind", ("stepper", "servo"))
    address = r.integer("i2c_address", 0x08, 0x77)
    s = r.table("stepper")
    channels = s.int_list("channels", 4, 0, 15)
    if len(set(channels)) != 4:
        raise s.fail("channels", "must be four different channels")
    stepper = StepperRotationConfig(
        channels=(channels[0], channels[1], channels[2], channels[3]),
        pwm_frequency_hz=s.number("pwm_frequency_hz", 1500.0, 1526.0 * 1.1, positive=True),
        half_steps_per_rev=s.number("half_steps_per_rev", 8.0, 1_000_000.0, positive=True),
        gear_ratio=s.number("gear_ratio", high=100.0, positive=True),
        step_rate_hz=s.number("step_rate_hz", high=2000.0, positive=True),
        invert=s.boolean("invert"),
        zero_offset_steps=s.integer("zero_offset_steps", -1_000_000, 1_000_000),
    )
    v = r.table("servo")
    servo = ServoRotationConfig(
        channel=v.integer("channel", 0, 15),
        pwm_frequency_hz=v.number("pwm_frequency_hz", 24.0, 1526.0, positive=True),
        min_pulse_us=v.integer("min_pulse_us", 100, 5000),
        max_pulse_us=v.integer("max_pulse_us", 100, 5000),
        actuation_range_deg=v.number("actuation_range_deg", high=360.0, positive=True),
        cloud_deg_per_servo_deg=v.number("cloud_deg_per_servo_deg", high=10.0, positive=True),
        settle_s=v.number("settle_s", 0.0, 10.0, positive=False),
    )
    if servo.max_pulse_us <= servo.min_pulse_us:
        raise v.fail("max_pulse_us", "must be greater than min_pulse_us")
    if servo.max_pulse_us * servo.pwm_frequency_hz > 1e6:
        raise v.fail("max_pulse_us", "is longer than one PWM period")
    if kind == "servo" and 315.0 / servo.cloud_deg_per_servo_deg > servo.actuation_range_deg:
        raise v.fail(
            "actuation_range_deg",
            f"letter H needs {315.0 / servo.cloud_deg_per_servo_deg:g} degrees of servo travel",
        )
    return RotationConfig(
        kind="servo" if kind == "servo" else "stepper",
        i2c_address=address,
        stepper=stepper,
        servo=servo,
    )


def _parse_controls(r: _Reader) -> ControlsConfig:
    return ControlsConfig(
        spin_button_pin=r.pin("spin_button_pin"),
        spin_button=r.switch("spin_button"),
        status_led_pin=r.pin("status_led_pin"),
        buzzer_pin=r.optional_pin("buzzer_pin"),
        estop_pin=r.optional_pin("estop_pin"),
        estop=r.switch("estop"),
    )


def _parse_sim(r: _Reader) -> SimConfig:
    return SimConfig(
        real_time_factor=r.number("real_time_factor", 0.0, 1000.0, positive=False),
        start_x_mm=r.number("start_x_mm", -1000.0, 5000.0, positive=False),
        start_y_mm=r.number("start_y_mm", -1000.0, 5000.0, positive=False),
        pull_out_speed_mm_s=r.number("pull_out_speed_mm_s", positive=True),
        motor_accel_mm_s2=r.number("motor_accel_mm_s2", positive=True),
        rotor_pull_out_hz=r.number("rotor_pull_out_hz", positive=True),
        rig=_string(r, "rig"),
        dead_endstop=r.choice("dead_endstop", ("", "x", "y")),
        missing_pca9685=r.boolean("missing_pca9685"),
        covered_marker=r.integer("covered_marker", -1, 1000),
    )


def _parse_web(r: _Reader) -> WebConfig:
    bind = r.raw("bind")
    if not isinstance(bind, str):
        raise r.fail("bind", f"must be a string like \"0.0.0.0:8080\", not {bind!r}")
    if bind:
        host, colon, port = bind.rpartition(":")
        if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise r.fail("bind", f"must be host:port (port 0-65535), not {bind!r}")
    return WebConfig(enabled=r.boolean("enabled"), bind=bind)


def _parse_voice(r: _Reader) -> VoiceConfig:
    voice = r.raw("voice")
    if not isinstance(voice, str) or not voice or not all(
            c.isalnum() or c in "-_+/" for c in voice):
        raise r.fail("voice", f"must be an espeak-ng voice name such as \"en\", not {voice!r}")
    return VoiceConfig(enabled=r.boolean("enabled"), voice=voice,
                       words_per_minute=r.integer("words_per_minute", 80, 450))


def _string(r: _Reader, name: str) -> str:
    value = r.raw(name)
    if not isinstance(value, str):
        raise r.fail(name, f"must be a string, not {value!r}")
    return value


def sim_rig_config(config: Config) -> Config:
    """The simulated rig's true mechanics: `[sim] rig` names a configuration file for them.

    A relative path is taken from the configuration file's folder. Without one,
    the simulated rig is exactly what the configuration says.
    """
    if not config.sim.rig:
        return config
    path = Path(config.sim.rig)
    if not path.is_absolute() and config.source is not None:
        path = Path(config.source).parent / path
    return load_config(path)


def pin_map(config: Config) -> dict[str, int]:
    """Every GPIO in use, by dotted configuration key."""
    g = config.gantry
    pins = {"gantry.enable_pin": g.enable_pin}
    for axis in g.axes:
        for key in ("step_pin", "dir_pin", "endstop_pin"):
            pins[f"gantry.{axis.name}.{key}"] = getattr(axis, key)
    c = config.controls
    pins["controls.spin_button_pin"] = c.spin_button_pin
    pins["controls.status_led_pin"] = c.status_led_pin
    if c.buzzer_pin is not None:
        pins["controls.buzzer_pin"] = c.buzzer_pin
    if c.estop_pin is not None:
        pins["controls.estop_pin"] = c.estop_pin
    return pins


def _check_pins(config: Config, file: Path | None, written: set[str]) -> None:
    seen: dict[int, str] = {}
    for key, pin in pin_map(config).items():
        if pin in seen:
            other = seen[pin]
            if other in written and key not in written:
                key, other = other, key
            raise ConfigError(file, key, f"BCM pin {pin} is already used by {other}")
        seen[pin] = key
