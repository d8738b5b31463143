"""systemd's readiness protocol (sd_notify) over the `NOTIFY_SOCKET` datagram socket."""

from __future__ import annotations

import os
import socket


def sd_notify(message: str) -> bool:
    """Send `READY=1`, `STATUS=...`, `STOPPING=1`... to systemd; False when not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError:
        return False
    return True
