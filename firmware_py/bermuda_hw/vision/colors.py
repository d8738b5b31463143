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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, field_validator

from bermuda_hw.checked import Name, Number, Strict, check, dotted, parse_toml, read_toml
from bermuda_hw.errors import CalibrationError
from bermuda_hw.vision.lighting import Lab

if TYPE_CHECKING:
    from bermuda_hw.vision.background import BoardBackground

LIGHTNESS_WEIGHT = 0.35


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
    #: one token's area as the camera sees it (mm², `vision.counts`; None: not measured)
    token_area_mm2: float | None = None
    #: what was wrong with the light of the calibration frames, and what to change (not
    #: saved: `detect --calibrate` says it)
    light_notes: tuple[str, ...] = ()

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
                None,
                dotted(("colors", name)),
                "no default profile for this colour: calibrate it (bermuda-hw detect "
                "--calibrate) or give it in a calibration file",
            )
        profiles.append(ColorProfile(name, DEFAULT_LABS[name]))
    return ColorCalibration(tuple(profiles))


# L*a*b* distance under which two ship colours cannot be told apart (the defaults are >= 28)
MIN_PROFILE_DISTANCE = 10.0


Lightness = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, le=100.0)]
Chroma = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-128.0, le=127.0)]


class _ProfileFile(Strict):
    lab: tuple[Lightness, Chroma, Chroma]
    tolerance: Number = Field(default=32.0, ge=5.0, le=80.0)


class _IgnoreFile(Strict):
    x_mm: Number = Field(ge=-1e4, le=1e4)
    y_mm: Number = Field(ge=-1e4, le=1e4)
    radius_mm: Number = Field(ge=1.0, le=200.0)


class _BackgroundFile(Strict):
    image: Name | None = None

    @field_validator("image")
    @classmethod
    def _a_name(cls, image: str | None) -> str | None:
        if image is not None and not image.strip():
            raise ValueError(f"must be the name of a PNG file, not {image!r}")
        return image


class _TokensFile(Strict):
    area_mm2: Number | None = Field(default=None, ge=20.0, le=2000.0)


class _CalibrationFile(Strict):
    """A calibration file as written: colour profiles, ignored spots, the board's look,
    one token's area."""

    colors: dict[str, _ProfileFile] = Field(default_factory=dict)
    ignore: list[_IgnoreFile] = Field(default_factory=list)
    background: _BackgroundFile = Field(default_factory=_BackgroundFile)
    tokens: _TokensFile = Field(default_factory=_TokensFile)


def parse_calibration(text: str, source: str, colors: Iterable[str]) -> ColorCalibration:
    """Parse and validate a calibration file; colours it leaves out keep their defaults."""
    return calibration_from_table(parse_toml(text, source, CalibrationError), source, colors)


def calibration_from_table(
    data: Mapping[str, Any], source: str, colors: Iterable[str]
) -> ColorCalibration:
    """A parsed calibration file checked against the board's ship colours."""
    names = tuple(colors)
    written = check(_CalibrationFile, data, source, CalibrationError)
    profiles: dict[str, ColorProfile] = {}
    for name, entry in written.colors.items():
        if name not in names:
            raise CalibrationError(
                source,
                dotted(("colors", name)),
                f"the board has no ship colour {name!r} (it has {', '.join(names)})",
            )
        profiles[name] = ColorProfile(name, entry.lab, entry.tolerance)
    ignore = tuple(IgnoreZone(z.x_mm, z.y_mm, z.radius_mm) for z in written.ignore)
    image = written.background.image
    background_file = str(Path(source).parent / image) if image is not None else None
    defaults = default_calibration([n for n in names if n not in profiles])
    merged = tuple(profiles.get(n) or defaults.profile(n) for n in names)
    _check_distinct(merged, profiles, source)
    area = written.tokens.area_mm2
    return ColorCalibration(
        merged,
        ignore,
        source,
        background_file=background_file,
        token_area_mm2=None if area is None else float(area),
    )


def _check_distinct(
    merged: tuple[ColorProfile, ...], written: Mapping[str, ColorProfile], source: str
) -> None:
    """Refuse two profiles too close to tell their ships apart (a copy-paste, a bad frame)."""
    for i, a in enumerate(merged):
        for b in merged[i + 1 :]:
            distance = math.dist(a.lab, b.lab)
            if distance < MIN_PROFILE_DISTANCE:
                named = b if b.name in written else a
                other = a if named is b else b
                raise CalibrationError(
                    source,
                    dotted(("colors", named.name, "lab")),
                    f"is {distance:.1f} from colors.{other.name} (less than "
                    f"{MIN_PROFILE_DISTANCE:g}): ships of the two colours cannot be told apart; "
                    "measure them again from a frame of the start layout",
                )


def load_calibration(path: str | Path | None, colors: Iterable[str]) -> ColorCalibration:
    """Load a calibration file; with no path, the default profiles."""
    if path is None:
        return default_calibration(colors)
    file = Path(path)
    return calibration_from_table(read_toml(file, CalibrationError), str(file), colors)


def calibration_to_toml(calibration: ColorCalibration, background_image: str | None = None) -> str:
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
        lines += [
            "",
            "[[ignore]]",
            f"x_mm = {z.x_mm:.1f}",
            f"y_mm = {z.y_mm:.1f}",
            f"radius_mm = {z.radius_mm:.1f}",
        ]
    if background_image is not None:
        lines += ["", "[background]", f"image = {json.dumps(background_image)}"]
    if calibration.token_area_mm2 is not None:
        lines += ["", "[tokens]", f"area_mm2 = {calibration.token_area_mm2:.1f}"]
    return "\n".join(lines) + "\n"
