"""The page's JSON API on a served simulated table: reads, pairing, refusals, SSE resume, camera."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
from collections.abc import Callable

import cv2
import numpy as np
import pytest
from table_helpers import set_out

from bermuda_hw.cli import main
from bermuda_hw.controller.snapshot import game_json
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.boardfile import board_to_json
from bermuda_hw.rules.game import Phase
from bermuda_hw.rules.record import replay, to_dict
from bermuda_hw.web.pairing import DAEMON_FILE, TOKEN_FILE, running_daemon

from .conftest import Reply, Served, http


def ready(served: Served) -> None:
    served.run_until(lambda: served.table.mode() is Mode.READY)


def moved(served: Served) -> None:
    ready(served)
    seq = served.table.controller.status.seq
    served.run_until(
        lambda: served.table.controller.status.seq > seq and served.table.mode() is Mode.READY
    )


def test_reads_match_the_controller(serve: Callable[..., Served]) -> None:
    served = serve()
    moved(served)
    controller = served.table.controller
    assert controller.game is not None
    assert served.get("/api/game").body == json.loads(
        json.dumps(game_json(controller.game_id, controller.game))
    )
    status = served.get("/api/status").body
    assert status["mode"] == "ready" and status["seq"] == controller.status.seq
    assert (
        served.get("/api/board").body["spaces"]
        == json.loads(json.dumps(board_to_json(served.table.board)))["spaces"]
    )
    events = served.get("/api/events?since=0").body
    assert len(events["events"]) == controller.status.seq
    later = served.get(f"/api/events?since={controller.status.seq - 1}").body["events"]
    assert [e["seq"] for e in later] == [controller.status.seq]
    record = served.get("/api/record").body
    assert to_dict(replay(record, served.table.board)) == to_dict(controller.game)
    svg = served.get("/api/board.svg").body.decode()
    assert all(f'id="place-{sid}"' in svg for sid in served.table.board.spaces)


def test_writes_need_the_token_and_bad_requests_change_nothing(
    serve: Callable[..., Served],
) -> None:
    served = serve()
    moved(served)
    journal = served.table.journal
    before = journal.stored(served.table.controller.game_id).log
    refused = [
        (served.post("undo", token=None), 401),
        (served.post("undo", token="not-the-token"), 403),
        (served.post("fly"), 400),
        (served.post("undo", raw=b"{oops"), 400),
        (served.post("undo", raw=b"[1, 2]"), 400),
        (served.post("undo", raw=b"{}", headers={"Content-Type": "text/plain"}), 415),
        (served.post("new-game", {"players": 9}), 400),
    ]
    for reply, status in refused:
        assert reply.status == status, reply.body
        message = reply.body["error"]
        assert "\n" not in message and "Traceback" not in message and message
    assert served.get("/api/actions/undo").status == 405  # no write by GET
    after = journal.stored(served.table.controller.game_id).log
    # the players played on meanwhile; nothing was taken back or added by the refusals
    assert after[: len(before)] == before and not any("undo" in e for e in after)
    moved(served)
    assert served.post("undo").status == 200
    assert "undo" in journal.stored(served.table.controller.game_id).log[-1]


def test_a_spin_in_the_ship_phase_is_refused_and_changes_nothing(
    serve: Callable[..., Served],
) -> None:
    """A player is to move (nobody at this table moves, so the phase cannot end while the
    request is carried out): the press of spin is refused, and the game stays as it was."""
    served = serve(with_players=False)
    set_out(served.table)
    ready(served)
    game = served.table.controller.game
    assert game is not None and game.phase is Phase.SHIPS
    seq = served.table.controller.status.seq
    reply = served.post("spin")
    assert reply.status == 409, reply.body
    assert "spin only when the table is asked to press spin" in reply.body["error"]
    assert served.table.controller.status.seq == seq and game.phase is Phase.SHIPS


def test_pairing_sets_an_httponly_samesite_cookie(serve: Callable[..., Served]) -> None:
    served = serve(with_players=False)
    token_file = served.table.state_dir / TOKEN_FILE
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert served.get("/pair?token=wrong").status == 403
    reply = served.get(f"/pair?token={served.page.token}")
    assert reply.status == 303
    cookie = reply.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    value = cookie.split(";")[0]
    assert served.get("/api/whoami", token=None, headers={"Cookie": value}).body == {
        "paired": True,
        "public": False,
    }
    assert served.get("/api/whoami", token=None).body == {"paired": False, "public": False}
    paused = served.post("pause", token=None, headers={"Cookie": value})
    assert paused.status == 200 and served.table.controller.status.paused


def test_daemon_file_names_a_live_pid_and_goes_at_stop(serve: Callable[..., Served]) -> None:
    served = serve(with_players=False)
    state_dir = served.table.state_dir
    daemon = running_daemon(state_dir)
    assert daemon is not None and daemon["pid"] == os.getpid()
    assert daemon["url"].rstrip("/") == served.url
    served.page.stop()
    assert not (state_dir / DAEMON_FILE).exists()
    (state_dir / DAEMON_FILE).write_text(json.dumps({"pid": 2**22 + 12345, "url": "x"}))
    assert running_daemon(state_dir) is None  # a stale file from a crash


def test_event_stream_resumes_from_last_event_id(serve: Callable[..., Served]) -> None:
    served = serve()
    moved(served)
    seq = served.table.controller.status.seq
    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"GET /api/stream HTTP/1.1\r\nHost: {host}\r\nLast-Event-ID: {seq - 1}\r\n"
            f"X-Bermuda-Token: {served.page.token}\r\n\r\n".encode()
        )
        data = b""
        while data.count(b"event: state") < 1:
            data += sock.recv(65536)
    text = data.decode()
    history = json.loads(text.split("event: history")[1].split("data: ")[1].split("\n")[0])
    assert not history["reset"]
    assert [e["seq"] for e in history["events"]] == [seq]
    assert f"id: {seq}" in text


def test_camera_frames_are_encoded_only_when_asked(serve: Callable[..., Served]) -> None:
    served = serve()
    ready(served)
    assert served.page.camera.encoded == 0
    reply = served.get("/api/camera.jpg")
    assert reply.status == 200 and reply.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(reply.body, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[1] <= 640
    assert served.page.camera.encoded == 1


def test_game_commands_reach_the_running_daemon(
    serve: Callable[..., Served], capsys: pytest.CaptureFixture[str]
) -> None:
    served = serve()
    moved(served)
    state = str(served.table.state_dir)
    assert main(["game", "show", "--json", "--state-dir", state]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == served.get("/api/game").body
    controller = served.table.controller
    before = controller.status.seq
    codes: list[int] = []
    cli = threading.Thread(
        target=lambda: codes.append(main(["game", "undo", "--state-dir", state]))
    )
    cli.start()
    while cli.is_alive():  # the daemon's loop runs the queued undo
        controller.step()
        cli.join(0.01)
    assert codes == [0] and "undone" in capsys.readouterr().out
    assert controller.status.seq == before - 2
    assert main(["token", "--state-dir", state, "--no-qr"]) == 0
    assert f"pair?token={served.page.token}" in capsys.readouterr().out


def test_while_the_cloud_moves_an_action_waits_and_an_unknown_one_is_named(
    serve: Callable[..., Served],
) -> None:
    """While the cloud moves the controller takes no action: each is refused with what
    to wait for (the page greys its buttons meanwhile). A name that is no action is said
    to be unknown, busy or not."""
    served = serve(with_players=False)
    set_out(served.table)
    ready(served)
    controller = served.table.controller
    controller.status.mode = Mode.MOVING
    controller.publish()
    headers = {"Content-Type": "application/json", "X-Bermuda-Token": served.page.token}

    def post(action: str) -> Reply:  # (the controller is not stepped: it is "moving")
        url = f"{served.url}/api/actions/{action}"
        return http(url, method="POST", body=b"{}", headers=headers)

    busy = post("pause")
    assert busy.status == 409 and "not now, the cloud is moving" in busy.body["error"]
    unknown = post("fly")
    assert unknown.status == 400
    assert "unknown action 'fly'" in unknown.body["error"] and "pause" in unknown.body["error"]
    assert controller.status.paused is False
