"""A stop request (SIGTERM) made at any moment of start-up is never erased by homing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bermuda_hw.controller.status import Mode

MakeTable = Callable[..., Any]


def _steps(table: Any) -> dict[str, int]:
    return {name: axis.accepted_steps for name, axis in table.backend.rig.axes.items()}


@pytest.mark.parametrize("when", ["before start", "as homing begins"])
def test_a_stop_request_before_homing_moves_nothing(make_table: MakeTable, when: str) -> None:
    table = make_table(start=False)
    c = table.controller
    before = _steps(table)
    if when == "before start":
        c.request_stop()
    else:
        home = table.mover.home

        def stopped_then_home(*args: Any, **kwargs: Any) -> None:
            c.request_stop()  # the signal lands after the controller decided to home
            home(*args, **kwargs)

        table.mover.home = stopped_then_home
    try:
        c.start()
    except Exception as exc:  # start-up faults are shown, never raised: nothing may escape
        pytest.fail(f"start() raised {exc!r}")
    assert _steps(table) == before, "the gantry moved after the stop request"
    assert c.stopping
    assert c.status.mode is not Mode.FAULT  # stopping on request is no fault
    assert table.mover.stopped and not table.backend.rig.enabled
