"""The table's page and its JSON API, as a Starlette application.

Reads come from the hub's latest snapshot; writes are queued for the
controller's step thread and need the token (header `X-Bermuda-Token`, or the
HttpOnly SameSite cookie the pairing URL sets). No write is ever done by a
GET. Bad requests get a 4xx with a one-line reason in `{"error": ...}` and
change nothing; no traceback ever reaches a client.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Future
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import board_to_json
from bermuda_hw.web.camera import CameraEncoder, fix_places
from bermuda_hw.web.hub import Hub
from bermuda_hw.web.pairing import token_matches
from bermuda_hw.web.svg import board_svg

log = logging.getLogger("bermuda_hw.web")

COOKIE = "bermuda_token"
HEADER = "x-bermuda-token"
ACTION_TIMEOUT_S = 10.0
KEEPALIVE_S = 15.0
MAX_BODY_BYTES = 16_384
BUSY = {"starting": "the rig is homing", "moving": "the cloud is moving"}
STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self' 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

Submit = Callable[[str, Mapping[str, Any]], "Future[str]"]


def _static(name: str) -> bytes:
    return (resources.files("bermuda_hw.web") / "static" / name).read_bytes()


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(*, hub: Hub, board: Board, token: str, submit: Submit,
               camera: CameraEncoder | None = None) -> Starlette:
    """The page and its API over a hub (reads) and a submit function (queued writes)."""
    svg = board_svg(board)
    board_doc = board_to_json(board)
    board_doc["land"] = [[list(p) for p in polygon] for polygon in board.land]

    def paired(request: Request) -> bool:
        given = request.headers.get(HEADER) or request.cookies.get(COOKIE)
        return token_matches(given, token)

    async def index(request: Request) -> Response:
        return Response(_static("index.html"), media_type=STATIC["index.html"],
                        headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return error(404, f"no such file: {name}")
        return Response(_static(name), media_type=STATIC[name],
                        headers={"Cache-Control": "no-cache"})

    async def pair(request: Request) -> Response:
        given = request.query_params.get("token")
        if not token_matches(given, token):
            return PlainTextResponse("wrong or missing token: scan the QR code that "
                                     "`bermuda-hw token` prints\n", status_code=403)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, max_age=400 * 24 * 3600, httponly=True,
                            samesite="strict", path="/")
        return response

    async def whoami(request: Request) -> Response:
        return JSONResponse({"paired": paired(request)})

    def latest_state() -> dict[str, Any]:
        state = hub.state()
        if state is None:
            raise HTTPException(503, "the controller is starting")
        return state

    async def status(request: Request) -> Response:
        return JSONResponse(latest_state()["status"])

    async def game(request: Request) -> Response:
        data = latest_state()["game"]
        if data is None:
            return error(404, "no current game")
        return JSONResponse(data)

    async def state(request: Request) -> Response:
        return JSONResponse(latest_state())

    async def danger(request: Request) -> Response:
        return JSONResponse(latest_state()["danger"])

    async def events(request: Request) -> Response:
        raw = request.query_params.get("since", "0")
        if not raw.isdigit():
            return error(400, f"since must be a journal sequence number (0 or more), not {raw!r}")
        current = latest_state()
        return JSONResponse({"game_id": current["game_id"], "seq": current["seq"],
                             "events": hub.history.since(int(raw))})

    async def record(request: Request) -> Response:
        snapshot = hub.latest
        if snapshot is None or snapshot.record is None:
            return error(404, "no current game")
        return Response(json.dumps(snapshot.record, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="bermuda-game-'
                                                        f'{snapshot.game_id}.json"'})

    async def board_json(request: Request) -> Response:
        return JSONResponse(board_doc)

    async def board_image(request: Request) -> Response:
        return Response(svg, media_type="image/svg+xml")

    async def stream(request: Request) -> Response:
        last = request.headers.get("last-event-id") or request.query_params.get("since", "")
        since = int(last) if last.isdigit() else None
        return StreamingResponse(_sse(request, since), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    async def _sse(request: Request, since: int | None) -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        sent_version = -1
        client_seq = since
        client_game: int | None = None
        while not hub.closing:
            current = hub.state()
            if current is not None and current["version"] != sent_version:
                sent_version = current["version"]
                seq = int(current["seq"])
                reset = (client_seq is None or client_seq > seq
                         or (client_game is not None and client_game != current["game_id"]))
                if reset or (client_seq is not None and seq > client_seq):
                    start = 0 if reset else int(client_seq or 0)
                    history = {"game_id": current["game_id"], "reset": reset,
                               "events": hub.history.since(start)}
                    yield f"event: history\nid: {seq}\ndata: {json.dumps(history)}\n\n"
                client_seq, client_game = seq, int(current["game_id"])
                yield f"event: state\nid: {seq}\ndata: {json.dumps(current)}\n\n"
            if await request.is_disconnected():
                return
            await hub.wait(sent_version, KEEPALIVE_S)
            latest = hub.latest
            if latest is None or latest.version == sent_version:
                yield ": keep-alive\n\n"

    async def camera_jpeg(request: Request) -> Response:
        if camera is None:
            return error(404, "no camera")
        data = await asyncio.to_thread(camera.jpeg, fix_places(_status_or_none()))
        if data is None:
            return error(503, "no camera frame yet")
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    def _status_or_none() -> Mapping[str, Any] | None:
        current = hub.state()
        return None if current is None else current["status"]

    async def camera_mjpeg(request: Request) -> Response:
        if camera is None:
            return error(404, "no camera")
        encoder = camera

        async def frames() -> AsyncIterator[bytes]:
            while not hub.closing and not await request.is_disconnected():
                current = hub.latest
                if current is not None and current.status.get("mode") == "moving":
                    # the step thread is driving the motors: hold the frames until it is done
                    await hub.wait(current.version, 1.0)
                    continue
                data = await asyncio.to_thread(encoder.jpeg, fix_places(_status_or_none()))
                if data is not None:
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                           + str(len(data)).encode() + b"\r\n\r\n" + data + b"\r\n")
                await asyncio.sleep(1.0 / encoder.max_fps)

        return StreamingResponse(frames(),
                                 media_type="multipart/x-mixed-replace; boundary=frame",
                                 headers={"Cache-Control": "no-store"})

    async def action(request: Request) -> Response:
        name = request.path_params["action"]
        if not paired(request):
            given = request.headers.get(HEADER) or request.cookies.get(COOKIE)
            if given:
                return error(403, "wrong token: pair this device again with the QR code "
                                  "from `bermuda-hw token`")
            return error(401, "this device is not paired: open the pairing URL from "
                              "`bermuda-hw token` (or send the X-Bermuda-Token header)")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return error(413, f"request body over {MAX_BODY_BYTES} bytes")
        args: Any = {}
        if body.strip():
            kind = request.headers.get("content-type", "").split(";")[0].strip()
            if kind != "application/json":
                return error(415, "send the action's fields as application/json")
            try:
                args = json.loads(body)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                return error(400, f"malformed JSON: {exc}")
            if not isinstance(args, dict):
                return error(400, "the request body must be a JSON object")
        current = hub.latest
        busy = None if current is None else BUSY.get(str(current.status.get("mode")))
        if busy is not None:
            return error(409, f"{name}: not now, {busy}; try again when it is done")
        future: Future[str] | None = None
        try:
            future = submit(name, args)
            reply = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)),
                                           ACTION_TIMEOUT_S)
        except ActionRefused as exc:
            return error(exc.status, str(exc))
        except TimeoutError:
            if future is not None and future.cancel():
                return error(503, f"{name}: the controller did not take it within "
                                  f"{ACTION_TIMEOUT_S:g} s; nothing was done")
            return error(503, f"{name}: no reply within {ACTION_TIMEOUT_S:g} s")
        return JSONResponse({"ok": True, "message": reply})

    async def not_found(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return error(exc.status_code, str(exc.detail))
        return error(404, "not found")

    async def method_not_allowed(request: Request, exc: Exception) -> Response:
        return error(405, f"{request.method} is not allowed on {request.url.path}")

    async def crashed(request: Request, exc: Exception) -> Response:
        log.error("web: %s %s: %s", request.method, request.url.path, exc)
        return error(500, f"internal error: {type(exc).__name__}")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/pair", pair),
        Route("/api/whoami", whoami),
        Route("/api/status", status),
        Route("/api/game", game),
        Route("/api/state", state),
        Route("/api/danger", danger),
        Route("/api/events", events),
        Route("/api/record", record),
        Route("/api/board", board_json),
        Route("/api/board.svg", board_image),
        Route("/api/stream", stream),
        Route("/api/camera.jpg", camera_jpeg),
        Route("/api/camera.mjpeg", camera_mjpeg),
        Route("/api/actions/{action}", action, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={
        404: not_found, 405: method_not_allowed, HTTPException: http_error,
        Exception: crashed,
    })
