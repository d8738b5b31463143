"""`bermuda-hw token`: print the page's token and a QR code of the pairing URL."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

from bermuda_hw.cli.run import state_dir_default
from bermuda_hw.controller.statedir import check_path
from bermuda_hw.errors import StateError
from bermuda_hw.web.pairing import pairing_url, read_token, running_daemon

DEFAULT_PORT = 8080


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "token",
        help="print the page's token and a QR code to pair a phone",
        description="Print the write token of the table's page and a QR code of the pairing "
        "URL: a phone that scans it can act (spin, undo, new game); without it "
        "the page shows nothing, or the game read-only where `[web] public_view` is on. "
        "The daemon makes the token at its first start.",
    )
    parser.add_argument(
        "--state-dir", type=Path, default=None, metavar="DIR", help="the daemon's state directory"
    )
    parser.add_argument(
        "--url",
        default=None,
        help="the page's URL as phones reach it (default: the running daemon's page)",
    )
    parser.add_argument("--no-qr", action="store_true", help="print no QR code")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    state_dir = check_path(args.state_dir or state_dir_default())
    token = read_token(state_dir)
    if token is None:
        raise StateError(
            f"{state_dir / 'web-token'}: no token yet (start the daemon once: it makes one)"
        )
    url = args.url
    if url is None:
        daemon = running_daemon(state_dir)
        url = (
            (daemon.get("page_url") or daemon["url"])
            if daemon is not None
            else f"http://{socket.gethostname()}:{DEFAULT_PORT}/"
        )
    link = pairing_url(url, token)
    print(f"token: {token}")
    print(f"pairing URL: {link}")
    if not args.no_qr:
        import segno

        segno.make(link, error="m").terminal(out=sys.stdout, compact=True)
    return 0
