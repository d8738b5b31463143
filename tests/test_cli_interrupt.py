"""Ctrl-C during `run` is a stop request, never an exception raised mid-transfer."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

import pytest

from bermuda_hw.cli import main
from bermuda_hw.cli.run import StopOnInterrupt


def test_ctrl_c_requests_a_stop_and_a_second_press_is_ignored() -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    stops: list[str] = []
    try:
        early = threading.Event()
        interrupt = StopOnInterrupt(early)
        os.kill(os.getpid(), signal.SIGINT)  # before the controller exists: remembered
        assert interrupt.pressed and early.is_set()
        interrupt.stop = lambda: stops.append("stop")
        os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt: ignored while winding down
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        interrupt.restore()  # pressed: presses stay ignored
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert stops == []
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_controllers_stop_is_called_and_an_unpressed_handler_is_given_back() -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupt = StopOnInterrupt(threading.Event())
        stops: list[str] = []
        interrupt.stop = lambda: stops.append("stop")
        os.kill(os.getpid(), signal.SIGINT)
        assert stops == ["stop"]
        signal.signal(signal.SIGINT, signal.default_int_handler)
        quiet = StopOnInterrupt(threading.Event())
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        quiet.restore()  # never pressed: the caller's handler is back
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_press_as_the_program_ends_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the program (no argv given), a command that has finished leaves Ctrl-C ignored
    until the process exits: a press as a game ends by its round limit must not kill the
    interpreter on its way out (an exit by SIGINT, not 0 or 130). Called in-process with
    argv, the caller gets its handler back."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        monkeypatch.setattr(sys, "argv", ["bermuda-hw", "--version"])
        with contextlib.suppress(SystemExit):
            main()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)  # ignored: no KeyboardInterrupt
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with contextlib.suppress(SystemExit):
            main(["--version"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
