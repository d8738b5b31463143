"""Colour profiles of the ship tokens and the calibration file that holds them.

Colours are compared in CIE L*a*b* (L* 0-100, a*, b* about -128..127) after
each frame's lighting has been normalised against the board's own sea and
the white around the markers. A profile is a colour's centre and a tolerance;
the lightness counts less than the chroma (`LIGHTNESS_WEIGHT`), because
shadows and glare change lightness most. The defaults suit ordinary blue,
yellow, green and red plastic; a calibration file measured on the real table
replaces them.

Calibration file (TOML)::

    [colors.blue]
    lab = [32.0, 18.0, -52.0]
    tolerance = 30.0

    [[ignore]]              # printed spots that look like a ship
    x_mm = 254.0
    y_mm = 254.0
    radius_mm = 10.0

    [background]            # the empty board's learned look (vision.background)
    image = "colors.background.png"   # relative to this file
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bermuda_hw.errors import CalibrationError

if TYPE_CHECKING:
    from bermuda_hw.vision.background import BoardBackground

LIGHTNESS_WEIGHT = 0.35
Lab = tuple[float, float, float]


@dataclass(frozen=True)
class ColorProfile:
    """One ship colour: its centre in L*a*b* and how far a pixel may be from it."""

    name: str
    lab: Lab
    tolerance: float = 40.0

    def distance(self, lab: Lab) -> float:
        return lab_distance(self.lab, lab)


def lab_distance(p: Lab, q: Lab) -> float:
    """Weighted L*a*b* distance: lightness counts `LIGHTNESS_WEIGHT` of chroma."""
    return math.sqrt(
        (LIGHTNESS_WEIGHT * (p[0] - q[0])) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2
    )


# Ordinary plastic tokens under white light (after normalisation to white).
DEFAULT_LABS: dict[str, Lab] = {
    "blue": (35.0, 18.0, -50.0),
    "yellow": (82.0, 2.0, 72.0),
    "green": (55.0, -45.0, 38.0),
    "red": (45.0, 60.0, 40.0),
    "white": (95.0, 0.0, 0.0),
    "black": (15.0, 0.0, 0.0),
    "orange": (65.0, 40.0, 65.0),
    "purple": (35.0, 45.0, -40.0),
}


@dataclass(frozen=True)
class IgnoreZone:
    """A printed spot on the board that must not be read as a ship."""

    x_mm: float
    y_mm: float
    radius_mm: float


@dataclass(frozen=True)
class ColorCalibration:
    """The ship colours to look for, and where the board fools the ship search."""

    profiles: tuple[ColorProfile, ...]
    ignore: tuple[IgnoreZone, ...] = ()
    source: str = "<defaults>"
    extra: Mapping[str, Any] = field(default_factory=dict)
    background: BoardBackground | None = None  # the empty board's learned look
    background_file: str | None = None  # where the file says it is saved

    def profile(self, name: str) -> ColorProfile:
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.profiles)


def default_calibration(colors: Iterable[str]) -> ColorCalibration:
    """Default profiles for a board's ship colours (names from the board file)."""
    profiles = []
    for name in colors:
        if name not in DEFAULT_LABS:
            raise CalibrationError(
                None, f"colors.{name}",
                "no default profile for this colour: calibrate it (bermuda-hw detect "
                "--calibrate) or give it in a calibration file",
            )
        profiles.append(ColorProfile(name, DEFAULT_LABS[name]))
    return ColorCalibration(tuple(profiles))


# L*a*b* distance under which two ship colours cannot be told apart (the defaults are >= 28)
MIN_PROFILE_DISTANCE = 10.0


def _number(value: Any, file: str, key: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalibrationError(file, key, f"must be a number, not {value!r}")
    result = float(value)
    if not (math.isfinite(result) and low <= result <= high):
        raise CalibrationError(file, key, f"must be between {low} and {high}, not {value!r}")
    return result


def parse_calibration(text: str, source: str, colors: Iterable[str]) -> ColorCalibration:
    """Parse and validate a calibration file; colours it leaves out keep their defaults."""
    names = tuple(colors)
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: a 5,000-digit number
        raise CalibrationError(source, None, f"is not valid TOML: {exc}") from None
    for key in data:
        if key not in ("colors", "ignore", "background"):
            raise CalibrationError(source, key,
                                   "unknown key (expected colors, ignore, background)")
    raw = data.get("colors", {})
    if not isinstance(raw, dict):
        raise CalibrationError(source, "colors", "must be a table of colour tables")
    profiles: dict[str, ColorProfile] = {}
    for name, entry in raw.items():
        key = f"colors.{name}"
        if name not in names:
            raise CalibrationError(
                source, key, f"the board has no ship colour {name!r} (it has {', '.join(names)})"
            )
        if not isinstance(entry, dict):
            raise CalibrationError(source, key, "must be a table { lab, tolerance }")
        for k in entry:
            if k not in ("lab", "tolerance"):
                raise CalibrationError(
                    source, f"{key}.{k}", "unknown key (expected lab, tolerance)"
                )
        if "lab" not in entry:
            raise CalibrationError(source, f"{key}.lab", "is missing")
        lab = entry["lab"]
        if not isinstance(lab, list) or len(lab) != 3:
            raise CalibrationError(source, f"{key}.lab", f"must be [L, a, b], not {lab!r}")
        values = (
            _number(lab[0], source, f"{key}.lab[0]", 0.0, 100.0),
            _number(lab[1], source, f"{key}.lab[1]", -128.0, 127.0),
            _number(lab[2], source, f"{key}.lab[2]", -128.0, 127.0),
        )
        tol = _number(entry.get("tolerance", 32.0), source, f"{key}.tolerance", 5.0, 80.0)
        profiles[name] = ColorProfile(name, values, tol)
    ignore: list[IgnoreZone] = []
    raw_ignore = data.get("ignore", [])
    if not isinstance(raw_ignore, list):
        raise CalibrationError(source, "ignore", "must be an array of tables")
    for i, entry in enumerate(raw_ignore):
        key = f"ignore[{i}]"
        if not isinstance(entry, dict):
            raise CalibrationError(source, key, "must be a table { x_mm, y_mm, radius_mm }")
        for k in entry:
            if k not in ("x_mm", "y_mm", "radius_mm"):
                raise CalibrationError(source, f"{key}.{k}", "unknown key")
        for k in ("x_mm", "y_mm", "radius_mm"):
            if k not in entry:
                raise CalibrationError(source, f"{key}.{k}", "is missing")
        ignore.append(
            IgnoreZone(
                _number(entry["x_mm"], source, f"{key}.x_mm", -1e4, 1e4),
                _number(entry["y_mm"], source, f"{key}.y_mm", -1e4, 1e4),
                _number(entry["radius_mm"], source, f"{key}.radius_mm", 1.0, 200.0),
            )
        )
    background_file: str | None = None
    raw_background = data.get("background", {})
    if not isinstance(raw_background, dict):
        raise CalibrationError(source, "background", "must be a table { image }")
    for k in raw_background:
        if k != "image":
            raise CalibrationError(source, f"background.{k}", "unknown key (expected image)")
    if "image" in raw_background:
        image = raw_background["image"]
        if not isinstance(image, str) or not image.strip():
            raise CalibrationError(source, "background.image",
                                   f"must be the name of a PNG file, not {image!r}")
        background_file = str(Path(source).parent / image)
    defaults = default_calibration([n for n in names if n not in profiles])
    merged = tuple(profiles.get(n) or defaults.profile(n) for n in names)
    _check_distinct(merged, profiles, source)
    return ColorCalibration(merged, tuple(ignore), source, background_file=background_file)


def _check_distinct(merged: tuple[ColorProfile, ...], written: Mapping[str, ColorProfile],
                    source: str) -> None:
    """Refuse two profiles too close to tell their ships apart (a copy-paste, a bad frame)."""
    for i, a in enumerate(merged):
        for b in merged[i + 1:]:
            distance = math.dist(a.lab, b.lab)
            if distance < MIN_PROFILE_DISTANCE:
                named = b if b.name in written else a
                other = a if named is b else b
                raise CalibrationError(
                    source, f"colors.{named.name}.lab",
                    f"is {distance:.1f} from colors.{other.name} (less than "
                    f"{MIN_PROFILE_DISTANCE:g}): ships of the two colours cannot be told apart; "
                    "measure them again from a frame of the start layout")


def load_calibration(path: str | Path | None, colors: Iterable[str]) -> ColorCalibration:
    """Load a calibration file; with no path, the default profiles."""
    if path is None:
        return default_calibration(colors)
    file = Path(path)
    return parse_calibration(CalibrationError.read_text(file), str(file), colors)


def calibration_to_toml(calibration: ColorCalibration, background_image: str | None = None
                        ) -> str:
    """The text of a calibration file that `load_calibration` reads back; with
    `background_image`, the name (relative to the file) of the saved board look."""
    lines = ["# Ship colour profiles for bermuda-hw vision (L*a*b* after lighting normalisation)."]
    for p in calibration.profiles:
        lines += [
            "",
            f"[colors.{p.name}]",
            f"lab = [{p.lab[0]:.1f}, {p.lab[1]:.1f}, {p.lab[2]:.1f}]",
            f"tolerance = {p.tolerance:.1f}",
        ]
    for z in calibration.ignore:
        lines += ["", "[[ignore]]", f"x_mm = {z.x_mm:.1f}", f"y_mm = {z.y_mm:.1f}",
                  f"radius_mm = {z.radius_mm:.1f}"]
    if background_image is not None:
        lines += ["", "[background]", f"image = {json.dumps(background_image)}"]
    return "\n".join(lines) + "\n"
