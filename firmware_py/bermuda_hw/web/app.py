"""The table's page and its JSON API, as a Starlette application.

Reads come from the hub's latest snapshot; writes are queued for the
controller's step thread and need the token (header `X-Bermuda-Token`, or the
HttpOnly SameSite cookie the pairing URL sets). No write is ever done by a
GET. What shows the table (its state, the record, the camera) needs the token
too, unless the owner made the view public (`[web] public_view`).

Every action and every read that shows the table is refused (403) when its
`Host` is a name the page is not known by (DNS rebinding: a stranger's name
made to point at the table) or when a browser says it comes from another page
(`Origin`, `Sec-Fetch-Site`: cookies ignore ports, so a page of another service
on the same machine would otherwise act with the phone's cookie).

Bad requests get a 4xx with a one-line reason in `{"error": ...}`, logged as
one line, and change nothing; no traceback ever reaches a client or the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import json
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from concurrent.futures import Future
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bermuda_hw.controller.commands import ACTIONS, ActionRefused
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import board_to_json
from bermuda_hw.web.camera import CameraEncoder, fix_places
from bermuda_hw.web.finished import FinishedGames
from bermuda_hw.web.hub import Hub
from bermuda_hw.web.pairing import token_matches
from bermuda_hw.web.svg import board_svg

log = logging.getLogger("bermuda_hw.web")

COOKIE = "bermuda_token"
HEADER = "x-bermuda-token"
ACTION_TIMEOUT_S = 10.0
KEEPALIVE_S = 15.0
MAX_BODY_BYTES = 16_384
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_SEQ_DIGITS = 18  # a journal's sequence number; int() of 4,301 digits raises in Python 3.11
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
Handler = Callable[[Request], Awaitable[Response]]


def _static(name: str) -> bytes:
    return (resources.files("bermuda_hw.web") / "static" / name).read_bytes()


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def parse_seq(raw: str) -> int | None:
    """A journal sequence number from a query or header (ASCII digits only), or None."""
    if not (0 < len(raw) <= MAX_SEQ_DIGITS and raw.isascii() and raw.isdigit()):
        return None
    return int(raw)


def own_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The names the page is known by (besides IP addresses): localhost, this machine's."""
    name = socket.gethostname().lower().rstrip(".")
    names = {"localhost", name, f"{name}.local", name.split(".")[0] + ".local"}
    names.update(n.lower().rstrip(".") for n in extra)
    return frozenset(names)


def host_problem(host_header: str | None, names: frozenset[str]) -> str | None:
    """Why a `Host` header is not this page's (None: it is)."""
    if not host_header:
        return "no Host header"
    try:
        parts = urlsplit("//" + host_header)
        hostname, _ = parts.hostname, parts.port  # .port raises for a port not a number
    except ValueError:
        return f"a malformed Host header {host_header[:80]!r}"
    if not hostname or parts.path or parts.query or parts.username is not None:
        return f"a malformed Host header {host_header[:80]!r}"
    try:
        ipaddress.ip_address(hostname)
        return None  # an address: no name to rebind
    except ValueError:
        pass
    if hostname.rstrip(".") in names:
        return None
    return (
        f"the page is not known as {hostname[:80]!r} (add it to [web] hosts if it is "
        f"the table's name on this network)"
    )


def origin_problem(request: Request) -> str | None:
    """Why a browser's request comes from another page (None: it does not)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a request from another site ({site})"
    origin = request.headers.get("origin")
    if origin is None:
        return None  # not a browser, or a browser's same-origin GET
    try:
        theirs = urlsplit(origin)
        ours = urlsplit("//" + request.headers.get("host", ""))
        default = DEFAULT_PORTS.get(theirs.scheme)
        # the scheme is not compared: behind a TLS proxy the page is https, we see http
        same = (
            default is not None
            and theirs.hostname is not None
            and theirs.hostname == ours.hostname
            and (theirs.port or default) == (ours.port or default)
        )
    except ValueError:
        same = False
    if not same:
        return f"a request from another page (Origin {origin[:80]!r})"
    return None


def create_app(
    *,
    hub: Hub,
    board: Board,
    token: str,
    submit: Submit,
    camera: CameraEncoder | None = None,
    public_view: bool = False,
    hosts: Iterable[str] = (),
    finished: FinishedGames | None = None,
) -> ASGIApp:
    """The page and its API over a hub (reads) and a submit function (queued writes)."""
    svg = board_svg(board)
    board_doc = board_to_json(board)
    board_doc["land"] = [[list(p) for p in polygon] for polygon in board.land]
    names = own_names(hosts)

    def presented(request: Request) -> str | None:
        return request.headers.get(HEADER) or request.cookies.get(COOKIE)

    def paired(request: Request) -> bool:
        return token_matches(presented(request), token)

    def refusal(request: Request, *, token_needed: bool) -> Response | None:
        """The 4xx for a request that may not see the table or act on it, or None."""
        problem = host_problem(request.headers.get("host"), names) or origin_problem(request)
        if problem is not None:
            return error(403, f"refused: {problem}")
        if not token_needed or paired(request):
            return None
        if presented(request):
            return error(
                403, "wrong token: pair this device again with the QR code from `bermuda-hw token`"
            )
        return error(
            401,
            "this device is not paired: open the pairing URL from "
            "`bermuda-hw token` (or send the X-Bermuda-Token header)",
        )

    def shows_table(handler: Handler) -> Handler:
        """A read of the table: the token (unless the view is public), our Host and Origin."""

        @functools.wraps(handler)
        async def checked(request: Request) -> Response:
            return refusal(request, token_needed=not public_view) or await handler(request)

        return checked

    async def index(request: Request) -> Response:
        return Response(
            _static("index.html"),
            media_type=STATIC["index.html"],
            headers={**SECURITY_HEADERS, "Cache-Control": "no-store"},
        )

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return error(404, f"no such file: {name[:80]!r}")
        return Response(
            _static(name), media_type=STATIC[name], headers={"Cache-Control": "no-cache"}
        )

    async def pair(request: Request) -> Response:
        given = request.query_params.get("token")
        if not token_matches(given, token):
            return PlainTextResponse(
                "wrong or missing token: scan the QR code that `bermuda-hw token` prints\n",
                status_code=403,
            )
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            COOKIE, token, max_age=400 * 24 * 3600, httponly=True, samesite="strict", path="/"
        )
        return response

    async def whoami(request: Request) -> Response:
        return JSONResponse({"paired": paired(request), "public": public_view})

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
        since = parse_seq(raw)
        if since is None:
            return error(
                400,
                f"since must be a journal sequence number (0 or more), "
                f"not {raw[:40]!r}{'...' if len(raw) > 40 else ''}",
            )
        current = latest_state()
        return JSONResponse(
            {
                "game_id": current["game_id"],
                "seq": current["seq"],
                "events": hub.history.since(since),
            }
        )

    async def record(request: Request) -> Response:
        snapshot = hub.latest
        if snapshot is None or snapshot.record is None:
            return error(404, "no current game")
        return Response(
            json.dumps(snapshot.record, indent=1),
            media_type="application/json",
            headers={
                "Content-Disposition": f'attachment; filename="bermuda-game-'
                f'{snapshot.game_id}.json"'
            },
        )

    async def board_json(request: Request) -> Response:
        return JSONResponse(board_doc)

    async def board_image(request: Request) -> Response:
        return Response(svg, media_type="image/svg+xml")

    async def stream(request: Request) -> Response:
        last = request.headers.get("last-event-id") or request.query_params.get("since", "")
        since = parse_seq(last)  # anything else: the whole history, as for a new client
        return StreamingResponse(
            _sse(request, since),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

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
                reset = (
                    client_seq is None
                    or client_seq > seq
                    or (client_game is not None and client_game != current["game_id"])
                )
                if reset or (client_seq is not None and seq > client_seq):
                    start = 0 if reset else int(client_seq or 0)
                    history = {
                        "game_id": current["game_id"],
                        "reset": reset,
                        "events": hub.history.since(start),
                    }
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
                    yield (
                        b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                        + str(len(data)).encode()
                        + b"\r\n\r\n"
                        + data
                        + b"\r\n"
                    )
                await asyncio.sleep(1.0 / encoder.max_fps)

        return StreamingResponse(
            frames(),
            media_type="multipart/x-mixed-replace; boundary=frame",
            headers={"Cache-Control": "no-store"},
        )

    async def action(request: Request) -> Response:
        name = request.path_params["action"]
        refused = refusal(request, token_needed=True)
        if refused is not None:
            return refused
        declared = request.headers.get("content-length", "0")
        if (
            not (declared.isascii() and declared.isdigit())
            or len(declared) > 9
            or int(declared) > MAX_BODY_BYTES
        ):
            return error(413, f"request body over {MAX_BODY_BYTES} bytes")
        body = b""
        async for chunk in request.stream():  # a chunked body is cut off at the limit too
            body += chunk
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
        if name not in ACTIONS:
            return error(400, f"unknown action {name!r} (known: {', '.join(ACTIONS)})")
        current = hub.latest
        busy = None if current is None else BUSY.get(str(current.status.get("mode")))
        if busy is not None:
            return error(409, f"{name}: not now, {busy}; try again when it is done")
        future: Future[str] | None = None
        try:
            future = submit(name, args)
            reply = await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(future)), ACTION_TIMEOUT_S
            )
        except ActionRefused as exc:
            return error(exc.status, str(exc))
        except TimeoutError:
            if future is not None and future.cancel():
                return error(
                    503,
                    f"{name}: the controller did not take it within "
                    f"{ACTION_TIMEOUT_S:g} s; nothing was done",
                )
            return error(503, f"{name}: no reply within {ACTION_TIMEOUT_S:g} s")
        return JSONResponse({"ok": True, "message": reply})

    async def finished_games(request: Request) -> Response:
        if finished is None:
            return JSONResponse({"games": [], "by_colour": {}, "by_player": {}})
        try:
            data = await asyncio.to_thread(finished.listing)
        except StateError as exc:
            return error(503, f"the finished games cannot be read: {exc}")
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    async def finished_game(request: Request) -> Response:
        raw = request.path_params["game_id"]
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 9):
            return error(400, f"a game is named by its number, not {raw[:20]!r}")
        if finished is None:
            return error(404, f"no finished game {raw}")
        try:
            data = await asyncio.to_thread(finished.replay, int(raw))
        except StateError as exc:
            return error(404, str(exc))
        return JSONResponse(data)

    async def not_found(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return error(exc.status_code, str(exc.detail))
        return error(404, "not found")

    async def method_not_allowed(request: Request, exc: Exception) -> Response:
        return error(405, f"{request.method} is not allowed on {request.url.path}")

    async def crashed(request: Request, exc: Exception) -> Response:
        # the reply only: `Shielded` logs the line (Starlette re-raises after this)
        return error(500, f"internal error: {type(exc).__name__}")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/pair", pair),
        Route("/api/whoami", whoami),
        Route("/api/status", shows_table(status)),
        Route("/api/game", shows_table(game)),
        Route("/api/state", shows_table(state)),
        Route("/api/danger", shows_table(danger)),
        Route("/api/events", shows_table(events)),
        Route("/api/record", shows_table(record)),
        Route("/api/games", shows_table(finished_games)),
        Route("/api/games/{game_id}", shows_table(finished_game)),
        Route("/api/board", board_json),
        Route("/api/board.svg", board_image),
        Route("/api/stream", shows_table(stream)),
        Route("/api/camera.jpg", shows_table(camera_jpeg)),
        Route("/api/camera.mjpeg", shows_table(camera_mjpeg)),
        Route("/api/actions/{action}", action, methods=["POST"]),
    ]
    return Shielded(
        Starlette(
            routes=routes,
            exception_handlers={
                404: not_found,
                405: method_not_allowed,
                HTTPException: http_error,
                Exception: crashed,
            },
        )
    )


class Shielded:
    """The outermost layer: every 4xx and 5xx is one log line, and no exception leaves.

    uvicorn logs an exception that leaves the app with its whole traceback, and
    Starlette re-raises after its 500 handler: here it stops, as one line that
    says where it happened. A client gone mid-request is not an error.
    """

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        held: Message | None = None

        async def watched(message: Message) -> None:
            nonlocal started, held
            if message["type"] == "http.response.start":
                started = True
                if 400 <= int(message["status"]) < 500:
                    held = message  # until its reason is known and logged
                    return
            elif message["type"] == "http.response.body" and held is not None:
                # logged before the client has any of the reply: the line is there when
                # the client reads it
                log.warning(
                    "web: %d %s %s from %s: %s",
                    held["status"],
                    scope["method"],
                    scope["path"][:200],
                    (scope.get("client") or ("?",))[0],
                    _reason(bytes(message.get("body", b""))),
                )
                await send(held)
                held = None
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except (ClientDisconnect, ConnectionError):
            return
        except Exception as exc:
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = (
                ""
                if tb is None
                else f" (at {tb.tb_frame.f_code.co_filename.rpartition('/')[2]}:{tb.tb_lineno})"
            )
            log.error(
                "web: %s %s: %s: %s%s",
                scope["method"],
                scope["path"][:200],
                type(exc).__name__,
                str(exc)[:200],
                where,
            )
            if not started:
                with contextlib.suppress(Exception):
                    await error(500, f"internal error: {type(exc).__name__}")(scope, receive, send)
            return


def _reason(body: bytes) -> str:
    try:
        return str(json.loads(body)["error"])[:200]
    except (ValueError, KeyError, TypeError):
        return body[:200].decode("utf-8", "replace").strip()
