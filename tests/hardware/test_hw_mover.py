"""The cloud mover on the simulated rig: homing, moves, spins, faults and emergency stop."""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading
import time
from collections.abc import Callable

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config, load_config
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.errors import (
    BusError,
    EmergencyStopError,
    HomingError,
    MotionError,
    SoftLimitError,
)
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.planning.steps import Limits, plan_line
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, Spin, plan_spin, swept_ships
from bermuda_hw.sim.rig import FAR_LIMIT_MM
from bermuda_hw.sim.world import World

SPM = 20.0  # steps per mm of the fast rig
MakeMover = Callable[..., tuple[CloudMover, SimBackend]]
Tweak = Callable[..., Config]


def at_centre(mover: CloudMover, board: Board) -> None:
    mover.home()
    mover.goto_dot(*board.grid.centre)


def truth_mm(backend: SimBackend) -> tuple[float, float]:
    return backend.rig.world.cloud_mm


# --- homing ---------------------------------------------------------------------------


def test_homing_finds_both_endstops(rig_mover: tuple[CloudMover, SimBackend]) -> None:
    mover, backend = rig_mover
    assert not mover.homed
    with pytest.raises(HomingError):
        mover.goto_dot(4, 4)
    mover.home()
    assert mover.homed and mover.position_steps == (0, 0)
    for model in backend.rig.axes.values():
        assert model.position_steps == 0  # the carriage really is at the trigger point
        assert model.endstop_pressed
    assert backend.rig.lost_steps == 0
    assert not backend.rig.enabled  # drivers disabled when idle


def test_homing_fault_when_an_endstop_never_closes(
    rig_mover: tuple[CloudMover, SimBackend],
) -> None:
    mover, backend = rig_mover
    backend.rig.break_endstop("y", "open")
    with pytest.raises(HomingError, match=r"axis y: endstop not reached within 460 mm"):
        mover.home()
    assert not mover.homed
    assert not backend.rig.enabled
    # the carriage drove into the frame at the end of travel
    assert backend.rig.axes["y"].blocked_steps > 0


def test_homing_backs_off_an_endstop_pressed_at_start(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config
) -> None:
    mover, backend = make_mover(tweak(fast_config, "sim", start_x_mm=0.0))
    assert backend.rig.axes["x"].endstop_pressed
    mover.home()
    first_x_step = backend.rig.axes["x"].trace[0][1]
    assert first_x_step == 1  # the first step moved away from the switch
    assert mover.homed and backend.rig.axes["x"].position_steps == 0
    assert backend.rig.lost_steps == 0


def test_homing_fault_when_an_endstop_is_stuck(rig_mover: tuple[CloudMover, SimBackend]) -> None:
    mover, backend = rig_mover
    backend.rig.break_endstop("x", "stuck")
    with pytest.raises(HomingError, match="axis x: endstop still pressed"):
        mover.home()
    assert not mover.homed and not backend.rig.enabled


# --- moves and limits -------------------------------------------------------------


def test_soft_limit_refusal_changes_no_pin(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    pins = [backend.pin(p) for p in (17, 20, 21, 6, 13)]
    before = [list(pin.states) for pin in pins]
    with pytest.raises(SoftLimitError, match="past the outside dots"):
        mover.goto_mm(60.0, 254.0)
    with pytest.raises(SoftLimitError):
        mover.goto_mm(254.0, 470.0)
    assert [list(pin.states) for pin in pins] == before
    assert mover.homed and mover.pose() == CloudPose(4, 4, 0)


def test_a_move_lands_on_its_dot_at_the_limits(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    mover.home()
    since = backend.clock.monotonic()
    report = mover.goto_dot(1, 7)
    assert truth_mm(backend) == pytest.approx(board.grid.dot_mm(1, 7), abs=0.5 / SPM)
    assert report.duration_s == pytest.approx(report.planned_s, rel=1e-6)
    speed, accel = backend.rig.peaks(since)
    limits = load_config().gantry
    # measured from the carriage's steps (diagonal: two axes interpolated), within 0.1 %
    assert speed <= limits.max_speed_mm_s * 1.001
    assert accel <= limits.accel_mm_s2 * 1.001
    assert speed > 0.9 * limits.max_speed_mm_s
    assert backend.rig.lost_steps == 0


@pytest.mark.parametrize(
    "spins",
    [("C 2 N",), ("H 3 E",), ("A West",), ("F 1 S", "B 4 W"), ("E South", "G North")],
)
def test_spins_land_on_the_right_dot_and_letter_with_no_lost_steps(
    rig_mover: tuple[CloudMover, SimBackend], board: Board, spins: tuple[str, ...]
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    pose = CloudPose(*board.grid.centre, 0)
    for text in spins:
        spin = Spin.parse(text)
        expected = plan_spin(board.grid, pose, spin)  # what the rules say
        report = mover.execute_spin(spin)
        assert report.path.end == expected.end
        pose = expected.end
        assert mover.pose() == pose
        x_mm, y_mm = truth_mm(backend)
        assert (x_mm, y_mm) == pytest.approx(board.grid.dot_mm(pose.col, pose.row), abs=0.5 / SPM)
        heading = backend.rig.world.cloud_heading_deg
        assert math.isclose(heading, pose.heading_deg, abs_tol=360 / 4096) or math.isclose(
            heading, pose.heading_deg + 360, abs_tol=360 / 4096
        )
    assert backend.rig.lost_steps == 0


def test_the_rotation_never_turns_back(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    rotor = backend.rig.rotor
    positions = [rotor.rotor_steps]
    for letter in (3, 1, 7, 0, 0, 5):
        mover.turn_to(letter)
        positions.append(rotor.rotor_steps)
    # forward drives the rotor's field one way only; the rig sees the sum of the turns
    assert all(b <= a for a, b in itertools.pairwise(positions))
    assert -positions[-1] == 4096 // 8 * (3 + 6 + 6 + 1 + 0 + 5)


def test_a_full_spin_on_the_reference_rig(make_mover: MakeMover, board: Board) -> None:
    """The reference rig as configured (80 steps/mm): home, centre, spin, no lost steps."""
    mover, backend = make_mover(load_config())
    at_centre(mover, board)
    mover.rotation.assume_letter(0)
    report = mover.execute_spin(Spin.parse("C 2 N"))
    assert report.path.end == CloudPose(4, 2, 2)
    assert truth_mm(backend) == pytest.approx(board.grid.dot_mm(4, 2), abs=0.5 / 80)
    assert backend.rig.world.cloud_heading_deg == pytest.approx(90.0, abs=360 / 4096)
    assert backend.rig.lost_steps == 0


def test_park_leaves_the_cloud_on_the_park_dot_with_the_drivers_off(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    mover.home()
    mover.goto_dot(2, 2)
    mover.park()
    assert mover.pose().dot == (4, 4)
    assert not backend.rig.enabled


# --- a planner that drives too hard is caught by the rig --------------------------


def test_too_fast_for_the_motor_loses_steps(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    mover, backend = make_mover(tweak(fast_config, "sim", pull_out_speed_mm_s=40.0))
    mover.home()
    mover.goto_dot(4, 4)
    assert backend.rig.lost_steps > 0
    assert truth_mm(backend) != pytest.approx(board.grid.dot_mm(4, 4), abs=1.0)


def test_too_much_acceleration_for_the_motor_loses_steps(
    make_mover: MakeMover, fast_config: Config
) -> None:
    mover, backend = make_mover(fast_config)
    mover.home()  # homing at the configured limits
    for model in backend.rig.axes.values():  # then a weaker motor than the planner assumes
        model.accel_steps_s2 = 100.0 * model.config.steps_per_mm
    mover.goto_dot(4, 4)
    assert backend.rig.lost_steps > 0


def test_too_fast_for_the_rotation_motor_loses_steps(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    mover, backend = make_mover(tweak(fast_config, "sim", rotor_pull_out_hz=200.0))
    at_centre(mover, board)
    mover.turn_to(2)
    assert backend.rig.rotor.lost_steps > 0
    assert backend.rig.world.cloud_heading_deg != pytest.approx(90.0, abs=1.0)


def test_the_uln2003_channels_in_phase_order_do_not_turn_the_cloud(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    """IN1..IN4 on channels 0..3: AIN1, AIN2, BIN1, BIN2 must be 0, 2, 1, 3 (the default)."""
    assert fast_config.rotation.stepper.channels == (0, 2, 1, 3)
    stepper = fast_config.rotation.stepper.model_copy(update={"channels": (0, 1, 2, 3)})
    mover, backend = make_mover(tweak(fast_config, "rotation", stepper=stepper))
    at_centre(mover, board)
    mover.turn_to(2)
    assert backend.rig.rotor.lost_steps > 0
    assert backend.rig.world.cloud_heading_deg != pytest.approx(90.0, abs=10.0)


# --- emergency stop and faults ------------------------------------------------------


def test_emergency_stop_in_the_middle_of_a_move(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    x_model = backend.rig.axes["x"]
    start = x_model.accepted_steps
    backend.virtual_clock.real_time_factor = 0.02  # slow enough to stop it half way
    failure: list[BaseException] = []

    def move() -> None:
        try:
            mover.goto_dot(0, 4)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=move)
    thread.start()
    deadline = time.monotonic() + 20.0
    while x_model.accepted_steps - start < 500 and time.monotonic() < deadline:
        time.sleep(0.001)
    mover.emergency_stop("e-stop button")
    stopped_at_s = backend.clock.monotonic()
    thread.join(10.0)
    backend.virtual_clock.real_time_factor = 0.0
    assert not thread.is_alive()
    assert len(failure) == 1 and isinstance(failure[0], EmergencyStopError)
    moved = x_model.accepted_steps - start
    assert 500 <= moved < 4 * 44 * SPM  # stopped part way
    # no step edge later than one step period after the stop
    period_s = 1.0 / (load_config().gantry.max_speed_mm_s * SPM)
    assert x_model.trace[-1][0] <= stopped_at_s + period_s
    assert not backend.rig.enabled
    assert not mover.homed
    with pytest.raises(HomingError, match="e-stop button"):
        mover.goto_dot(4, 4)
    with pytest.raises(HomingError):
        mover.turn_to(3)
    mover.home()
    mover.goto_dot(4, 4)
    assert truth_mm(backend) == pytest.approx(board.grid.dot_mm(4, 4), abs=0.5 / SPM)


def test_i2c_fault_during_a_turn_stops_the_motors(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    writes = 0

    def fault_after_some_steps(_chip: object, _t: float) -> None:
        nonlocal writes
        writes += 1
        if writes == 60:
            backend.bus.fail_next(10)

    backend.pca.add_listener(fault_after_some_steps)
    with pytest.raises(BusError, match="PCA9685 at 0x40"):
        mover.turn_to(4)
    assert not backend.rig.enabled
    assert not mover.homed
    changes = backend.rig.rotor.changes
    backend.virtual_clock.advance(1.0)
    assert backend.rig.rotor.changes == changes
    with pytest.raises(HomingError, match="I2C fault"):
        mover.goto_dot(4, 4)


def test_a_vanished_pca9685_is_a_clear_error(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    backend.bus.remove(0x40)
    with pytest.raises(BusError, match="Remote I/O"):
        mover.turn_to(1)
    assert not backend.rig.enabled


def test_servo_variant_turns_to_letters_and_back(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    config = tweak(fast_config, "rotation", kind="servo")
    mover, backend = make_mover(config)
    at_centre(mover, board)
    for letter in (3, 7, 1):
        mover.turn_to(letter)
        assert backend.rig.world.cloud_heading_deg == pytest.approx(letter * 45.0, abs=1.0)
    assert mover.pose().letter == 1


def test_close_twice_is_fine(make_mover: MakeMover, fast_config: Config) -> None:
    mover, _ = make_mover(fast_config)
    mover.close()
    mover.close()
    assert not mover.stream.thread.is_alive()


# --- the world -----------------------------------------------------------------------


def test_magnets_pick_up_ships_and_carry_them(board: Board) -> None:
    world = World(board)
    world.set_carriage(254.0, 254.0)
    magnet = world.magnets_mm()[0]
    world.place_ship("blue-1", magnet[0] + 10.0, magnet[1])  # within the capture radius
    world.place_ship("red-1", 20.0, 20.0)
    assert "blue-1" in world.carried and "red-1" not in world.carried
    world.set_carriage(254.0, 166.0)
    assert world.ships["blue-1"] == pytest.approx((magnet[0], magnet[1] - 88.0))
    world.set_heading(90.0)
    turned = world.magnets_mm()[0]
    assert world.ships["blue-1"] == pytest.approx(turned)
    dropped = world.drop("blue-1")
    world.set_carriage(254.0, 254.0)
    assert world.ships["blue-1"] == dropped
    world.remove("red-1")
    assert "red-1" not in world.ship_positions()


def test_the_estop_button_stops_a_move(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    config = tweak(fast_config, "controls", estop_pin=4)
    mover, backend = make_mover(config)
    with TableControls(config.controls, pin_factory=backend.pin_factory) as controls:
        controls.on_estop(lambda: mover.emergency_stop("e-stop button"))
        at_centre(mover, board)
        backend.virtual_clock.real_time_factor = 0.02
        failure: list[BaseException] = []

        def move() -> None:
            try:
                mover.goto_dot(4, 0)
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=move)
        thread.start()
        y_model = backend.rig.axes["y"]
        start = y_model.accepted_steps
        deadline = time.monotonic() + 20.0
        while y_model.accepted_steps - start < 300 and time.monotonic() < deadline:
            time.sleep(0.001)
        backend.rig.press_estop()  # the button is pressed (a normally-closed contact opens)
        thread.join(10.0)
        backend.virtual_clock.real_time_factor = 0.0
        assert len(failure) == 1 and isinstance(failure[0], EmergencyStopError)
        assert not backend.rig.enabled and not mover.homed


def test_a_step_rate_above_the_drivers_limit_is_refused(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    # bypasses the configuration check on purpose: the mover checks again
    config = tweak(fast_config, "gantry", max_step_rate_hz=500.0)
    mover, backend = make_mover(config)
    mover.home()
    steps_before = backend.rig.axes["x"].accepted_steps
    with pytest.raises(MotionError, match="above max_step_rate_hz"):
        mover.goto_dot(4, 4)
    assert backend.rig.axes["x"].accepted_steps == steps_before


def test_homing_refused_while_the_estop_is_engaged(
    rig_mover: tuple[CloudMover, SimBackend],
) -> None:
    mover, backend = rig_mover
    engaged = [True]
    mover.add_interlock(lambda: engaged[0])
    with pytest.raises(EmergencyStopError, match="release it"):
        mover.home()
    assert backend.rig.axes["x"].accepted_steps == 0
    engaged[0] = False
    mover.home()
    assert mover.homed


def test_an_estop_pressed_as_homing_starts_is_not_lost(
    rig_mover: tuple[CloudMover, SimBackend],
) -> None:
    mover, backend = rig_mover

    def level_then_press() -> bool:
        # the level reads released; the button's edge arrives right after the read
        mover.emergency_stop("e-stop button")
        return False

    mover.add_interlock(level_then_press)
    with pytest.raises(EmergencyStopError):
        mover.home()
    assert backend.rig.axes["x"].accepted_steps == backend.rig.axes["y"].accepted_steps == 0
    assert not mover.homed and not backend.rig.enabled
    # the drivers were never energised, not even between the check and the enable
    enable = backend.pin(mover.config.gantry.enable_pin)
    active = mover.config.gantry.enable_active_high
    assert all(bool(state.state) != active for state in enable.states[1:])


def test_the_estop_level_is_polled_between_steps(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    """An e-stop held with no edge seen (a missed event) still stops a move within a few steps."""
    mover, backend = rig_mover
    at_centre(mover, board)
    reads = {"n": 0}

    def held_after_a_while() -> bool:
        reads["n"] += 1
        return reads["n"] > 20

    mover.add_interlock(held_after_a_while)
    before = backend.rig.axes["y"].accepted_steps
    with pytest.raises(EmergencyStopError, match="e-stop is held"):
        mover.goto_dot(4, 0)
    moved = backend.rig.axes["y"].accepted_steps - before
    planned = round(4 * board.grid.pitch_mm * mover.config.gantry.y.steps_per_mm)
    assert 0 < moved < planned
    assert not mover.homed and not backend.rig.enabled


def test_an_endstop_pressed_far_from_home_stops_a_move(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    backend.rig.break_endstop("x", "cut")  # a normally-closed switch's wire comes off
    with pytest.raises(
        HomingError,
        match=r"axis x: endstop or far-end limit switch pressed "
        r"during a move",
    ):
        mover.goto_dot(6, 6)
    assert not mover.homed and not backend.rig.enabled
    assert truth_mm(backend) != pytest.approx(board.grid.dot_mm(6, 6), abs=5.0)
    # a move that ends near home may press the switch: it is not watched there
    backend.rig.break_endstop("x", "")
    mover.home()
    mover.goto_dot(0, 0)


@pytest.mark.parametrize("start", ["home", "centre"])
def test_the_far_end_limit_switch_stops_a_move_before_the_frame(
    rig_mover: tuple[CloudMover, SimBackend], board: Board, start: str
) -> None:
    """The belt slipped: the carriage stands 20 mm further out than the mover counts. A
    move to the far column then runs past the end of travel; the far-end limit switch, in
    series with the endstop, opens the loop there and the move stops at once, before the
    carriage reaches the frame, from home as from the centre."""
    mover, backend = rig_mover
    mover.home()
    if start == "centre":
        mover.goto_dot(*board.grid.centre)
    axis = backend.rig.axes["x"]
    spm = axis.config.steps_per_mm
    target = mover.kinematics.board_to_steps(
        *board.grid.dot_mm(board.grid.cols - 1, board.grid.centre[1])
    )
    # the true end of that move lies 10 mm beyond the end of travel, past the frame
    backend.rig.slip("x", axis.config.travel_mm + 10.0 - target[0] / spm)
    with pytest.raises(HomingError, match=r"axis x: endstop or far-end limit switch pressed"):
        mover.goto_dot(board.grid.cols - 1, board.grid.centre[1])
    assert axis.blocked_steps == 0  # stopped on the switch, never driven into the frame
    far = round((axis.config.travel_mm + FAR_LIMIT_MM) * spm)
    assert far <= axis.position_steps <= far + round(2.0 * spm)  # within 2 mm of the switch
    assert not mover.homed and not backend.rig.enabled


def test_a_spin_on_the_rig_carries_the_ships_the_rules_say_it_sweeps(
    make_mover: MakeMover, fast_config: Config, board: Board
) -> None:
    world = World(board)
    mover, backend = make_mover(fast_config, world=world)
    assert backend.rig.world is world
    at_centre(mover, board)
    cx, cy = board.grid.dot_mm(*board.grid.centre)
    magnet = board.cloud.magnets[0]
    # on the arc the first magnet sweeps while the cloud turns to C, and one far away
    angle = math.radians(magnet.angle_deg + 45.0)
    on_arc = (cx + magnet.radius_mm * math.sin(angle), cy - magnet.radius_mm * math.cos(angle))
    far = board.grid.dot_mm(8, 8)
    world.place_ship("blue-1", *on_arc)
    world.place_ship("red-2", *far)
    assert not world.carried
    spin = Spin.parse("C 2 N")
    report = mover.execute_spin(spin)
    swept = swept_ships(board, report.path, {"blue-1": on_arc, "red-2": far})
    assert swept == {"blue-1"}
    assert set(world.carried) == swept
    magnets_now = world.magnets_mm()
    assert min(math.dist(world.ships["blue-1"], m) for m in magnets_now) < 1e-6
    assert world.ships["red-2"] == far


def test_a_jerk_limited_spin_on_the_rig(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    config = tweak(fast_config, "gantry", jerk_mm_s3=3000.0)
    mover, backend = make_mover(config)
    at_centre(mover, board)
    report = mover.execute_spin(Spin.parse("D 3 W"))
    assert report.move is not None
    plain = plan_line(
        mover.kinematics, report.move.start_steps, report.move.end_steps, Limits(60.0, 150.0)
    )
    assert report.move.planned_s > plain.duration_s  # the jerk limit shows
    assert truth_mm(backend) == pytest.approx(board.grid.dot_mm(1, 4), abs=0.5 / SPM)
    assert backend.rig.lost_steps == 0


def test_ctrl_c_during_a_move_is_an_emergency_stop(
    rig_mover: tuple[CloudMover, SimBackend], board: Board
) -> None:
    mover, backend = rig_mover
    at_centre(mover, board)
    # a tenth of real time: the move lasts long enough for the pressing thread to run on a
    # loaded machine
    backend.virtual_clock.real_time_factor = 0.1
    x_model = backend.rig.axes["x"]
    start = x_model.accepted_steps

    def press_ctrl_c() -> None:
        deadline = time.monotonic() + 20.0
        while x_model.accepted_steps - start < 300 and time.monotonic() < deadline:
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGINT)

    # Python's own Ctrl-C, whatever an earlier test in this process left installed (a
    # library's event loop may keep a handler of its own)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    helper = threading.Thread(target=press_ctrl_c)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            mover.goto_dot(0, 4)
    finally:
        helper.join()
        signal.signal(signal.SIGINT, previous)
        backend.virtual_clock.real_time_factor = 0.0
    assert mover.stopped and not mover.homed
    assert mover.estop_reason == "interrupted"
    assert not backend.rig.enabled
    assert x_model.accepted_steps - start < 4 * 44 * SPM


def test_lost_rotation_steps_stay_counted_after_later_turns(
    make_mover: MakeMover, tweak: Tweak, fast_config: Config, board: Board
) -> None:
    mover, backend = make_mover(tweak(fast_config, "sim", rotor_pull_out_hz=200.0))
    at_centre(mover, board)
    mover.turn_to(2)
    lost = backend.rig.rotor.lost_steps
    assert lost > 0
    backend.rig.rotor.pull_out_hz = 1000.0  # a healthy motor from here on
    mover.turn_to(4)
    assert backend.rig.rotor.lost_steps == lost
