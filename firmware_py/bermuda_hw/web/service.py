"""Start the page beside a running controller: token, hub, app, server, `daemon.json`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bermuda_hw.config import WebConfig
from bermuda_hw.controller.commands import CommandQueue
from bermuda_hw.controller.snapshot import Snapshot
from bermuda_hw.errors import ConfigError
from bermuda_hw.rules.board import Board
from bermuda_hw.web.app import create_app
from bermuda_hw.web.camera import CameraEncoder
from bermuda_hw.web.finished import FinishedGames
from bermuda_hw.web.hub import Hub
from bermuda_hw.web.limits import Limits
from bermuda_hw.web.pairing import ensure_token, remove_daemon_file, write_daemon_file
from bermuda_hw.web.server import WebServer


class Served(Protocol):
    """What the page needs of the controller: its queue, its snapshots and its camera view."""

    @property
    def commands(self) -> CommandQueue: ...

    @property
    def subscribers(self) -> list[Callable[[Snapshot], None]]: ...

    @property
    def snapshot(self) -> Snapshot | None: ...

    @property
    def camera_view(self) -> Any: ...


@dataclass
class Page:
    """The running page: its server, hub and encoder, and where it listens."""

    server: WebServer
    hub: Hub
    camera: CameraEncoder
    url: str
    local_url: str
    token: str
    state_dir: Path

    def stop(self) -> None:
        self.server.stop()
        remove_daemon_file(self.state_dir)


def start_page(
    controller: Served,
    board: Board,
    config: WebConfig,
    state_dir: Path,
    *,
    simulate: bool,
    address: tuple[str, int] | None = None,
) -> Page:
    """Serve the page for a controller; writes `daemon.json` with the pid and the URL."""
    token = ensure_token(state_dir)
    hub = Hub(board)
    controller.subscribers.append(hub.publish)
    if controller.snapshot is not None:
        hub.publish(controller.snapshot)
    camera = CameraEncoder(board, lambda: controller.camera_view)
    app = create_app(
        hub=hub,
        board=board,
        token=token,
        submit=controller.commands.submit,
        camera=camera,
        public_view=config.public_view,
        hosts=config.hosts,
        finished=FinishedGames(state_dir, board),
    )
    host, port = address or config.address(simulate)
    limits = Limits(
        max_connections=config.max_connections, max_per_client=config.max_connections_per_client
    )
    server = WebServer(app, hub, host, port, limits)
    try:
        url = server.start()
    except ConfigError:
        if not (simulate and not config.bind and address is None):
            raise
        # a simulated table beside another one: any free port will do
        server = WebServer(app, hub, host, 0, limits)
        url = server.start()
    local_host = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)
    local_url = WebServer(app, hub, local_host, server.port).url
    write_daemon_file(state_dir, local_url, url)
    return Page(server, hub, camera, url, local_url, token, state_dir)
