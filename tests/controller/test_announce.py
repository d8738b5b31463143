"""What the table is told, without a table: a board to fix said once per state of the game
(again only after REPEAT_S), and a camera that has not seen the board told once."""

from __future__ import annotations

from types import SimpleNamespace

from bermuda_hw.controller.announce import NO_BOARD_S, REPEAT_S, Announcer
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.boardfile import load_board

BOARD = load_board()
FIX = "put the red ship back in A3"


class Clock:
    """Time that passes only when the test says so."""

    def __init__(self) -> None:
        self.t = 50.0

    def monotonic(self) -> float:
        return self.t


def _announcer() -> tuple[Announcer, Clock, list[str]]:
    clock, said = Clock(), []
    announcer = Announcer(clock, BOARD)  # type: ignore[arg-type]
    announcer.listeners.append(said.append)
    return announcer, clock, said


def test_a_fix_is_said_once_per_state_of_the_game() -> None:
    announcer, clock, _ = _announcer()
    for mode in (Mode.FIX, Mode.SETUP, Mode.READY):
        assert announcer.worth_saying(1, mode, f"{mode}: {FIX}")
        clock.t += 1.0
        assert not announcer.worth_saying(1, mode, f"{mode}: {FIX}")  # the board flickers
    assert announcer.worth_saying(2, Mode.FIX, f"{Mode.FIX}: {FIX}")  # the game moved on
    assert announcer.worth_saying(1, Mode.FIX, "another fix")  # the message changed


def test_a_fix_is_said_again_only_after_the_repeat_time() -> None:
    announcer, clock, _ = _announcer()
    assert announcer.worth_saying(3, Mode.FIX, FIX)
    clock.t += REPEAT_S - 0.5
    assert not announcer.worth_saying(3, Mode.FIX, FIX)
    clock.t += 0.5
    assert announcer.worth_saying(3, Mode.FIX, FIX)  # REPEAT_S after it was said
    clock.t += REPEAT_S - 0.5
    assert not announcer.worth_saying(3, Mode.FIX, FIX)  # counted from the repeat


def test_other_modes_are_always_worth_saying() -> None:
    announcer, _, _ = _announcer()
    for _ in range(2):
        assert announcer.worth_saying(1, Mode.FAULT, "the e-stop is engaged")
        assert announcer.worth_saying(1, Mode.MOVING, "spinning")


def _no_board(*markers: int) -> SimpleNamespace:
    return SimpleNamespace(board_found=False, markers_seen=markers)


def test_a_camera_that_has_not_seen_the_board_is_told_once() -> None:
    announcer, clock, said = _announcer()
    corners = [m.id for m in BOARD.markers.corners]
    announcer.watch_board(_no_board(corners[0], 999))
    clock.t += NO_BOARD_S - 0.1
    announcer.watch_board(_no_board(corners[0], 999))
    assert said == []  # not yet NO_BOARD_S
    clock.t += 0.1
    announcer.watch_board(_no_board(corners[0], 999))
    assert len(said) == 1
    assert said[0].startswith(f"the camera has not seen the board for {NO_BOARD_S:g} s")
    assert f"it sees {corners[0]}." in said[0]  # the corner markers seen, no others
    for _ in range(3):
        clock.t += NO_BOARD_S
        announcer.watch_board(_no_board())
    assert len(said) == 1  # once


def test_the_board_seen_again_starts_the_wait_afresh() -> None:
    announcer, clock, said = _announcer()
    announcer.watch_board(_no_board())
    clock.t += NO_BOARD_S
    announcer.watch_board(_no_board())
    assert len(said) == 1 and "it sees none." in said[0]
    announcer.watch_board(SimpleNamespace(board_found=True, markers_seen=()))
    announcer.watch_board(_no_board())
    clock.t += NO_BOARD_S - 0.1
    announcer.watch_board(_no_board())
    assert len(said) == 1
    clock.t += 0.1
    announcer.watch_board(_no_board())
    assert len(said) == 2  # told again after another NO_BOARD_S without it
