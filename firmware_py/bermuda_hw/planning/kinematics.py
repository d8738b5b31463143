"""Board millimetres and grid dots to motor steps and back; cloud letters to actuator positions."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bermuda_hw import geometry
from bermuda_hw.errors import MotionError
from bermuda_hw.geometry import CLASSIC_LETTER_HEADINGS_DEG

if TYPE_CHECKING:
    from bermuda_hw.config import (
        AxisConfig,
        GantryConfig,
        ServoRotationConfig,
        StepperRotationConfig,
    )
    from bermuda_hw.rules.board import DotGrid


@dataclass(frozen=True)
class AxisKinematics:
    """One axis: axis step 0 is the endstop's trigger point; board = axis + offset."""

    name: str
    steps_per_mm: float
    board_offset_mm: float
    travel_mm: float

    @classmethod
    def from_config(cls, axis: AxisConfig) -> AxisKinematics:
        return cls(axis.name, axis.steps_per_mm, axis.board_offset_mm, axis.travel_mm)

    @property
    def travel_steps(self) -> int:
        return math.floor(self.travel_mm * self.steps_per_mm + 1e-9)

    def board_to_steps(self, board_mm: float) -> int:
        """The nearest motor step to a board coordinate."""
        return round((board_mm - self.board_offset_mm) * self.steps_per_mm)

    def steps_to_board(self, steps: int) -> float:
        return steps / self.steps_per_mm + self.board_offset_mm

    def steps_to_axis_mm(self, steps: int) -> float:
        return steps / self.steps_per_mm


@dataclass(frozen=True)
class GantryKinematics:
    """A Cartesian gantry: x and y motors move the carriage along the board's axes.

    A gantry that is not quite square (`skew_deg`: the y axis leans east by
    that angle as it runs south) moves the carriage tan(skew) mm east for every
    millimetre of y travel; the x motor makes up for it.
    """

    x: AxisKinematics
    y: AxisKinematics
    skew_deg: float = 0.0

    @classmethod
    def from_config(cls, gantry: GantryConfig) -> GantryKinematics:
        return cls(
            AxisKinematics.from_config(gantry.x),
            AxisKinematics.from_config(gantry.y),
            gantry.skew_deg,
        )

    @property
    def axes(self) -> tuple[AxisKinematics, AxisKinematics]:
        return (self.x, self.y)

    @property
    def _lean(self) -> float:
        return math.tan(math.radians(self.skew_deg))

    def board_to_steps(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        y_axis_mm = y_mm - self.y.board_offset_mm
        x_board_mm = x_mm - self._lean * y_axis_mm
        return (self.x.board_to_steps(x_board_mm), self.y.board_to_steps(y_mm))

    def steps_to_board(self, steps: tuple[int, int]) -> tuple[float, float]:
        y_axis_mm = self.y.steps_to_axis_mm(steps[1])
        return (
            self.x.steps_to_board(steps[0]) + self._lean * y_axis_mm,
            self.y.steps_to_board(steps[1]),
        )

    def dot_to_steps(self, grid: DotGrid, col: int, row: int) -> tuple[int, int]:
        """The motor steps that put the cloud's locater on a grid dot."""
        if not grid.contains(col, row):
            raise MotionError(f"dot ({col}, {row}) is not on the {grid.cols} x {grid.rows} grid")
        return self.board_to_steps(*grid.dot_mm(col, row))


@dataclass(frozen=True)
class StepperRotationKinematics:
    """Letters to absolute half-step positions of the clockwise-only rotation stepper.

    Positions only grow: every turn goes clockwise. Position `zero_offset`
    shows letter A; letter k shows once the cloud has turned
    `letter_headings_deg[k]` clockwise (board data: the order of the letters
    round the rim). A cloud turn need not be a whole number of half steps (a
    28BYJ-48's gearbox gives about 4075.77): every target is rounded from the
    exact position of that turn, so the fraction never accumulates.
    """

    half_steps_per_cloud_rev: float
    zero_offset_steps: int = 0
    letter_headings_deg: tuple[float, ...] = CLASSIC_LETTER_HEADINGS_DEG

    @classmethod
    def from_config(
        cls, stepper: StepperRotationConfig, letter_headings_deg: tuple[float, ...] | None = None
    ) -> StepperRotationKinematics:
        return cls(
            stepper.half_steps_per_cloud_rev,
            stepper.zero_offset_steps,
            letter_headings_deg or CLASSIC_LETTER_HEADINGS_DEG,
        )

    def heading_deg(self, position_steps: int) -> float:
        """The cloud's heading (clockwise from letter A) at an absolute position."""
        return geometry.wrap_deg(
            geometry.steps_to_deg(
                position_steps - self.zero_offset_steps, self.half_steps_per_cloud_rev
            )
        )

    def letter_at(self, position_steps: int) -> int:
        """The letter nearest the notch at an absolute position."""
        return geometry.nearest_heading(self.letter_headings_deg, self.heading_deg(position_steps))

    def clockwise_target(self, position_steps: int, letter: int) -> int:
        """The first absolute position at or after `position_steps` that shows `letter`."""
        if not 0 <= letter < len(self.letter_headings_deg):
            raise MotionError(f"letter must be 0..7, not {letter}")
        rev = self.half_steps_per_cloud_rev
        fraction = geometry.deg_to_turns(geometry.wrap_deg(self.letter_headings_deg[letter]))
        turns = (position_steps - self.zero_offset_steps) / rev
        k = math.floor(turns - fraction)
        while True:
            target = self.zero_offset_steps + round((k + fraction) * rev)
            if target >= position_steps:
                return target
            k += 1


@dataclass(frozen=True)
class ServoRotationKinematics:
    """Letters to servo angles through the gearing between servo and cloud."""

    cloud_deg_per_servo_deg: float
    actuation_range_deg: float
    letter_headings_deg: tuple[float, ...] = CLASSIC_LETTER_HEADINGS_DEG

    @classmethod
    def from_config(
        cls, servo: ServoRotationConfig, letter_headings_deg: tuple[float, ...] | None = None
    ) -> ServoRotationKinematics:
        return cls(
            servo.cloud_deg_per_servo_deg,
            servo.actuation_range_deg,
            letter_headings_deg or CLASSIC_LETTER_HEADINGS_DEG,
        )

    def servo_angle_deg(self, letter: int) -> float:
        if not 0 <= letter < len(self.letter_headings_deg):
            raise MotionError(f"letter must be 0..7, not {letter}")
        angle = geometry.wrap_deg(self.letter_headings_deg[letter]) / self.cloud_deg_per_servo_deg
        if angle > self.actuation_range_deg + 1e-9:
            raise MotionError(
                f"letter {letter} needs {angle:g} degrees, beyond the servo's "
                f"{self.actuation_range_deg:g}"
            )
        return angle
