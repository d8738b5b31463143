"""The cloud phase closes the loop on the camera: wrong dot, wrong letter, aborted move."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from bermuda_hw.controller.status import Mode
from bermuda_hw.errors import StepTimingError
from bermuda_hw.rules.board import LETTERS

MakeTable = Callable[..., Any]


def _spin(table: Any) -> Any:
    """Run to the cloud phase and press spin: the cloud has moved; returns the pending spin."""
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    table.press()
    table.steps(1)
    assert table.mode() is Mode.AFTER_SPIN
    assert c.spinner.pending is not None
    return c.spinner.pending


def _at_dot(table: Any, dot: tuple[int, int]) -> bool:
    return math.dist(table.world.cloud_mm, table.board.grid.dot_mm(*dot)) < 1.0


def test_a_cloud_seen_at_the_wrong_dot_is_homed_and_placed_again(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    pending = _spin(table)
    round_before = c.game.round
    table.backend.rig.slip("x", table.board.grid.pitch_mm)  # a belt jumped: one dot east
    table.run_until(lambda: c.game.round > round_before or table.mode() is Mode.FAULT, limit=400)
    assert table.mode() is not Mode.FAULT
    text = "\n".join(table.log)
    assert "not at dot" in text and "homing and placing the cloud" in text
    end = pending.end
    if not pending.leaves_board:
        assert _at_dot(table, end)


def test_a_cloud_that_keeps_slipping_faults_after_the_retries(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    pending = _spin(table)
    pitch = table.board.grid.pitch_mm

    def knock() -> None:  # every time the cloud is on its dot after the spin, it is pushed off
        if table.mode() is Mode.AFTER_SPIN and _at_dot(table, pending.end):
            table.backend.rig.slip("x", pitch)

    table.backend.scene.before_frame.append(knock)
    table.run_until(lambda: table.mode() is Mode.FAULT, limit=400)
    assert "homing 2 times did not bring the cloud" in c.status.message
    assert sum("homing and placing" in line for line in table.log) == 2
    assert c.game.phase.value == "cloud"  # the spin's captures were not decided


def test_the_letter_is_realigned_from_the_marker_after_a_turn(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    pending = _spin(table)
    round_before = c.game.round
    table.backend.rig.slip_rotation(45.0)  # the cloud turned one letter on its coupling
    table.run_until(lambda: c.game.round > round_before, limit=400)
    wanted = LETTERS[pending.spin.letter]
    assert any(f"not {wanted}: turning it to {wanted}" in line for line in table.log)
    heading = table.world.cloud_heading_deg
    expected = table.board.cloud.heading_deg(table.mover.rotation.letter)
    assert abs((heading - expected + 180.0) % 360.0 - 180.0) < 2.0


def test_an_aborted_spin_move_is_homed_and_finished(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    mover = table.mover
    original = mover.execute_spin
    calls = []

    def late_once(spin: Any) -> Any:
        calls.append(spin)
        if len(calls) == 1:
            mover.emergency_stop("step timing")
            raise StepTimingError("step timing: step 12 came 3.10 ms late; the move was aborted")
        return original(spin)

    mover.execute_spin = late_once
    round_before = c.game.round
    table.press()
    table.run_until(lambda: c.game.round > round_before or table.mode() is Mode.FAULT, limit=400)
    assert table.mode() is not Mode.FAULT
    assert any("the move was aborted: homing and placing" in line for line in table.log)
