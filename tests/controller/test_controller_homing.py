"""Homing during a game does not drag the cloud through the ships on the simulated table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bermuda_hw.controller.status import Mode
from bermuda_hw.planning.route import line_sweeps
from bermuda_hw.rules.record import to_dict

MakeTable = Callable[..., Any]


Points = dict[str, tuple[float, float]]


def _set_up_game(make_table: MakeTable) -> tuple[Any, dict[str, Any], Points]:
    """A game whose ships are in their ports, the cloud at the centre; then the service stops."""
    first = make_table(seed=3)
    c = first.controller
    first.run_until(lambda: first.mode() is Mode.READY, limit=600)
    assert not first.world.carried
    game = to_dict(c.game)
    ships = dict(first.world.ship_positions())
    first.controller.close()
    first.journal.close()
    first.backend.close()
    return first, game, ships


def _straight_homing_sweeps(table: Any, ships: Points) -> frozenset[str]:
    """What homing straight from where the cloud is (y to its endstop, then x) would sweep."""
    x_mm, y_mm = table.world.cloud_mm
    home = table.mover.kinematics.steps_to_board((0, 0))
    letter = table.board.cloud.letter_at(table.world.cloud_heading_deg)
    return line_sweeps(
        table.board, (x_mm, y_mm), (x_mm, home[1]), letter, ships, margin_mm=0
    ) | line_sweeps(table.board, (x_mm, home[1]), home, letter, ships, margin_mm=0)


def test_homing_at_a_restart_steers_the_cloud_clear_of_the_ships(make_table: MakeTable) -> None:
    first, game, ships = _set_up_game(make_table)
    # the straight way to the endstops passes the ships in a port: they would be dragged off
    assert _straight_homing_sweeps(first, ships)
    second = make_table(seed=3, world=first.world, state_dir=first.state_dir, with_players=False)
    c = second.controller
    assert second.mover.homed and second.mode() is not Mode.FAULT, c.status.message
    assert dict(second.world.ship_positions()) == ships  # not one ship moved
    assert not second.world.carried
    assert to_dict(c.game) == game
    pose = c.game.pose
    assert second.world.cloud_mm == pytest.approx(
        first.board.grid.dot_mm(pose.col, pose.row), abs=0.5
    )
    second.run_until(lambda: second.mode() is Mode.READY, limit=100)
    assert to_dict(c.game) == game


def test_homing_waits_for_a_clear_board_when_the_cloud_cannot_be_seen(
    make_table: MakeTable,
) -> None:
    first, game, ships = _set_up_game(make_table)
    sim = first.config.sim.model_copy(update={"covered_marker": first.board.markers.cloud_id})
    covered = first.config.model_copy(update={"sim": sim})
    second = make_table(
        seed=3, world=first.world, state_dir=first.state_dir, with_players=False, config=covered
    )
    c = second.controller
    rig = second.backend.rig
    # nothing moved: the table is asked to clear the way
    assert second.mode() is Mode.FAULT and not second.mover.homed
    assert "cannot see the cloud's marker" in c.status.message
    assert "press spin" in c.status.message
    assert all(model.accepted_steps == 0 for model in rig.axes.values())
    assert dict(second.world.ship_positions()) == ships
    assert to_dict(c.game) == game
    second.steps(5)  # no homing on its own
    assert all(model.accepted_steps == 0 for model in rig.axes.values())
    # the players clear the way (they lift the ships on it), then press: it homes straight
    for ship in _straight_homing_sweeps(second, ships):
        second.world.remove(ship)
    second.press()
    second.steps(1)
    assert second.mover.homed and second.mode() is not Mode.FAULT, c.status.message
    assert to_dict(c.game) == game
