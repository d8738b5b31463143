"""Actions from outside the step thread (the page, `bermuda-hw game`), queued for the controller.

Any thread may `submit` an action; the controller's own loop runs the queued
actions at the top of each `step()`, so nothing but the step thread ever
touches the game, the devices or the journal. Each submission returns a
`concurrent.futures.Future` that resolves to a one-line reply, or fails with
`ActionRefused` (a one-line reason) when the action is unknown, malformed or
not allowed now.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from bermuda_hw.errors import BermudaError

ACTIONS = (
    "spin",
    "pass",
    "undo",
    "new-game",
    "pause",
    "resume",
    "rehome",
    "answer",
    "hints",
    "die",
)


class ActionRefused(BermudaError, ValueError):
    """An action that is unknown, malformed or not allowed now; nothing changed."""

    def __init__(self, message: str, *, status: int = 409) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status a web client gets


@dataclass
class Command:
    """One queued action, its arguments and the reply to fill in."""

    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
    reply: Future[str] = field(default_factory=Future)


class CommandQueue:
    """A thread-safe queue of actions for the controller's loop."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Command] = queue.SimpleQueue()

    def submit(self, action: str, args: Mapping[str, Any] | None = None) -> Future[str]:
        """Queue an action; its future resolves once the controller has run it."""
        if action not in ACTIONS:
            raise ActionRefused(
                f"unknown action {action!r} (known: {', '.join(ACTIONS)})", status=400
            )
        command = Command(action, dict(args or {}))
        self._queue.put(command)
        return command.reply

    def run_pending(self, handle: Callable[[Command], str]) -> int:
        """Run every queued action with `handle` (on the controller's thread); how many ran."""
        ran = 0
        while True:
            try:
                command = self._queue.get_nowait()
            except queue.Empty:
                return ran
            ran += 1
            if not command.reply.set_running_or_notify_cancel():
                continue
            try:
                command.reply.set_result(handle(command))
            except ActionRefused as exc:
                command.reply.set_exception(exc)
            except BermudaError as exc:
                command.reply.set_exception(ActionRefused(str(exc)))

    def refuse_all(self, reason: str) -> None:
        """Refuse whatever is still queued (the controller is stopping)."""

        def refuse(_: Command) -> str:
            raise ActionRefused(reason, status=503)

        self.run_pending(refuse)
