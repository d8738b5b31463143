"""The rig as the loop drives it, on stand-ins for the mover and the camera's stream (no
table rendered): waiting for a clear board, homing, turning the cloud to the game's letter."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from bermuda_hw.controller.rig import Rig
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.boardfile import load_board

BOARD = load_board()


class Clock:
    """Time that passes only as the stand-in stream reads frames."""

    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t


@dataclass
class Mover:
    """Records what the rig asked of it."""

    letter: int = 0
    calls: list[tuple[str, Any]] = field(default_factory=list)

    def home(self, approach: object) -> None:
        self.calls.append(("home", approach))

    def goto_mm(self, x_mm: float, y_mm: float) -> None:
        self.calls.append(("goto_mm", (x_mm, y_mm)))

    def assume_letter(self, letter: int) -> None:
        self.calls.append(("assume_letter", letter))
        self.letter = letter

    def turn_to(self, letter: int) -> None:
        self.calls.append(("turn_to", letter))
        self.letter = letter


class Stream:
    """Frames read one after another, a tenth of a second apart."""

    def __init__(self, clock: Clock, readings: list[Any]) -> None:
        self.clock = clock
        self.readings = readings
        self.last_reading: Any = None

    def step(self) -> None:
        self.clock.t += 0.1
        self.last_reading = self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


def _reading(board_found: bool = True, occluded: bool = False) -> SimpleNamespace:
    return SimpleNamespace(board_found=board_found, occluded=occluded, markers_seen=())


def _rig(readings: list[Any] | None = None) -> tuple[Rig, Mover, list[str]]:
    clock, mover, said = Clock(), Mover(), []
    rig = Rig(
        board=BOARD,
        open_camera=lambda: pytest.fail("no camera is opened here"),
        mover=mover,  # type: ignore[arg-type]
        clock=clock,  # type: ignore[arg-type]
        reader=None,  # type: ignore[arg-type]
        stability=None,  # type: ignore[arg-type]
        kick=lambda: None,
        say=said.append,
        watch_board=lambda reading: None,
        stopping=lambda: False,
    )
    rig.stream = Stream(clock, readings or [_reading()])  # type: ignore[assignment]
    return rig, mover, said


def test_motion_waits_for_a_board_clear_of_hands() -> None:
    rig, _, said = _rig([_reading(occluded=True)] * 3 + [_reading()])
    rig.wait_for_clear_board("the gantry homes")
    assert rig.board_clear()
    assert said == ["hands off the board, please: the gantry homes once it is clear"]


def test_a_board_that_stays_covered_starts_no_motion() -> None:
    rig, _, said = _rig([_reading(occluded=True)])
    rig.clear_board_timeout_s = 1.0
    with pytest.raises(HardwareError, match="has not seen the board clear for 1 s"):
        rig.wait_for_clear_board("the spin")
    assert len(said) == 1  # told once


def test_homing_along_an_approach_comes_back_to_its_last_dot() -> None:
    rig, mover, _ = _rig()
    rig.board_may_hold_ships = False
    rig.home(None)
    approach = SimpleNamespace(last_mm=(120.0, 80.0))
    rig.home(approach)  # type: ignore[arg-type]
    assert mover.calls == [("home", None), ("home", approach), ("goto_mm", (120.0, 80.0))]
    assert rig.board_may_hold_ships


def test_the_table_asked_to_clear_the_way_homes_straight() -> None:
    rig, _, _ = _rig()
    rig.clear_confirmed = True  # the press answers "clear the way"
    game = SimpleNamespace()  # (no route is looked for)
    assert rig.before_homing(game) is None  # type: ignore[arg-type]
    assert not rig.clear_confirmed


def test_the_camera_is_believed_about_the_clouds_letter() -> None:
    rig, mover, said = _rig()
    rig.align(SimpleNamespace(cloud=SimpleNamespace(letter=3)), 0)  # type: ignore[arg-type]
    assert mover.calls == [("assume_letter", 3), ("turn_to", 0)]
    assert said == ["the cloud shows letter D: turning it to A"]
    mover.calls.clear()
    rig.align(SimpleNamespace(cloud=SimpleNamespace(letter=0)), 0)  # type: ignore[arg-type]
    rig.align(SimpleNamespace(cloud=None), 0)  # type: ignore[arg-type]
    assert mover.calls == []
