"""The rig's configuration: one TOML file read once at start-up into typed, checked objects."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from bermuda_hw.camera_config import CameraFile
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
    # the motor supply's relay: closed while the gantry may move, open on every fault
    supply_relay_pin: int | None = None
    supply_relay_active_high: bool = True


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
    """The table's page: served or not, where ("" chooses by backend), who may read it."""

    enabled: bool
    bind: str  # "host:port"; "" is 0.0.0.0:8080 on the rig, 127.0.0.1:8080 simulated
    public_view: bool = False  # the state, record and camera readable without the token
    hosts: tuple[str, ...] = ()  # names the page is reached by, besides addresses and this host's
    max_connections: int = 256  # in total (lowered at start to fit the file limit)
    max_connections_per_client: int = 32  # from one address

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


# --- the file as written: declared types and bounds ------------------------------------------


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


class _BackendFile(Strict):
    kind: Literal["real", "sim"]
    pin_factory: PinFactoryName
    gpio_chip: Annotated[int, Field(strict=True, ge=0, le=64)] | None = None
    i2c_bus: Integer = Field(ge=0, le=255)


class _AxisFile(Strict):
    step_pin: OutputPin
    dir_pin: OutputPin
    invert_dir: Flag
    belt_pitch_mm: Positive = Field(le=50.0)
    pulley_teeth: Integer = Field(ge=5, le=200)
    full_steps_per_rev: Integer = Field(ge=4, le=2000)
    microsteps: Integer = Field(ge=1, le=256)
    steps_per_mm: Number = Field(ge=0.0, le=100_000.0)
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
    def _consistent(self) -> _AxisFile:
        if self.microsteps & (self.microsteps - 1):
            raise KeyProblem("microsteps", f"must be a power of two, not {self.microsteps}")
        if self.home_slow_speed_mm_s > self.home_speed_mm_s:
            raise KeyProblem("home_slow_speed_mm_s", "must not exceed home_speed_mm_s")
        if self.home_backoff_mm >= self.travel_mm:
            raise KeyProblem("home_backoff_mm", "must be shorter than travel_mm")
        return self

    def typed(self, name: str) -> AxisConfig:
        return AxisConfig(
            name=name,
            step_pin=self.step_pin,
            dir_pin=self.dir_pin,
            invert_dir=self.invert_dir,
            belt_pitch_mm=self.belt_pitch_mm,
            pulley_teeth=self.pulley_teeth,
            full_steps_per_rev=self.full_steps_per_rev,
            microsteps=self.microsteps,
            travel_mm=self.travel_mm,
            board_offset_mm=self.board_offset_mm,
            endstop_pin=self.endstop_pin,
            endstop=SwitchWiring(self.endstop_contact, self.endstop_pull),
            home_speed_mm_s=self.home_speed_mm_s,
            home_slow_speed_mm_s=self.home_slow_speed_mm_s,
            home_backoff_mm=self.home_backoff_mm,
            home_margin_mm=self.home_margin_mm,
            measured_steps_per_mm=self.steps_per_mm,
        )


class _GantryFile(Strict):
    enable_pin: Pin
    enable_active_high: Flag
    min_pulse_us: Positive = Field(le=1000.0)
    max_step_rate_hz: Positive = Field(le=200_000.0)
    max_speed_mm_s: Positive
    accel_mm_s2: Positive
    jerk_mm_s3: NonNegative
    park_dot: tuple[Dot, Dot]
    idle_disable: Flag
    skew_deg: Number = Field(ge=-10.0, le=10.0)
    x: _AxisFile
    y: _AxisFile

    @model_validator(mode="after")
    def _reachable(self) -> _GantryFile:
        period_us = 1e6 / self.max_step_rate_hz
        if 2 * self.min_pulse_us > period_us:
            raise KeyProblem(
                "max_step_rate_hz",
                f"a step period of {period_us:.1f} us cannot hold a {self.min_pulse_us:g} us pulse",
            )
        for name, axis in (("x", self.x.typed("x")), ("y", self.y.typed("y"))):
            needed_hz = self.max_speed_mm_s * axis.steps_per_mm
            if needed_hz > self.max_step_rate_hz:
                raise KeyProblem(
                    "max_speed_mm_s",
                    f"{self.max_speed_mm_s:g} mm/s needs {needed_hz:.0f} steps/s on axis {name}, "
                    f"above max_step_rate_hz = {self.max_step_rate_hz:g}",
                )
            for key in ("home_speed_mm_s", "home_slow_speed_mm_s"):
                if getattr(axis, key) > self.max_speed_mm_s:
                    raise KeyProblem(f"{name}.{key}", "must not exceed gantry.max_speed_mm_s")
        return self

    def typed(self) -> GantryConfig:
        return GantryConfig(
            enable_pin=self.enable_pin,
            enable_active_high=self.enable_active_high,
            min_pulse_us=self.min_pulse_us,
            max_step_rate_hz=self.max_step_rate_hz,
            max_speed_mm_s=self.max_speed_mm_s,
            accel_mm_s2=self.accel_mm_s2,
            jerk_mm_s3=self.jerk_mm_s3,
            park_dot=self.park_dot,
            idle_disable=self.idle_disable,
            x=self.x.typed("x"),
            y=self.y.typed("y"),
            skew_deg=self.skew_deg,
        )


class _StepperFile(Strict):
    channels: tuple[Channel, Channel, Channel, Channel]
    pwm_frequency_hz: Number = Field(ge=1500.0, le=1526.0 * 1.1)
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


class _ServoFile(Strict):
    channel: Channel
    pwm_frequency_hz: Number = Field(ge=24.0, le=1526.0)
    min_pulse_us: Integer = Field(ge=100, le=5000)
    max_pulse_us: Integer = Field(ge=100, le=5000)
    actuation_range_deg: Positive = Field(le=FULL_TURN_DEG)
    cloud_deg_per_servo_deg: Positive = Field(le=10.0)
    settle_s: Number = Field(ge=0.0, le=10.0)

    @model_validator(mode="after")
    def _pulses(self) -> _ServoFile:
        if self.max_pulse_us <= self.min_pulse_us:
            raise KeyProblem("max_pulse_us", "must be greater than min_pulse_us")
        if self.max_pulse_us * self.pwm_frequency_hz > 1e6:
            raise KeyProblem("max_pulse_us", "is longer than one PWM period")
        return self


class _RotationFile(Strict):
    kind: Literal["stepper", "servo"]
    i2c_address: Integer = Field(ge=0x08, le=0x77)
    stepper: _StepperFile
    servo: _ServoFile

    @model_validator(mode="after")
    def _letter_h(self) -> _RotationFile:
        servo = self.servo
        # the classic cloud's last letter, H, is the furthest turn from A
        needed = max(CLASSIC_LETTER_HEADINGS_DEG) / servo.cloud_deg_per_servo_deg
        if self.kind == "servo" and needed > servo.actuation_range_deg:
            raise KeyProblem(
                "servo.actuation_range_deg", f"letter H needs {needed:g} degrees of servo travel"
            )
        return self

    def typed(self) -> RotationConfig:
        return RotationConfig(
            kind=self.kind,
            i2c_address=self.i2c_address,
            stepper=StepperRotationConfig(**self.stepper.model_dump()),
            servo=ServoRotationConfig(**self.servo.model_dump()),
        )


class _ControlsFile(Strict):
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

    def typed(self) -> ControlsConfig:
        return ControlsConfig(
            spin_button_pin=self.spin_button_pin,
            spin_button=SwitchWiring(self.spin_button_contact, self.spin_button_pull),
            status_led_pin=self.status_led_pin,
            buzzer_pin=self.buzzer_pin,
            estop_pin=self.estop_pin,
            estop=SwitchWiring(self.estop_contact, self.estop_pull),
            supply_relay_pin=self.supply_relay_pin,
            supply_relay_active_high=self.supply_relay_active_high,
        )


class _SimFile(Strict):
    real_time_factor: Number = Field(ge=0.0, le=1000.0)
    start_x_mm: Number = Field(ge=-1000.0, le=5000.0)
    start_y_mm: Number = Field(ge=-1000.0, le=5000.0)
    pull_out_speed_mm_s: Positive
    motor_accel_mm_s2: Positive
    rotor_pull_out_hz: Positive
    rig: Text
    dead_endstop: Literal["", "x", "y"]
    missing_pca9685: Flag
    covered_marker: Integer = Field(ge=-1, le=1000)


class _WebFile(Strict):
    enabled: Flag
    bind: Text
    public_view: Flag
    hosts: list[Text]
    max_connections: Integer = Field(ge=8, le=65536)
    max_connections_per_client: Integer = Field(ge=2, le=65536)

    @field_validator("hosts")
    @classmethod
    def _host_names(cls, hosts: list[str]) -> list[str]:
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
        return [name.rstrip(".").lower() for name in hosts]

    @model_validator(mode="after")
    def _caps(self) -> _WebFile:
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


class _VoiceFile(Strict):
    enabled: Flag
    voice: Text
    words_per_minute: Integer = Field(ge=80, le=450)

    @field_validator("voice")
    @classmethod
    def _espeak_name(cls, voice: str) -> str:
        if not voice or not all(c.isalnum() or c in "-_+/" for c in voice):
            raise ValueError(f'must be an espeak-ng voice name such as "en", not {voice!r}')
        return voice


class _ConfigFile(Strict):
    """The whole file, once the built-in defaults have filled what it leaves out."""

    backend: _BackendFile
    gantry: _GantryFile
    rotation: _RotationFile
    controls: _ControlsFile
    sim: _SimFile
    web: _WebFile
    voice: _VoiceFile
    camera: CameraFile = Field(default_factory=CameraFile)


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
    data = read_toml(file, ConfigError)
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
    try:
        checked = check(_ConfigFile, data, file, ConfigError)
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
    camera_raw = data.get("camera", {})
    config = Config(
        source=str(file) if file is not None else None,
        backend=checked.backend.kind,
        gantry=checked.gantry.typed(),
        rotation=checked.rotation.typed(),
        controls=checked.controls.typed(),
        sim=SimConfig(**checked.sim.model_dump()),
        web=WebConfig(**{**checked.web.model_dump(), "hosts": tuple(checked.web.hosts)}),
        voice=VoiceConfig(**checked.voice.model_dump()),
        camera=MappingProxyType(dict(camera_raw)),
        backend_settings=BackendConfig(**checked.backend.model_dump()),
    )
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
