"""Soft limits: the carriage stays within the grid's outside dots and each axis's travel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bermuda_hw.errors import ConfigError, SoftLimitError
from bermuda_hw.planning.kinematics import GantryKinematics

if TYPE_CHECKING:
    from bermuda_hw.planning.steps import StepPlan
    from bermuda_hw.rules.board import DotGrid

_TOLERANCE_MM = 1e-6


@dataclass(frozen=True)
class SoftLimits:
    """The box a move must stay in: the outside dots' ring and the axes' travel."""

    kinematics: GantryKinematics
    min_board_mm: tuple[float, float]
    max_board_mm: tuple[float, float]

    @classmethod
    def for_grid(cls, kinematics: GantryKinematics, grid: DotGrid) -> SoftLimits:
        x0, y0 = grid.dot_mm(0, 0)
        x1, y1 = grid.dot_mm(grid.cols - 1, grid.rows - 1)
        return cls(kinematics, (x0, y0), (x1, y1))

    def check_rig(self, source: str | None, park_dot: tuple[int, int], grid: DotGrid) -> None:
        """Refuse, before anything moves, a park dot off the grid or a grid beyond the travel.

        The errors name the configuration key to change (`gantry.park_dot`,
        `gantry.<axis>.board_offset_mm`).
        """
        if not grid.contains(*park_dot):
            raise ConfigError(
                source,
                "gantry.park_dot",
                f"[{park_dot[0]}, {park_dot[1]}] is not a dot of the board's "
                f"{grid.cols} x {grid.rows} grid (columns 0..{grid.cols - 1}, "
                f"rows 0..{grid.rows - 1})",
            )
        for index, axis in enumerate(self.kinematics.axes):
            for board_mm in (self.min_board_mm[index], self.max_board_mm[index]):
                steps = axis.board_to_steps(board_mm)
                if not 0 <= steps <= axis.travel_steps:
                    raise ConfigError(
                        source,
                        f"gantry.{axis.name}.board_offset_mm",
                        f"with {axis.board_offset_mm:g} mm the outside dots at {axis.name} = "
                        f"{board_mm:g} mm lie at {axis.steps_to_axis_mm(steps):.1f} mm of the "
                        f"axis, beyond its travel 0..{axis.travel_mm:g} mm",
                    )

    def within_grid(self, steps: tuple[int, int]) -> bool:
        try:
            self.check_steps(steps)
        except SoftLimitError:
            return False
        return True

    def check_steps(self, steps: tuple[int, int], what: str = "target", grid: bool = True) -> None:
        """Raise SoftLimitError if a step position is outside an axis's travel or the grid."""
        board = self.kinematics.steps_to_board(steps)
        for index, axis in enumerate(self.kinematics.axes):
            s = steps[index]
            if not 0 <= s <= axis.travel_steps:
                raise SoftLimitError(
                    f"{what}: axis {axis.name} at {axis.steps_to_axis_mm(s):.2f} mm is beyond "
                    f"its travel 0..{axis.travel_mm:g} mm"
                )
            if not grid:
                continue
            board_mm = board[index]
            low, high = self.min_board_mm[index], self.max_board_mm[index]
            # one step of rounding is allowed at the outside dots
            slack = 1.0 / axis.steps_per_mm + _TOLERANCE_MM
            if board_mm < low - slack or board_mm > high + slack:
                raise SoftLimitError(
                    f"{what}: {axis.name} = {board_mm:.2f} mm is past the outside dots "
                    f"({low:g}..{high:g} mm)"
                )

    def check_plan(self, plan: StepPlan) -> None:
        """Check every position a planned move passes through, before anything moves.

        Every point must lie within both axes' travel, and the move must end
        within the ring of outside dots. A move that starts within that ring
        (every move but the first after homing) must stay within it throughout.
        """
        inside = self.within_grid(plan.start_steps)
        self.check_steps(plan.start_steps, "start of move", grid=False)
        self.check_steps(plan.end_steps, "end of move")
        for axis in (0, 1):
            positions = plan.positions(axis)
            if positions.size == 0:
                continue
            for value in (int(positions.min()), int(positions.max())):
                probe = list(plan.end_steps)
                probe[axis] = value
                self.check_steps((probe[0], probe[1]), "path of move", grid=inside)
