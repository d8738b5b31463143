"""The person at the rig during a check: asked to press switches and to confirm what they see."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol, TextIO

Reading = Callable[[], bool]


class Owner(Protocol):
    """Whoever acts on the rig when a check asks: the owner at a terminal, or a script."""

    def press(self, key: str, text: str, is_pressed: Reading) -> None:
        """Ask for a switch (`key`: "endstop x", "endstop y", "estop", "button") to be pressed."""
        ...

    def release(self, key: str, text: str, is_pressed: Reading) -> None:
        """Ask for it to be released again."""
        ...

    def confirm(self, key: str, question: str) -> bool | None:
        """A yes/no question about what the owner sees or hears; None: no answer."""
        ...

    def choose(self, key: str, question: str, options: str) -> str | None:
        """One character of `options` (a letter at the notch, say); None: no answer."""
        ...


class TerminalOwner:
    """The owner at a terminal: instructions are printed, answers are typed."""

    def __init__(self, out: TextIO | None = None, answers: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.answers = answers or sys.stdin

    def _say(self, text: str) -> None:
        print(f"  -> {text}", file=self.out, flush=True)

    def press(self, key: str, text: str, is_pressed: Reading) -> None:
        self._say(text)

    def release(self, key: str, text: str, is_pressed: Reading) -> None:
        self._say(text)

    def _ask(self, question: str) -> str | None:
        print(f"  ?? {question} ", end="", file=self.out, flush=True)
        if not self.answers.isatty():
            line = self.answers.readline()
            if not line:
                print("(no answer)", file=self.out)
                return None
            return line.strip()
        try:
            return input().strip()
        except EOFError:
            return None

    def confirm(self, key: str, question: str) -> bool | None:
        answer = self._ask(f"{question} [y/n]")
        if not answer:
            return None
        return answer.lower().startswith("y")

    def choose(self, key: str, question: str, options: str) -> str | None:
        answer = self._ask(f"{question} [{options}]")
        if not answer:
            return None
        return answer[0].upper()
