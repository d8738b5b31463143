"""Faults at run time, the e-stop, occlusion and a restart in the middle of a game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.controller.journal import JournalWriteError
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Phase
from bermuda_hw.rules.record import to_dict
from bermuda_hw.sim.render import Hand

MakeTable = Callable[..., Any]


def _journal_matches(table: Any) -> None:
    loaded = table.journal.load(table.board)
    assert loaded is not None
    assert to_dict(loaded[1]) == to_dict(table.controller.game)


def test_camera_stalls_mid_game(make_table: MakeTable) -> None:
    table = make_table(seed=2)
    c = table.controller
    table.run_until(lambda: c.game.round == 2 and table.mode() is Mode.READY, limit=600)
    table.backend.camera.stall_after = 0  # no new frame from now on
    table.steps(1)
    assert table.mode() is Mode.FAULT
    assert "camera" in c.status.message and "stalled" in c.status.message
    assert table.mover.stopped and not table.backend.rig.enabled  # motors off
    _journal_matches(table)
    # nothing happens until someone presses the button
    table.steps(5)
    assert table.mode() is Mode.FAULT
    table.press()
    table.steps(1)
    assert table.mode() is not Mode.FAULT and table.mover.homed
    table.run_until(lambda: c.game.round == 3, limit=600)
    _journal_matches(table)


def test_i2c_fault_during_the_spin(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    assert c.game.phase is Phase.CLOUD
    table.backend.bus.fail_next(10_000)
    table.run_until(lambda: table.mode() is Mode.FAULT, limit=50)
    assert "I2C" in c.status.message or "Input/output" in c.status.message
    assert table.mover.stopped and not table.backend.rig.enabled
    assert c.game.phase is Phase.CLOUD  # the cloud phase was not applied
    _journal_matches(table)
    table.backend.bus.fail_next(0)
    faulted_round = c.game.round
    table.press()
    table.run_until(lambda: c.game.round == faulted_round + 1, limit=600)
    _journal_matches(table)


def test_estop_button_during_the_spin(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    rig = table.backend.rig
    world = table.world
    moves = {"n": 0}
    original = world.set_carriage

    def carriage(x_mm: float, y_mm: float) -> None:
        original(x_mm, y_mm)
        moves["n"] += 1
        if moves["n"] == 100:
            rig.press_estop()  # pressed in the middle of the move

    world.set_carriage = carriage  # type: ignore[method-assign]
    table.run_until(lambda: table.mode() is Mode.FAULT, limit=50)
    world.set_carriage = original  # type: ignore[method-assign]
    assert "e-stop" in c.status.message
    assert not table.mover.homed and not table.backend.rig.enabled
    assert c.game.phase is Phase.CLOUD
    _journal_matches(table)
    table.press()  # still held: refused
    table.steps(1)
    assert table.mode() is Mode.FAULT
    assert any("still engaged" in line for line in table.log)
    rig.press_estop(False)  # released
    faulted_round = c.game.round
    table.press()
    table.run_until(lambda: c.game.round == faulted_round + 1, limit=600)
    assert table.mover.homed


def test_start_with_the_estop_held_waits_in_fault_mode(make_table: MakeTable) -> None:
    table = make_table(start=False)
    table.backend.rig.press_estop()
    table.controller.start()  # not raised: the service stays up and waits
    assert table.mode() is Mode.FAULT and "e-stop" in table.controller.status.message
    assert table.backend.rig.lost_steps == 0 and not table.mover.homed
    assert all(model.accepted_steps == 0 for model in table.backend.rig.axes.values())
    table.backend.rig.press_estop(False)
    table.press()
    table.run_until(lambda: table.mode() is not Mode.FAULT, limit=50)
    assert table.mover.homed


def test_start_without_a_camera_waits_in_fault_mode(make_table: MakeTable) -> None:
    table = make_table(start=False)
    table.backend.camera_missing = True
    table.controller.start()
    assert table.mode() is Mode.FAULT and "camera" in table.controller.status.message
    assert not table.mover.homed
    table.backend.camera_missing = False
    table.press()
    table.run_until(lambda: table.mode() is not Mode.FAULT, limit=50)
    assert table.mover.homed


def test_a_homing_fault_at_start_waits_for_the_button(make_table: MakeTable) -> None:
    table = make_table(start=False)
    table.backend.rig.break_endstop("y", "open")
    table.controller.start()
    assert table.mode() is Mode.FAULT and "endstop not reached" in table.controller.status.message
    assert not table.backend.rig.enabled
    table.steps(5)  # no retry on its own: it waits for the button
    assert table.mode() is Mode.FAULT
    table.backend.rig.break_endstop("y", "")
    table.press()
    table.run_until(lambda: table.mode() is not Mode.FAULT, limit=50)
    assert table.mover.homed


def test_no_spin_while_a_hand_is_over_the_board(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    table.backend.scene.hand = Hand(250.0, 250.0, side="S")
    carriage = table.world.cloud_mm
    table.press()
    table.steps(10)
    assert table.mode() is Mode.SPIN and table.world.cloud_mm == carriage
    assert any("hands off the board" in line for line in table.log)
    table.backend.scene.hand = None
    table.run_until(lambda: table.mode() is not Mode.SPIN, limit=20)
    assert c.status.last_spin


def _spin_pressed_under_a_hand(make_table: MakeTable) -> tuple[Any, tuple[float, float]]:
    """A table asking for the spin, its players pressing none, spin pressed with a hand over
    the board; the table and where the cloud stood."""
    table = make_table(seed=4, presses_spin=False)
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    table.backend.scene.hand = Hand(250.0, 250.0, side="S")
    carriage = table.world.cloud_mm
    table.press()
    table.steps(5)
    return table, carriage


def test_a_spin_waiting_for_a_clear_board_is_called_off_by_a_pause(
    make_table: MakeTable,
) -> None:
    """Spin pressed with a hand over the board, then motion paused from the page: the hand
    lifted does not set the cloud moving, nor does resuming; a new press spins."""
    table, carriage = _spin_pressed_under_a_hand(make_table)
    c = table.controller
    c.page.pause({})
    table.backend.scene.hand = None
    table.steps(20)
    c.page.resume({})
    table.steps(20)
    assert table.mode() is Mode.SPIN and table.world.cloud_mm == carriage
    assert any("the spin waiting for a clear board is called off" in line for line in table.log)
    table.press()
    table.run_until(lambda: table.mode() is not Mode.SPIN, limit=20)
    assert c.status.last_spin


def test_a_spin_waiting_for_a_clear_board_ends_with_its_mode(make_table: MakeTable) -> None:
    """Spin pressed with a hand over the board, then the last move undone from the page: when
    the move is made again and spin is asked for again, the cloud waits for a new press."""
    table, carriage = _spin_pressed_under_a_hand(make_table)
    table.controller.page.undo({})
    table.backend.scene.hand = None
    table.run_until(lambda: table.mode() is not Mode.SETUP, limit=600)
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    table.steps(20)
    assert table.mode() is Mode.SPIN and table.world.cloud_mm == carriage


def test_no_homing_while_a_hand_is_over_the_board(make_table: MakeTable) -> None:
    table = make_table(seed=4)
    c = table.controller
    c.rig.clear_board_timeout_s = 1.0
    table.run_until(lambda: table.mode() is Mode.SPIN, limit=600)
    table.backend.rig.press_estop()
    table.steps(2)
    assert table.mode() is Mode.FAULT
    table.backend.rig.press_estop(False)
    opened = c.rig.open_camera

    def open_with_a_hand() -> CameraSource:
        camera = opened()
        assert table.backend.scene is not None
        table.backend.scene.hand = Hand(250.0, 250.0, side="S")
        return camera

    c.rig.open_camera = open_with_a_hand
    steps = [m.accepted_steps for m in table.backend.rig.axes.values()]
    table.press()
    table.steps(1)
    assert table.mode() is Mode.FAULT and "has not seen the board clear" in c.status.message
    assert [m.accepted_steps for m in table.backend.rig.axes.values()] == steps
    c.rig.open_camera = opened
    table.press()
    table.run_until(lambda: table.mode() is not Mode.FAULT, limit=50)
    assert table.mover.homed


def test_a_hand_over_the_board_just_delays(make_table: MakeTable) -> None:
    table = make_table(seed=6, with_players=False)
    c = table.controller
    for sid, (x_mm, y_mm) in c.game.ship_positions().items():
        table.world.place_ship(sid, x_mm, y_mm)
    table.run_until(lambda: table.mode() is Mode.READY, limit=100)
    seq = c.status.seq
    move = c.game.legal_moves(2)[0]
    token = next(
        s
        for s in table.world.ship_positions()
        if s.startswith(c.game.active) and c.game.ship(s).location == move.start and s == move.ship
    )
    table.world.place_ship(token, *table.board.spaces[move.end].position)
    table.backend.scene.hand = Hand(250.0, 250.0, side="S")
    table.steps(10)
    assert c.status.seq == seq and table.mode() is Mode.READY
    table.backend.scene.hand = None
    table.run_until(lambda: c.status.seq != seq, limit=20)
    assert c.game.ship(move.ship).location == move.end


def test_restart_mid_game_resumes_from_the_journal(make_table: MakeTable) -> None:
    first = make_table(seed=7)
    c1 = first.controller
    first.run_until(lambda: c1.game.round == 3 and first.mode() is Mode.READY, limit=900)
    before = to_dict(c1.game)
    first.controller.close()
    first.journal.close()
    first.backend.close()
    second = make_table(seed=7, world=first.world, state_dir=first.state_dir)
    c2 = second.controller
    assert any(line.startswith("resuming game 1") for line in second.log)
    assert to_dict(c2.game) == before
    second.run_until(lambda: c2.game.round == 5, limit=900)
    _journal_matches(second)


def test_the_watchdog_is_kicked_by_the_loop_and_by_the_step_thread_during_moves(
    make_table: MakeTable,
) -> None:
    import sys
    import threading

    from bermuda_hw.controller.notify import Watchdog

    table = make_table(seed=4, start=False)
    c = table.controller
    threads: list[str] = []
    callers: set[str] = set()

    def notify(message: str) -> bool:
        threads.append(threading.current_thread().name)
        frame: Any = sys._getframe(1)
        while frame is not None:
            callers.add(frame.f_code.co_name)
            frame = frame.f_back
        return True

    clock = table.backend.clock
    # replaced after the controller was built: the loop, the step thread and the rig all
    # kick the watchdog the controller holds now
    c.watchdog = Watchdog({"WATCHDOG_USEC": "200000"}, monotonic=clock.monotonic, notify=notify)
    c.start()  # homing: a long move, waited on by the main thread
    assert "bermuda-steps" in threads
    assert "wait_for_clear_board" in callers  # homing waited for hands off the board
    threads.clear()
    table.run_until(lambda: c.status.last_spin is not None, limit=600)
    assert "MainThread" in threads and "bermuda-steps" in threads
    beats: list[str] = []

    def beat(message: str) -> bool:
        beats.append(message)
        return True

    c.watchdog = Watchdog({"WATCHDOG_USEC": "200000"}, monotonic=clock.monotonic, notify=beat)
    assert c.rig.camera is not None and c.rig.camera.heartbeat is not None
    c.rig.camera.heartbeat()  # a camera settling (at a reopen after a fault)
    assert beats == ["WATCHDOG=1"]


def test_a_move_the_journal_cannot_take_is_told_only_once_it_is_saved(
    make_table: MakeTable,
) -> None:
    """The disk is full when a move is taken: the table faults and says nothing of the move;
    once space is freed and spin pressed, the move is saved, then announced (once)."""
    table = make_table(seed=2)
    c = table.controller
    table.run_until(lambda: c.game.round == 2 and table.mode() is Mode.READY, limit=600)
    journal, full = table.journal, {"on": True}
    sync = journal.sync

    def full_disk(game_id: int, game: Any) -> None:
        if full["on"]:
            raise JournalWriteError(
                f"{journal.path}: cannot write the journal (database or "
                "disk is full): the disk holding it is full"
            )
        sync(game_id, game)

    journal.sync = full_disk
    saved = len(c.game.journal)  # ready for a move: everything so far is journalled
    table.run_until(lambda: table.mode() is Mode.FAULT, limit=400)
    assert "is full" in c.status.message
    unsaved = [str(e["move"]) for e in c.game.journal[saved:] if "move" in e]
    assert unsaved, "the fault came before a move was taken"
    told = "\n".join(table.log)
    assert not any(f"): {move}" in told for move in unsaved), (unsaved, table.log[-8:])
    full["on"] = False
    table.press()
    table.run_until(lambda: table.mode() is not Mode.FAULT, limit=50)
    told = "\n".join(table.log)
    for move in unsaved:
        assert told.count(f"): {move}") == 1, move
    _journal_matches(table)
