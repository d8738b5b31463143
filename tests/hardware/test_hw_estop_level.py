"""The e-stop as a level everywhere: pressed at every point of home()'s start, and before or
during a turn of the cloud, on the e-stop's own mock pin (the NC contact opening)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.errors import EmergencyStopError
from bermuda_hw.motion import mover as mover_module
from bermuda_hw.motion.mover import CloudMover

MakeMover = Callable[..., tuple[CloudMover, SimBackend]]
Tweak = Callable[..., Config]
MOVER_FILE = mover_module.__file__


def _wired(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, *, edge: bool = True, **rotation: Any
) -> tuple[CloudMover, SimBackend, TableControls]:
    """A mover with the e-stop wired as the controller wires it: the level as the interlock
    and (unless `edge` is False: a missed event) the press's edge as an emergency stop."""
    config = tweak(fast_config, "controls", estop_pin=4)
    mover, backend = make_mover(config, **rotation)
    controls = TableControls(config.controls, pin_factory=backend.pin_factory)
    if edge:
        controls.on_estop(lambda: mover.emergency_stop("e-stop button"))
    mover.add_interlock(lambda: controls.estop_engaged)
    return mover, backend, controls


def _steps(backend: SimBackend) -> tuple[int, int]:
    return (backend.rig.axes["x"].accepted_steps, backend.rig.axes["y"].accepted_steps)


def _home_with_press_at_line(mover: CloudMover, backend: SimBackend, k: int) -> dict[str, Any]:
    """Run home(), pressing the e-stop when the mover's code (on this thread) reaches its
    k-th line; what happened."""
    seen = {"lines": 0, "pressed_at": None, "steps_at_press": None, "execute_at": None}

    def trace(frame: FrameType, event: str, _arg: object) -> Any:
        if frame.f_code.co_filename != MOVER_FILE:
            return None
        if event == "call" and frame.f_code.co_name == "_execute" and seen["execute_at"] is None:
            seen["execute_at"] = seen["lines"]
        if event == "line":
            if seen["lines"] == k and seen["pressed_at"] is None:
                seen["pressed_at"] = k
                seen["steps_at_press"] = _steps(backend)
                backend.rig.press_estop()  # the NC contact opens: the pin's level changes
            seen["lines"] += 1
        return trace

    sys.settrace(trace)
    try:
        mover.home()
        seen["raised"] = None
    except EmergencyStopError as exc:
        seen["raised"] = exc
    finally:
        sys.settrace(None)
    return seen


@pytest.mark.parametrize("edge", [True, False], ids=["edge-and-level", "level-only"])
def test_an_estop_pressed_at_any_point_of_homes_start_stops_it(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, edge: bool
) -> None:
    mover, backend, controls = _wired(make_mover, tweak, fast_config, edge=edge)
    with controls:
        # how many lines of the mover run before the first step plan is handed to the stream
        probe = _home_with_press_at_line(mover, backend, k=10**9)
        assert probe["raised"] is None and mover.homed
        start_lines = probe["execute_at"]
        assert start_lines is not None and start_lines > 5
        for k in range(start_lines + 8):
            before = _steps(backend)
            seen = _home_with_press_at_line(mover, backend, k)
            assert seen["pressed_at"] == k
            assert isinstance(seen["raised"], EmergencyStopError), f"pressed at line {k}"
            at_press = seen["steps_at_press"]
            after = _steps(backend)
            # at most the one step under way when the button opened
            assert all(a - p <= 1 for a, p in zip(after, at_press, strict=True)), (k, before)
            assert not mover.homed and not backend.rig.enabled, k
            backend.rig.press_estop(False)
        mover.home()
        assert mover.homed


def test_a_turn_with_the_estop_held_does_not_start(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config
) -> None:
    # the press's edge was missed (no callback): only the level tells
    mover, backend, controls = _wired(make_mover, tweak, fast_config, edge=False)
    with controls:
        mover.home()
        backend.rig.press_estop()
        heading = backend.rig.world.cloud_heading_deg
        with pytest.raises(EmergencyStopError, match="e-stop is held"):
            mover.turn_to(3)
        assert backend.rig.world.cloud_heading_deg == heading
        assert not mover.homed and not backend.rig.enabled


@pytest.mark.parametrize("after_steps", [0, 1, 40])
def test_an_estop_held_during_a_turn_stops_it_within_a_step(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, after_steps: int
) -> None:
    mover, backend, controls = _wired(make_mover, tweak, fast_config, edge=False)
    with controls:
        mover.home()
        rotation: Any = mover.rotation
        onestep = rotation.motor.onestep
        made = {"n": 0}

        def counted(**kwargs: Any) -> Any:
            made["n"] += 1
            if made["n"] == after_steps:
                backend.rig.press_estop()
            return onestep(**kwargs)

        rotation.motor.onestep = counted
        if after_steps == 0:
            backend.rig.press_estop()
        with pytest.raises(EmergencyStopError):
            mover.turn_to(4)
        assert made["n"] == after_steps  # no step after the press
        assert not mover.homed and not backend.rig.enabled


def test_a_servo_stops_settling_when_the_estop_is_held(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config
) -> None:
    config = tweak(fast_config, "rotation", kind="servo")
    mover, backend, controls = _wired(make_mover, tweak, config, edge=False)
    with controls:
        mover.home()
        start_s = backend.clock.monotonic()
        settle_s = config.rotation.servo.settle_s
        original = backend.clock.wait_until

        def wait_until(deadline_s: float, stop: Any = None) -> bool:
            if backend.clock.monotonic() - start_s > settle_s / 3:
                backend.rig.press_estop()
            return bool(original(deadline_s, stop))

        backend.clock.wait_until = wait_until  # type: ignore[method-assign]
        try:
            with pytest.raises(EmergencyStopError):
                mover.turn_to(4)
        finally:
            backend.clock.wait_until = original  # type: ignore[method-assign]
        assert backend.clock.monotonic() - start_s < settle_s
        assert not mover.homed
