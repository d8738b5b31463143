"""The page's write token and the running daemon's address file, both in the state directory.

The token is made at the daemon's first start (`web-token`, mode 0600) and
never leaves the machine except through `bermuda-hw token` (its text and a
QR code of the pairing URL). `daemon.json` holds the running daemon's pid and
URL: written at start, removed at exit; `bermuda-hw game` uses it to reach the
daemon, after checking that the pid is alive.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bermuda_hw.errors import StateError

TOKEN_FILE = "web-token"
DAEMON_FILE = "daemon.json"
TOKEN_BYTES = 24


def token_path(state_dir: Path) -> Path:
    return state_dir / TOKEN_FILE


def read_token(state_dir: Path) -> str | None:
    """The token, or None if the daemon has not made one yet."""
    path = token_path(state_dir)
    try:
        text = path.read_text("ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StateError(f"{path}: cannot read the web token: {exc}") from exc
    if not text:
        raise StateError(f"{path}: the web token is empty; delete the file and restart")
    return text


def ensure_token(state_dir: Path) -> str:
    """The token, made (readable by the owner only) if there is none yet."""
    existing = read_token(state_dir)
    if existing is not None:
        with contextlib.suppress(OSError):
            os.chmod(token_path(state_dir), 0o600)
        return existing
    token = secrets.token_urlsafe(TOKEN_BYTES)
    path = token_path(state_dir)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return ensure_token(state_dir)
    except OSError as exc:
        raise StateError(f"{path}: cannot create the web token: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(token + "\n")
    return token


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison of a presented token with the real one."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("ascii"))


def pairing_url(url: str, token: str) -> str:
    """The URL a phone opens (or scans) to pair: it sets the token cookie."""
    return f"{url.rstrip('/')}/pair?token={quote(token, safe='')}"


def write_daemon_file(state_dir: Path, url: str, page_url: str | None = None) -> Path:
    """`url` is for this machine's commands; `page_url` as phones reach the page."""
    path = state_dir / DAEMON_FILE
    tmp = path.with_suffix(".tmp")
    data = {"pid": os.getpid(), "url": url, "page_url": page_url or url}
    tmp.write_text(json.dumps(data) + "\n", "utf-8")
    os.replace(tmp, path)
    return path


def remove_daemon_file(state_dir: Path) -> None:
    path = state_dir / DAEMON_FILE
    with contextlib.suppress(OSError):
        data = json.loads(path.read_text("utf-8"))
        if data.get("pid") == os.getpid():
            path.unlink()


def running_daemon(state_dir: Path) -> dict[str, Any] | None:
    """The running daemon's {"pid", "url", "page_url"}, or None (a stale file is ignored)."""
    path = state_dir / DAEMON_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
        pid = int(data["pid"])
        url = str(data["url"])
        page_url = str(data.get("page_url") or url)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, owned by another user (the service)
    return {"pid": pid, "url": url, "page_url": page_url}
