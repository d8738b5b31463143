"""Who may see the table and act on it, and how bad requests are answered and logged."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable

import pytest

from bermuda_hw.cli import main
from bermuda_hw.config import WebConfig
from bermuda_hw.controller.status import Mode
from bermuda_hw.web.pairing import TOKEN_FILE

from .conftest import Served

TABLE_READS = [
    "/api/status",
    "/api/game",
    "/api/state",
    "/api/danger",
    "/api/events?since=0",
    "/api/record",
    "/api/camera.jpg",
]


def ready(served: Served) -> None:
    """The table has homed and shows its game (the players are not at it: it waits)."""
    served.run_until(
        lambda: (
            served.table.mode() is Mode.SETUP
            and served.page.hub.latest is not None
            and served.page.hub.latest.record is not None
            and served.table.controller.camera_view is not None
        )
    )


def one_line_each(caplog: pytest.LogCaptureFixture) -> list[str]:
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("bermuda_hw.web")]
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)
    assert all("\n" not in line for line in lines)
    return lines


def raw_get(served: Served, head: str) -> bytes:
    """The reply's first bytes to a request written by hand (headers urllib would not send)."""
    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode("utf-8"))
        return sock.recv(65536)


def test_bad_sequence_numbers_are_a_400_with_one_log_line(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    served = serve(with_players=False)
    ready(served)
    caplog.set_level(logging.WARNING, logger="bermuda_hw.web")
    for since in ("%C2%B2", "9" * 5000, "-1", "1e3", "%EF%BC%91"):  # ², 5,000 digits, １
        reply = served.get(f"/api/events?since={since}")
        assert reply.status == 400, (since[:20], reply.body)
        assert reply.body["error"].startswith("since must be a journal sequence number")
        assert len(reply.body["error"]) < 200
    lines = one_line_each(caplog)
    assert len([line for line in lines if "400 GET /api/events" in line]) == 5
    # the event stream takes a bad Last-Event-ID as a new client's: the whole history
    for last in ("²", "9" * 5000):
        head = raw_get(
            served,
            f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Last-Event-ID: {last}\r\nX-Bermuda-Token: {served.page.token}"
            f"\r\n\r\n",
        )
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
    one_line_each(caplog)


def test_the_table_is_shown_only_to_paired_devices(serve: Callable[..., Served]) -> None:
    served = serve(with_players=False)
    ready(served)
    for path in [*TABLE_READS, "/api/stream"]:
        assert served.get(path, token=None).status == 401, path
        assert served.get(path, token="not-the-token").status == 403, path
    for path in TABLE_READS:
        assert served.get(path).status == 200, path
    # the page itself, the board and the pairing check stay open to all
    for path in ("/", "/static/app.js", "/api/board", "/api/board.svg", "/api/whoami"):
        assert served.get(path, token=None).status == 200, path


def test_a_public_view_shows_the_table_but_actions_still_need_the_token(
    serve: Callable[..., Served],
) -> None:
    served = serve(
        web=WebConfig(enabled=True, bind="127.0.0.1:0", public_view=True), with_players=False
    )
    ready(served)
    for path in TABLE_READS:
        assert served.get(path, token=None).status == 200, path
    assert served.get("/api/whoami", token=None).body == {"paired": False, "public": True}
    assert served.post("pause", token=None).status == 401
    assert not served.table.controller.status.paused
    # and a stranger's name for the table is refused even so
    assert served.get("/api/state", token=None, headers={"Host": "evil.example"}).status == 403


def test_actions_from_another_page_are_refused(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    served = serve(with_players=False)
    ready(served)
    caplog.set_level(logging.WARNING, logger="bermuda_hw.web")
    cookie = {"Cookie": f"bermuda_token={served.page.token}"}
    port = served.page.server.port
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": f"http://127.0.0.1:{port + 1}"},  # another service on the same machine
        {"Origin": "null"},
        {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-site"},
    ):
        reply = served.post("pause", token=None, headers={**cookie, **headers})
        assert reply.status == 403, (headers, reply.body)
        assert reply.body["error"].startswith("refused: a request from another")
    assert not served.table.controller.status.paused
    assert (
        len([line for line in one_line_each(caplog) if "403 POST /api/actions/pause" in line]) == 4
    )
    # the page's own requests: same Origin (and Sec-Fetch-Site) as its Host
    same = {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"}
    assert served.post("pause", token=None, headers={**cookie, **same}).status == 200
    assert served.table.controller.status.paused


def test_reads_by_a_strangers_name_are_refused(serve: Callable[..., Served]) -> None:
    served = serve(
        web=WebConfig(enabled=True, bind="127.0.0.1:0", hosts=("bermuda.lan",)), with_players=False
    )
    ready(served)
    port = served.page.server.port
    for host in (
        "evil.example",
        f"evil.example:{port}",
        "127.0.0.1.nip.io",
        "bermuda.lan.evil.example",
    ):
        reply = served.get("/api/state", headers={"Host": host})
        assert reply.status == 403 and "not known as" in reply.body["error"], host
    assert served.post("pause", headers={"Host": "evil.example"}).status == 403
    assert not served.table.controller.status.paused
    hostname = socket.gethostname()  # this machine's own name
    for host in (
        f"127.0.0.1:{port}",
        "localhost",
        f"[::1]:{port}",
        "192.168.1.20:8080",
        "bermuda.lan",
        f"BERMUDA.LAN:{port}",
        hostname,
    ):
        assert served.get("/api/state", headers={"Host": host}).status == 200, host
    # a camera read by a rebinding page, even with the phone's cookie
    cookie = f"bermuda_token={served.page.token}"
    assert (
        served.get(
            "/api/camera.jpg", token=None, headers={"Host": "evil.example", "Cookie": cookie}
        ).status
        == 403
    )


def test_a_fault_inside_a_read_is_a_500_and_one_line(
    serve: Callable[..., Served],
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    served = serve(with_players=False)
    ready(served)

    def unplugged() -> None:
        raise OSError(5, "Input/output error")  # the camera's USB cable pulled mid-read

    served.page.camera.view = unplugged
    caplog.set_level(logging.WARNING, logger="bermuda_hw.web")
    reply = served.get("/api/camera.jpg")
    assert reply.status == 500 and reply.body == {"error": "internal error: OSError"}
    deadline = time.monotonic() + 5.0  # logged by the server's thread once the reply is sent
    while (
        not any("GET /api/camera.jpg" in r.getMessage() for r in caplog.records)
        and time.monotonic() < deadline
    ):
        time.sleep(0.01)
    lines = [line for line in one_line_each(caplog) if "GET /api/camera.jpg" in line]
    assert len(lines) == 1 and "Input/output error" in lines[0]
    assert "(at test_web_access.py:" in lines[0]  # where it was raised
    assert "Traceback" not in capfd.readouterr().err


def test_malformed_requests_are_a_400_and_one_line(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    served = serve(with_players=False)
    ready(served)
    caplog.set_level(logging.WARNING, logger="bermuda_hw.web")
    for head in (
        "GET /\x01 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        # a head still incomplete at 20 kB (h11 stops at 16 kB)
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + "a" * 20_000,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
    ):
        assert raw_get(served, head).startswith(b"HTTP/1.1 400"), head[:40]
    # an action's body over the limit is refused before it is read
    token = served.page.token
    reply = raw_get(
        served,
        f"POST /api/actions/pause HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"X-Bermuda-Token: {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: 100000000\r\n\r\n{{}}",
    )
    assert reply.startswith(b"HTTP/1.1 413")
    assert not served.table.controller.status.paused
    lines = one_line_each(caplog)
    assert len([line for line in lines if "Invalid HTTP request" in line]) == 3
    assert len([line for line in lines if "413 POST /api/actions/pause" in line]) == 1


def test_game_show_without_the_token_says_why(
    serve: Callable[..., Served], capsys: pytest.CaptureFixture[str]
) -> None:
    served = serve(with_players=False)
    ready(served)
    state = served.table.state_dir
    (state / TOKEN_FILE).rename(state / "web-token.elsewhere")  # as another user sees it
    assert main(["game", "show", "--state-dir", str(state)]) != 0
    err = capsys.readouterr().err
    assert "web token cannot be read" in err and "Traceback" not in err
