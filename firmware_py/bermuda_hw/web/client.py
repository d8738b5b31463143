"""A small client of the page's JSON API, for `bermuda-hw game` while the daemon runs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bermuda_hw.errors import StateError
from bermuda_hw.web.pairing import read_token, running_daemon

TIMEOUT_S = 15.0
NO_TOKEN = (
    "the daemon runs, but its web token cannot be read (run as the service's user, or with sudo)"
)


class DaemonClient:
    """Reads and actions against a running daemon's API."""

    def __init__(self, url: str, token: str | None) -> None:
        self.url = url.rstrip("/")
        self.token = token

    @classmethod
    def find(cls, state_dir: Path) -> DaemonClient | None:
        """The running daemon of a state directory, or None if none runs."""
        daemon = running_daemon(state_dir)
        if daemon is None:
            return None
        try:
            token = read_token(state_dir)
        except StateError:
            token = None
        return cls(daemon["url"], token)

    def _call(self, request: urllib.request.Request) -> Any:
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            if exc.code == 401 and self.token is None:
                raise StateError(NO_TOKEN) from None
            try:
                reason = json.loads(exc.read()).get("error", exc.reason)
            except (ValueError, AttributeError):
                reason = exc.reason
            raise StateError(f"the running daemon ({self.url}) refused: {reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            why = getattr(exc, "reason", exc)
            raise StateError(f"the running daemon ({self.url}) does not answer: {why}") from None

    def get(self, path: str) -> Any:
        """A read; the table's state needs the token unless the owner made it public."""
        headers = {} if self.token is None else {"X-Bermuda-Token": self.token}
        return self._call(urllib.request.Request(self.url + path, headers=headers))

    def act(self, action: str, args: dict[str, Any] | None = None) -> str:
        """Run an action; the daemon's one-line reply."""
        if self.token is None:
            raise StateError(NO_TOKEN)
        request = urllib.request.Request(
            f"{self.url}/api/actions/{action}",
            data=json.dumps(args or {}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-Bermuda-Token": self.token},
        )
        reply = self._call(request)
        return str(reply.get("message", ""))
