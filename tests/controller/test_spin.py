"""The spin carried out: an aborted move placed again, a wrong letter turned, a fault's words
when the rig cannot (stand-ins for the mover and the rig; synthetic observations)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from synthetic import observe

from bermuda_hw.controller.cloud_phase import MAX_POSE_RETRIES, PendingSpin, plan_spin
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.errors import HardwareError, StepTimingError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.vision.types import BoardObservation, CloudReading

BOARD = load_board()


def _at_the_cloud_phase(seed: int = 7) -> tuple[Game, PendingSpin]:
    rng = random.Random(seed)
    game = Game.new(3, seed=seed, board=BOARD)
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    return game, plan_spin(game, None)


def _seen(game: Game, pending: PendingSpin, letter: int | None = None) -> BoardObservation:
    """The board after the spin, the cloud at the plan's dot, showing `letter` (the plan's)."""
    observation = observe(BOARD, {p: list(c) for p, c in contents(game).items()})
    col, row = pending.end
    x, y = BOARD.grid.dot_mm(col, row)
    shown = pending.spin.letter if letter is None else letter
    return replace(observation, cloud=CloudReading(col, row, shown, x, y, 0.0))


class Mover:
    def __init__(self, spin_fails: Exception | None = None) -> None:
        self.spin_fails = spin_fails
        self.turn_fails: Exception | None = None
        self.calls: list[tuple[str, Any]] = []

    def execute_spin(self, spin: object) -> None:
        self.calls.append(("spin", spin))
        if self.spin_fails is not None:
            raise self.spin_fails

    def assume_letter(self, letter: int) -> None:
        self.calls.append(("assume_letter", letter))

    def turn_to(self, letter: int) -> None:
        if self.turn_fails is not None:
            raise self.turn_fails
        self.calls.append(("turn_to", letter))


class Rig:
    def __init__(self) -> None:
        self.placed: list[tuple[Any, ...]] = []

    def place_again(self, game: Game, goal: object, leave: frozenset[str]) -> None:
        self.placed.append((goal, leave))


def _spinner(mover: Mover) -> tuple[Spinner, Rig, list[str]]:
    rig, said = Rig(), []
    return Spinner(mover, rig, said.append), rig, said  # type: ignore[arg-type]


def test_a_move_aborted_as_late_is_homed_and_placed_again() -> None:
    game, pending = _at_the_cloud_phase()
    spinner, rig, said = _spinner(Mover(StepTimingError("the step thread fell behind")))
    spinner.spin(game, pending)
    assert said[0] == "the step thread fell behind"
    assert "the move was aborted: homing and placing the cloud" in said[1]
    assert rig.placed == [(pending.goal, pending.swept)]
    assert spinner.pending is not None and spinner.pending.pose_retries == 1


def test_a_spin_that_faults_is_forgotten() -> None:
    game, pending = _at_the_cloud_phase()
    spinner, _, _ = _spinner(Mover(HardwareError("the e-stop button")))
    with pytest.raises(HardwareError, match="the e-stop button"):
        spinner.spin(game, pending)
    assert spinner.pending is None


def test_the_cloud_where_the_plan_has_it_decides_the_captures() -> None:
    game, pending = _at_the_cloud_phase()
    spinner, rig, _ = _spinner(Mover())
    spinner.spin(game, pending)
    decided = spinner.look(game, _seen(game, pending))
    assert decided is not None and spinner.pending is not None and not rig.placed


def test_a_wrong_letter_is_turned_and_a_failed_turn_is_a_rotation_fault() -> None:
    game, pending = _at_the_cloud_phase()
    mover = Mover()
    spinner, _, said = _spinner(mover)
    spinner.spin(game, pending)
    wrong = (pending.spin.letter + 1) % 8
    assert spinner.look(game, _seen(game, pending, wrong)) is None
    assert mover.calls[-2:] == [("assume_letter", wrong), ("turn_to", pending.spin.letter)]
    assert said[-1].startswith("the cloud shows letter")
    mover.turn_fails = HardwareError("the driver does not answer")
    with pytest.raises(HardwareError, match=r"^rotation fault: the driver does not answer$"):
        spinner.look(game, _seen(game, pending, wrong))
    assert spinner.pending is None


def test_placing_again_gives_up_after_the_retries() -> None:
    game, pending = _at_the_cloud_phase()
    spinner, rig, _ = _spinner(Mover(StepTimingError("late")))
    with pytest.raises(HardwareError, match="check the belts"):
        spinner.spin(game, replace(pending, pose_retries=MAX_POSE_RETRIES))
    assert spinner.pending is None and not rig.placed
