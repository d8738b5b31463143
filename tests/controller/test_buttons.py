"""The spin button as the loop reads it, on gpiozero's mock pins (no table rendered): presses
made on another thread are counted, a long press forgets them, and a count is taken only
once the button has rested."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory, MockPin

from bermuda_hw.controller.buttons import (
    ANSWER_QUIET_S,
    HOLD_S,
    REACTION_S,
    PressGate,
    SpinButton,
)

PIN = 17


class Clock:
    """Time that passes only when the test says so."""

    def __init__(self) -> None:
        self.t = 100.0

    def monotonic(self) -> float:
        return self.t


@pytest.fixture
def wired() -> Iterator[tuple[SpinButton, Button, MockPin, Clock]]:
    factory = MockFactory()
    clock = Clock()
    spin = SpinButton(clock)  # type: ignore[arg-type]
    button = Button(PIN, pin_factory=factory)
    try:
        spin.wire(button)
        pin = factory.pin(PIN)
        assert isinstance(pin, MockPin)
        yield spin, button, pin, clock
    finally:
        button.close()
        factory.reset()
        factory.close()


def _press(pin: MockPin, times: int = 1) -> None:
    for _ in range(times):
        pin.drive_low()  # pulled up: low is pressed
        pin.drive_high()


def _on_another_thread(pin: MockPin, times: int) -> None:
    worker = threading.Thread(target=_press, args=(pin, times), name="gpio-events")
    worker.start()
    worker.join(5.0)
    assert not worker.is_alive()


def test_presses_made_on_another_thread_are_counted(
    wired: tuple[SpinButton, Button, MockPin, Clock],
) -> None:
    spin, _, pin, clock = wired
    _on_another_thread(pin, 3)
    assert spin.pressed
    clock.t += ANSWER_QUIET_S
    assert spin.counted() == 3
    assert spin.counted() is None  # taken once
    assert not spin.pressed


def test_a_press_from_the_page_is_acted_on_but_never_counted(
    wired: tuple[SpinButton, Button, MockPin, Clock],
) -> None:
    spin, _, _, clock = wired
    spin.press()
    assert spin.pressed
    clock.t += ANSWER_QUIET_S
    assert spin.counted() is None
    spin.press()
    assert spin.take_press()
    assert not spin.take_press()  # once


def test_a_long_press_forgets_the_presses_counted(
    wired: tuple[SpinButton, Button, MockPin, Clock],
) -> None:
    spin, button, pin, clock = wired
    assert button.hold_time == HOLD_S
    button.hold_time = 0.05  # gpiozero times the hold on its own thread, in real time
    _on_another_thread(pin, 2)
    pin.drive_low()  # and held down
    deadline = time.monotonic() + 5.0
    while not spin.take_hold():
        assert time.monotonic() < deadline, "the long press was not seen"
        time.sleep(0.01)
    pin.drive_high()
    assert not spin.take_hold()  # once
    assert not spin.pressed
    clock.t += ANSWER_QUIET_S
    assert spin.counted() is None  # neither the two presses nor the long one


def test_a_count_is_taken_only_once_the_button_rested(
    wired: tuple[SpinButton, Button, MockPin, Clock],
) -> None:
    spin, _, pin, clock = wired
    _press(pin)
    clock.t += ANSWER_QUIET_S * 0.75
    assert spin.counted() is None  # still pressing, perhaps
    _press(pin)  # the rest starts again from this press
    clock.t += ANSWER_QUIET_S * 0.75
    assert spin.counted() is None
    clock.t += ANSWER_QUIET_S * 0.25
    assert spin.counted() == 2  # both presses, counted together
    _press(pin, 4)
    clock.t += ANSWER_QUIET_S
    assert spin.counted() == 4  # counted from the last count on


def test_a_press_is_stamped_from_the_button_and_from_the_page(
    wired: tuple[SpinButton, Button, MockPin, Clock],
) -> None:
    spin, _button, pin, clock = wired
    _press(pin)
    assert spin.pressed_s == clock.t
    clock.t += 3.0
    spin.press()
    assert spin.pressed_s == clock.t


READY, ASK = ("ready", 4, False, False), ("ask", 4, False, False)


def test_a_press_soon_after_the_table_stopped_asking_for_a_confirmation_is_dropped() -> None:
    """A press within REACTION_S of the last frame in which a press confirmed something was
    made for that: dropped, and so is the rest of its burst; one after it is taken."""
    gate = PressGate()
    gate.watch(True, 10.0)  # the last frame of a question
    gate.watch(False, 10.1)
    first = 10.1 + REACTION_S / 2
    assert not gate.taken(READY, READY, False, first)
    # the rest of a burst of presses (an answer's), within ANSWER_QUIET_S of the first
    assert not gate.taken(READY, READY, False, first + 0.4)
    assert not gate.taken(READY, READY, False, first + ANSWER_QUIET_S - 0.1)
    assert gate.taken(READY, READY, False, first + ANSWER_QUIET_S + 0.1)


def test_a_press_while_the_table_asks_for_a_confirmation_is_taken() -> None:
    gate = PressGate()
    gate.watch(True, 10.0)
    assert gate.taken(ASK, ASK, True, 10.05)


def test_a_press_in_the_frame_that_changes_its_meaning_is_dropped() -> None:
    gate = PressGate()
    assert gate.taken(READY, READY, False, 50.0)
    assert not gate.taken(READY, ("ready", 5, False, False), False, 60.0)
    assert gate.taken(READY, READY, False, 60.0 + ANSWER_QUIET_S)


def test_a_press_right_after_an_answer_is_a_new_one() -> None:
    """A question answered (by presses, or on the page) ends the state by the table's word:
    the next press, however soon, is taken for what the table asks now."""
    gate = PressGate()
    gate.watch(True, 10.0)
    gate.used()
    gate.watch(False, 10.1)
    assert gate.taken(READY, READY, False, 10.2)


def test_a_person_pressing_again_and_again_is_never_locked_out() -> None:
    """Presses 1.5 s apart after one dropped: those within ANSWER_QUIET_S of it are its
    burst; the next is taken (the window is not renewed by the presses it drops)."""
    gate = PressGate()
    assert not gate.taken(READY, ("ready", 5, False, False), False, 20.0)
    times = [20.0 + 1.5 * k for k in range(1, 4)]
    taken = [gate.taken(READY, READY, False, t) for t in times]
    assert taken == [False, True, True]
