"""Fixtures for the page: a simulated table with the page served beside it, and a browser."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright
from playwright.sync_api import Page as BrowserPage

from bermuda_hw.config import WebConfig
from bermuda_hw.web.service import Page, start_page

from ..controller.conftest import Table, board, make_table, table_config  # noqa: F401

CHROMIUM = Path("/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


def http(
    url: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=20) as response:
            raw = response.read()
            status, hdrs = response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        raw, status, hdrs = exc.read(), exc.code, dict(exc.headers)
    kind = hdrs.get("content-type", "")
    data: Any = json.loads(raw) if kind.startswith("application/json") else raw
    return Reply(status, data, {k.lower(): v for k, v in hdrs.items()})


@dataclass
class Served:
    """A simulated table, its page, and helpers that act while the controller steps."""

    table: Table
    page: Page

    @property
    def url(self) -> str:
        return self.page.local_url.rstrip("/")

    def get(
        self,
        path: str,
        *,
        token: str | None = "",
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Reply:
        """A read, with the page's token unless `token` is None (or another one)."""
        hdrs = dict(headers or {})
        if token == "":
            token = self.page.token
        if token is not None:
            hdrs["X-Bermuda-Token"] = token
        return http(self.url + path, headers=hdrs, **kwargs)

    def post(
        self,
        action: str,
        args: Any = None,
        *,
        token: str | None = "",
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """POST an action from another thread while this thread steps the controller."""
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        if token == "":
            token = self.page.token
        if token is not None:
            hdrs["X-Bermuda-Token"] = token
        body = raw if raw is not None else json.dumps(args or {}).encode()
        box: dict[str, Reply] = {}
        thread = threading.Thread(
            target=lambda: box.update(
                r=http(f"{self.url}/api/actions/{action}", method="POST", body=body, headers=hdrs)
            )
        )
        thread.start()
        while thread.is_alive():
            self.table.controller.step()
            thread.join(0.01)
        return box["r"]

    def run_until(self, until: Callable[[], bool], limit: int = 600) -> None:
        self.table.run_until(until, limit)


@pytest.fixture
def serve(make_table: Callable[..., Table]) -> Iterator[Callable[..., Served]]:  # noqa: F811
    pages: list[Page] = []

    def make(web: WebConfig | None = None, **table_options: Any) -> Served:
        table = make_table(**table_options)
        page = start_page(
            table.controller,
            table.board,
            web or WebConfig(enabled=True, bind="127.0.0.1:0"),
            table.state_dir,
            simulate=True,
        )
        pages.append(page)
        return Served(table, page)

    try:
        yield make
    finally:
        for page in pages:
            page.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: run scripts/ensure-apt (make test does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(
    browser: Browser, served: Served, *, paired: bool, viewport: dict[str, int] = PHONE
) -> BrowserPage:
    page = browser.new_page(viewport=viewport)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    url = f"{served.url}/pair?token={served.page.token}" if paired else served.url + "/"
    page.goto(url)
    page.wait_for_function("() => window.bermuda && window.bermuda.state")
    return page
