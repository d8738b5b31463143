"""The rig's configuration: one TOML file read once at start-up into typed, checked objects."""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from bermuda_hw.camera_config import CameraConfig
from bermuda_hw.checked import (
    Flag,
    Integer,
    KeyProblem,
    NonNegative,
    Number,
    Positive,
    Strict,
    Text,
    check,
    read_toml,
)
from bermuda_hw.errors import ConfigError
from bermuda_hw.geometry import CLASSIC_LETTER_HEADINGS_DEG, FULL_TURN_DEG

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


def _pin(pin: int) -> int:
    if pin not in _USABLE_BCM:
        raise ValueError(f"BCM pin {pin} is not a usable GPIO (2..27)")
    if pin in _I2C_PINS:
        raise ValueError(f"BCM pin {pin} is the PCA9685's {_I2C_PINS[pin]}")
    return pin


def _output_pin(pin: int) -> int:
    """A STEP or DIR pin: not one that the Pi pulls high at boot."""
    pin = _pin(pin)
    if pin in BOOT_PULL_UP_BCM:
        raise ValueError(
            f"BCM {pin} is pulled high at boot, before the service runs: the driver would "
            "see a step or a direction change; use a pin from BCM 9-27"
        )
    return pin


Pin = Annotated[Integer, AfterValidator(_pin)]
OutputPin = Annotated[Integer, AfterValidator(_output_pin)]
Channel = Annotated[int, Field(strict=True, ge=0, le=15)]
Dot = Annotated[int, Field(strict=True, ge=0, le=99)]


# Each section below is defined once: the keys the file may hold, their types and bounds, and
# what the rest of the program reads from them (properties). Every value is checked when the
# file is read; the objects are frozen. `model_copy(update=...)` makes a changed copy (the
# simulated table's pace, a test's rig) without checking again.


class AxisConfig(Strict):
    """One gantry axis (`[gantry.x]`, `[gantry.y]`): pins, mechanics, travel, calibration and
    homing. `name` is its table's name, filled in by the gantry."""

    name: Literal["x", "y"]
    step_pin: OutputPin
    dir_pin: OutputPin
    invert_dir: Flag
    belt_pitch_mm: Positive = Field(le=50.0)
    pulley_teeth: Integer = Field(ge=5, le=200)
    full_steps_per_rev: Integer = Field(ge=4, le=2000)
    microsteps: Integer = Field(ge=1, le=256)
    # `steps_per_mm` as calibrated (`calibrate gantry` writes it); 0: from the mechanics
    measured_steps_per_mm: Number = Field(alias="steps_per_mm", ge=0.0, le=100_000.0)
    travel_mm: Positive = Field(le=5000.0)
    board_offset_mm: Number = Field(ge=-5000.0, le=5000.0)
    endstop_pin: Pin
    endstop_contact: Contact
    endstop_pull: Pull
    home_speed_mm_s: Positive
    home_slow_speed_mm_s: Positive
    home_backoff_mm: Positive
    home_margin_mm: NonNegative

    @model_validator(mode="after")
    def _consistent(self) -> AxisConfig:
        if self.microsteps & (self.microsteps - 1):
            raise KeyProblem("microsteps", f"must be a power of two, not {self.microsteps}")
        if self.home_slow_speed_mm_s > self.home_speed_mm_s:
            raise KeyProblem("home_slow_speed_mm_s", "must not exceed home_speed_mm_s")
        if self.home_backoff_mm >= self.travel_mm:
            raise KeyProblem("home_backoff_mm", "must be shorter than travel_mm")
        return self

    @property
    def endstop(self) -> SwitchWiring:
        return SwitchWiring(self.endstop_contact, self.endstop_pull)

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


class GantryConfig(Strict):
    """The two-axis gantry and its motion limits (`[gantry]`)."""

    enable_pin: Pin
    enable_active_high: Flag
    min_pulse_us: Positive = Field(le=1000.0)
    max_step_rate_hz: Positive = Field(le=200_000.0)
    max_speed_mm_s: Positive
    accel_mm_s2: Positive
    jerk_mm_s3: NonNegative
    park_dot: tuple[Dot, Dot]
    idle_disable: Flag
    skew_deg: Number = Field(ge=-10.0, le=10.0)  # the y axis leans east as it runs south
    x: AxisConfig
    y: AxisConfig

    @model_validator(mode="before")
    @classmethod
    def _axis_names(cls, data: Any) -> Any:
        """Each axis is named by its table; a `name` key written in one is unknown."""
        if isinstance(data, Mapping):
            data = dict(data)
            for name in ("x", "y"):
                table = data.get(name)
                if isinstance(table, Mapping):
                    if "name" in table:
                        raise KeyProblem(f"{name}.name", "unknown key")
                    data[name] = {**table, "name": name}
        return data

    @model_validator(mode="after")
    def _reachable(self) -> GantryConfig:
        period_us = 1e6 / self.max_step_rate_hz
        if 2 * self.min_pulse_us > period_us:
            raise KeyProblem(
                "max_step_rate_hz",
                f"a step period of {period_us:.1f} us cannot hold a {self.min_pulse_us:g} us pulse",
            )
        for axis in self.axes:
            needed_hz = self.max_speed_mm_s * axis.steps_per_mm
            if needed_hz > self.max_step_rate_hz:
                raise KeyProblem(
                    "max_speed_mm_s",
                    f"{self.max_speed_mm_s:g} mm/s needs {needed_hz:.0f} steps/s on axis "
                    f"{axis.name}, above max_step_rate_hz = {self.max_step_rate_hz:g}",
                )
            for key in ("home_speed_mm_s", "home_slow_speed_mm_s"):
                if getattr(axis, key) > self.max_speed_mm_s:
                    raise KeyProblem(f"{axis.name}.{key}", "must not exceed gantry.max_speed_mm_s")
        return self

    @property
    def axes(self) -> tuple[AxisConfig, AxisConfig]:
        return (self.x, self.y)


class StepperRotationConfig(Strict):
    """A geared four-coil stepper (28BYJ-48 through a ULN2003) on four PCA9685 channels."""

    channels: tuple[Channel, Channel, Channel, Channel]
    pwm_frequency_hz: Number = Field(ge=1500.0, le=1526.0 * 1.1)
    # need not be whole: a 28BYJ-48 is about 4075.77
    half_steps_per_rev: Number = Field(ge=8.0, le=1_000_000.0)
    gear_ratio: Positive = Field(le=100.0)
    step_rate_hz: Positive = Field(le=2000.0)
    invert: Flag
    zero_offset_steps: Integer = Field(ge=-1_000_000, le=1_000_000)

    @field_validator("channels")
    @classmethod
    def _different(cls, channels: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        if len(set(channels)) != 4:
            raise ValueError("must be four different channels")
        return channels

    @property
    def half_steps_per_cloud_rev(self) -> float:
        return self.half_steps_per_rev * self.gear_ratio


class ServoRotationConfig(Strict):
    """A positional servo on one PCA9685 channel, with its calibrated pulse range."""

    channel: Channel
    pwm_frequency_hz: Number = Field(ge=24.0, le=1526.0)
    min_pulse_us: Integer = Field(ge=100, le=5000)
    max_pulse_us: Integer = Field(ge=100, le=5000)
    actuation_range_deg: Positive = Field(le=FULL_TURN_DEG)
    cloud_deg_per_servo_deg: Positive = Field(le=10.0)
    settle_s: Number = Field(ge=0.0, le=10.0)

    @model_validator(mode="after")
    def _pulses(self) -> ServoRotationConfig:
        if self.max_pulse_us <= self.min_pulse_us:
            raise KeyProblem("max_pulse_us", "must be greater than min_pulse_us")
        if self.max_pulse_us * self.pwm_frequency_hz > 1e6:
            raise KeyProblem("max_pulse_us", "is longer than one PWM period")
        return self


class RotationConfig(Strict):
    """The actuator that turns the cloud (`[rotation]`)."""

    kind: Literal["stepper", "servo"]
    i2c_address: Integer = Field(ge=0x08, le=0x77)
    stepper: StepperRotationConfig
    servo: ServoRotationConfig

    @model_validator(mode="after")
    def _letter_h(self) -> RotationConfig:
        servo = self.servo
        # the classic cloud's last letter, H, is the furthest turn from A
        needed = max(CLASSIC_LETTER_HEADINGS_DEG) / servo.cloud_deg_per_servo_deg
        if self.kind == "servo" and needed > servo.actuation_range_deg:
            raise KeyProblem(
                "servo.actuation_range_deg", f"letter H needs {needed:g} degrees of servo travel"
            )
        return self

    @property
    def channels(self) -> tuple[int, ...]:
        return self.stepper.channels if self.kind == "stepper" else (self.servo.channel,)


class ControlsConfig(Strict):
    """The table's controls (`[controls]`): spin button, status LED, optional buzzer, e-stop
    and the motor supply's relay (closed while the gantry may move, open on every fault)."""

    spin_button_pin: Pin
    spin_button_contact: Contact
    spin_button_pull: Pull
    status_led_pin: Pin
    buzzer_pin: Pin | None = None
    estop_pin: Pin | None = None
    estop_contact: Contact
    estop_pull: Pull
    supply_relay_pin: Pin | None = None
    supply_relay_active_high: Flag = True

    @property
    def spin_button(self) -> SwitchWiring:
        return SwitchWiring(self.spin_button_contact, self.spin_button_pull)

    @property
    def estop(self) -> SwitchWiring:
        return SwitchWiring(self.estop_contact, self.estop_pull)


class SimConfig(Strict):
    """The simulated table's physics and pace (`[sim]`)."""

    real_time_factor: Number = Field(ge=0.0, le=1000.0)
    start_x_mm: Number = Field(ge=-1000.0, le=5000.0)
    start_y_mm: Number = Field(ge=-1000.0, le=5000.0)
    pull_out_speed_mm_s: Positive
    motor_accel_mm_s2: Positive
    rotor_pull_out_hz: Positive
    # the simulated rig's true mechanics: another configuration file ("": this one)
    rig: Text
    # faults to rehearse, at the device interface: an endstop ("x" or "y") that never closes,
    # nothing answering at the PCA9685's address, the ArUco marker with this id covered
    dead_endstop: Literal["", "x", "y"]
    missing_pca9685: Flag
    covered_marker: Integer = Field(ge=-1, le=1000)


class BackendConfig(Strict):
    """Which backend runs, and how the real one reaches the GPIO and I2C devices
    (`[backend]`)."""

    kind: Literal["real", "sim"]
    pin_factory: PinFactoryName
    # /dev/gpiochipN; None: the Pi's own (0, or 4 on a Pi 5 kernel)
    gpio_chip: Annotated[int, Field(strict=True, ge=0, le=64)] | None = None
    i2c_bus: Integer = Field(ge=0, le=255)  # /dev/i2c-N of the PCA9685


class WebConfig(Strict):
    """The table's page (`[web]`): served or not, where ("" chooses by backend), who may
    read it."""

    enabled: Flag
    # "host:port"; "" is 0.0.0.0:8080 on the rig, 127.0.0.1:8080 simulated
    bind: Text
    public_view: Flag = False  # the state, record and camera readable without the token
    # names the page is reached by, besides addresses and this host's own
    hosts: tuple[Text, ...] = ()
    # in total (lowered at start to fit the file limit), and from one address
    max_connections: Integer = Field(default=256, ge=8, le=65536)
    max_connections_per_client: Integer = Field(default=32, ge=2, le=65536)

    @field_validator("hosts")
    @classmethod
    def _host_names(cls, hosts: tuple[str, ...]) -> tuple[str, ...]:
        for name in hosts:
            labels = name.rstrip(".").split(".")
            if (
                not name
                or len(name) > 253
                or not all(
                    0 < len(label) <= 63
                    and label.isascii()
                    and label[0] != "-"
                    and all(c.isalnum() or c == "-" for c in label)
                    for label in labels
                )
            ):
                raise ValueError(f'must be host names such as "bermuda.lan", not {name!r}')
        return tuple(name.rstrip(".").lower() for name in hosts)

    @model_validator(mode="after")
    def _caps(self) -> WebConfig:
        if self.max_connections_per_client > self.max_connections:
            raise KeyProblem("max_connections_per_client", "must not exceed max_connections")
        return self

    @field_validator("bind")
    @classmethod
    def _host_port(cls, bind: str) -> str:
        if bind:
            host, colon, port = bind.rpartition(":")
            if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
                raise ValueError(f"must be host:port (port 0-65535), not {bind!r}")
        return bind

    def address(self, simulate: bool) -> tuple[str, int]:
        """The host and port to listen on."""
        text = self.bind or ("127.0.0.1:8080" if simulate else "0.0.0.0:8080")
        host, _, port = text.rpartition(":")
        return host.strip("[]"), int(port)


class VoiceConfig(Strict):
    """Spoken announcements through espeak-ng (`[voice]`)."""

    enabled: Flag
    voice: Text
    words_per_minute: Integer = Field(ge=80, le=450)

    @field_validator("voice")
    @classmethod
    def _espeak_name(cls, voice: str) -> str:
        if not voice or not all(c.isalnum() or c in "-_+/" for c in voice):
            raise ValueError(f'must be an espeak-ng voice name such as "en", not {voice!r}')
        return voice


class Config(Strict):
    """The whole file, once the built-in defaults have filled what it leaves out; `source`
    is the file it came from (None: built-in), set by `parse_config`."""

    source: str | None = None
    backend: BackendConfig
    gantry: GantryConfig
    rotation: RotationConfig
    controls: ControlsConfig
    sim: SimConfig
    web: WebConfig
    voice: VoiceConfig
    camera: CameraConfig = Field(default_factory=CameraConfig)


# --- reading -----------------------------------------------------------------------------


def default_config_text() -> str:
    """The built-in configuration of the reference rig, as TOML text."""
    return (resources.files("bermuda_hw") / "data" / "default-config.toml").read_text("utf-8")


def load_config(path: str | Path | None = None, leave_out: Collection[str] = ()) -> Config:
    """Read and check a configuration file; None reads only the built-in defaults.

    Keys missing from the file take the built-in default; unknown keys, wrong types,
    values out of bounds, pins used twice and impossible limits raise ConfigError
    naming the file, the key and the problem. `leave_out`: top-level tables of the file
    not read (they take the built-in defaults), for a command that needs none of them;
    every other key is read and checked as ever, an unknown one too.
    """
    defaults = tomllib.loads(default_config_text())
    if path is None:
        return parse_config(defaults, None)
    file = Path(path)
    data = read_toml(file, ConfigError)
    data = {key: value for key, value in data.items() if key not in leave_out}
    return parse_config(_merge(defaults, data), file, _dotted_keys(data))


def _dotted_keys(data: Mapping[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in data.items():
        keys.add(f"{prefix}{key}")
        if isinstance(value, dict):
            keys |= _dotted_keys(value, f"{prefix}{key}.")
    return keys


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            out[key] = _merge(base[key], value)
        else:
            out[key] = value
    return out


def parse_config(
    data: Mapping[str, Any], file: Path | None, written: set[str] | None = None
) -> Config:
    """Check a complete configuration table (defaults already merged) and type it.

    `written` holds the dotted keys the file itself sets: a clash of pins is
    reported at the key the owner wrote.
    """
    if "source" in data:  # where the configuration came from is not a key of it
        raise ConfigError(file, "source", "unknown key")
    try:
        config = check(Config, data, file, ConfigError)
    except ConfigError as exc:
        if exc.problem == "unknown key" and exc.key and exc.key.endswith("_active_low"):
            stem = exc.key.rpartition(".")[2].removesuffix("_active_low")
            raise ConfigError(
                file,
                exc.key,
                f'replaced by {stem}_contact ("nc" or "no") and {stem}_pull '
                f'("up", "down" or "external"); a switch to ground with the '
                f'internal pull-up is {stem}_pull = "up"',
            ) from None
        raise
    config = config.model_copy(update={"source": str(file) if file is not None else None})
    _check_pins(config, file, written or set())
    return config


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
    if c.supply_relay_pin is not None:
        pins["controls.supply_relay_pin"] = c.supply_relay_pin
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
