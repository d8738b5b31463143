"""Say what is wrong when nothing happens, and say it once: no board in view, a board to fix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bermuda_hw.controller.status import Mode

from .conftest import shared_config

MakeTable = Callable[..., Any]


def test_a_camera_that_never_sees_the_board_says_which_markers_it_sees(
    make_table: MakeTable, table_config: Any
) -> None:
    # a camera too coarse to find the corner markers: the board is never found
    # (start-up waits for the board before homing: it says what the camera sees, then
    # faults without moving; a press tries again)
    table = make_table(
        config=shared_config(table_config, width_px=96, height_px=72), with_players=False
    )
    said = [line for line in table.log if "has not seen the board for" in line]
    assert len(said) == 1, table.log[-5:]  # said once, not at every frame
    assert "corner markers 0, 1, 2, 3" in said[0] and "it sees" in said[0]
    assert table.mode() is Mode.FAULT
    assert "board not found" in table.controller.status.message
    table.steps(150)
    said = [line for line in table.log if "has not seen the board for" in line]
    assert len(said) == 1, table.log[-5:]


def test_homing_reports_how_it_went(make_table: MakeTable) -> None:
    table = make_table(with_players=False)
    assert any(
        line.startswith("homed in ") and "the cloud goes to dot" in line for line in table.log
    )


def test_a_board_that_stays_wrong_is_said_once_then_on_change_or_after_a_minute(
    make_table: MakeTable,
) -> None:
    table = make_table(seed=6, with_players=False)
    c = table.controller
    positions = c.game.ship_positions()
    for sid, (x_mm, y_mm) in positions.items():
        table.world.place_ship(sid, x_mm, y_mm)
    table.steps(40, until=lambda: table.mode() is Mode.READY)
    assert table.mode() is Mode.READY
    # a player fiddles: one ship goes back and forth between two wrong spaces
    ship = next(iter(positions))
    spots = [table.board.spaces["S05"].position, table.board.spaces["S20"].position]
    start = len(table.log)
    started_s = table.backend.clock.monotonic()
    for i in range(24):
        table.world.place_ship(ship, *spots[i % 2])
        table.steps(6)
    said = table.log[start:]
    elapsed_s = table.backend.clock.monotonic() - started_s
    assert elapsed_s < 60.0
    assert any("belongs at" in line for line in said)
    assert len(said) == len(set(said)), "\n".join(said)  # each said once
    # a minute later, still wrong: said again, once
    table.world.place_ship(ship, *spots[1])
    table.steps(6)
    table.backend.clock.advance(61.0)
    table.world.place_ship(ship, *spots[0])
    start = len(table.log)
    table.steps(12)
    again = [line for line in table.log[start:] if "belongs at" in line]
    assert len(again) == 1, "\n".join(table.log[start:])
