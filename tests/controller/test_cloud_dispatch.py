"""The cloud's phase, carried out: the spin (MOVING, then AFTER_SPIN), a fault on the way, the
captures journalled once the cloud is seen where the plan has it, a wrong letter turned first
(a stand-in for the controller and the mover; synthetic observations, no frame)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from parts_table import BOARD, Table
from synthetic import observe

from bermuda_hw.controller.cloud_dispatch import finish_spin, spin
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import Mode
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Phase
from bermuda_hw.vision.types import BoardObservation, CloudReading


class Mover:
    """The cloud mover's spin and turns, recorded; `fails` is raised by a spin."""

    def __init__(self, fails: Exception | None = None) -> None:
        self.fails = fails
        self.calls: list[Any] = []

    def execute_spin(self, spin: object) -> None:
        self.calls.append("spin")
        if self.fails is not None:
            raise self.fails

    def assume_letter(self, letter: int) -> None:
        self.calls.append(("assume letter", letter))

    def turn_to(self, letter: int) -> None:
        self.calls.append(("turn to", letter))


def _at_the_cloud_phase(tmp_path: Path, mover: Mover) -> Table:
    table = Table(tmp_path, players=3, seed=7)
    rng = random.Random(7)
    game = table.game
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    table.saved(table.session.commit())
    table.spinner = Spinner(mover, table.rig, table.say)  # type: ignore[arg-type]
    table.status.mode = Mode.SPIN
    return table


def _seen(table: Table, letter: int | None = None) -> BoardObservation:
    """The board after the spin, the cloud at the plan's dot showing `letter` (the plan's)."""
    pending = table.spinner.pending
    assert pending is not None
    observation = observe(BOARD, {p: list(c) for p, c in contents(table.game).items()})
    col, row = pending.end
    x, y = BOARD.grid.dot_mm(col, row)
    shown = pending.spin.letter if letter is None else letter
    return replace(observation, cloud=CloudReading(col, row, shown, x, y, 0.0))


def test_a_spin_moves_the_cloud_then_looks_for_captures(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    assert mover.calls == ["spin"]
    assert [mode for mode, _ in table.modes] == [Mode.MOVING, Mode.AFTER_SPIN]
    assert table.modes[0][1] == f"spin: {table.status.last_spin}"
    assert table.spinner.pending is not None and table.rig.calls[-1] == "forget"


def test_a_spin_that_faults_is_a_fault(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover(HardwareError("the e-stop button")))
    spin(table)
    assert table.faults == ["the e-stop button"] and table.status.mode is Mode.FAULT
    assert table.spinner.pending is None


def test_the_cloud_where_the_plan_has_it_journals_the_captures(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover())
    spin(table)
    journal = len(table.game.journal)
    finish_spin(table, _seen(table))
    assert table.spinner.pending is None
    assert len(table.game.journal) > journal and table.status.seq == len(table.game.journal)
    assert len(table.journalled()) == len(table.game.journal)
    assert table.game.phase is Phase.SHIPS or table.game.is_over()
    assert any(line.startswith("totals: ") for line in table.lines)
    if not table.game.is_over():
        assert table.status.mode is Mode.SETUP
        assert table.status.message == f"round {table.game.round}: checking the board"


def test_a_wrong_letter_is_turned_before_anything_is_decided(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    pending = table.spinner.pending
    assert pending is not None
    journal = len(table.game.journal)
    wrong = (pending.spin.letter + 1) % 8
    finish_spin(table, _seen(table, wrong))
    assert mover.calls[-1] == ("turn to", pending.spin.letter)
    assert len(table.game.journal) == journal and table.status.mode is Mode.AFTER_SPIN
    assert table.rig.calls[-1] == "forget" and table.spinner.pending is not None
