"""The rotation stepper's true gear ratio: fractional half steps per turn, carried without drift."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config, load_config
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.planning.kinematics import StepperRotationKinematics

TRUE_28BYJ48 = 4075.7728395  # 64 half steps per motor turn x its 63.68395:1 gearbox


def _with_rotation(config: Config, **changes: float) -> Config:
    stepper = config.rotation.stepper.model_copy(update=changes)
    rotation = config.rotation.model_copy(update={"stepper": stepper})
    return config.model_copy(update={"rotation": rotation})


def test_the_config_accepts_the_true_ratio(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "rig.toml"
    path.write_text("[rotation.stepper]\nhalf_steps_per_rev = 4075.77\n")
    config = load_config(path)
    assert config.rotation.stepper.half_steps_per_cloud_rev == pytest.approx(4075.77)


def test_forty_turns_of_the_kinematics_land_on_the_exact_turn() -> None:
    kin = StepperRotationKinematics(TRUE_28BYJ48)
    position = 0
    for turn in range(1, 41):
        for letter in (3, 6, 0):  # a turn in three spins, ending on A
            position = kin.clockwise_target(position, letter)
        exact = turn * TRUE_28BYJ48
        assert abs(position - exact) <= 0.5  # rounded from the exact turn, never accumulated
        assert kin.letter_at(position) == 0


@given(
    rev=st.floats(400.0, 20_000.0),
    letters=st.lists(st.integers(0, 7), min_size=1, max_size=60),
)
def test_every_target_is_within_half_a_step_of_its_heading(rev: float, letters: list[int]) -> None:
    kin = StepperRotationKinematics(rev)
    position = 0
    for letter in letters:
        position = kin.clockwise_target(position, letter)
        error_deg = (kin.heading_deg(position) - 45.0 * letter + 180.0) % 360.0 - 180.0
        assert abs(error_deg) <= 360.0 / rev / 2 + 1e-9


def test_forty_turns_on_the_rig_do_not_drift(
    make_backend: Callable[..., SimBackend], board: object
) -> None:
    # the 28BYJ-48's true ratio, geared 10:1 up to the cloud so that 40 turns stay quick
    config = _with_rotation(load_config(), half_steps_per_rev=TRUE_28BYJ48, gear_ratio=0.1)
    backend = make_backend(config)
    rev = config.rotation.stepper.half_steps_per_cloud_rev
    # the target's rounding (half a step) and the rotor settling on a neighbouring
    # detent as its coils are energised one channel at a time (one step); a
    # whole-step ratio would be 0.58 step further off at every turn
    tolerance_deg = 1.5 * 360.0 / rev
    with CloudMover(config, backend, board) as mover:  # type: ignore[arg-type]
        for _ in range(40):
            for letter in (2, 5, 0):
                mover.rotation.turn_to(letter)
                heading = backend.rig.world.cloud_heading_deg
                error = (heading - 45.0 * letter + 180.0) % 360.0 - 180.0
                assert abs(error) <= tolerance_deg
        assert backend.rig.rotor.lost_steps == 0
        assert mover.rotation.position_steps == round(40 * rev)
