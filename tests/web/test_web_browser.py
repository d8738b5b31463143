"""The page in a real browser (Debian's Chromium through Playwright) beside a simulated game.

The controller steps on this thread, the page is served from its own thread,
and the browser shows what the page makes of the live state: after every
action of the table the SVG must show each ship where the engine has it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import ShipStatus

from .conftest import PHONE, Served, open_page

# The README's screenshots are refreshed only when asked (BERMUDA_SCREENSHOTS=docs/screenshots):
# a test run leaves the repository as it was.
SCREENSHOTS = Path(
    os.environ.get("BERMUDA_SCREENSHOTS") or tempfile.mkdtemp(prefix="bermuda-shots-")
)
TABLET = {"width": 1024, "height": 1366}


def caught_up(page: Page, served: Served) -> None:
    """Wait until the page shows the controller's latest snapshot."""
    snapshot = served.table.controller.snapshot
    assert snapshot is not None
    page.wait_for_function(
        "v => window.bermuda.state && window.bermuda.state.version >= v",
        arg=snapshot.version,
        timeout=10_000,
    )


def drawn_ships(page: Page) -> dict[str, dict[str, Any]]:
    return {
        s["ship"]: s
        for s in page.evaluate("""() => [...document.querySelectorAll(
        '#board g.ship')].map(g => ({ship: g.dataset.ship, location: g.dataset.location,
        transform: g.getAttribute('transform'), inCloud: !!g.closest('#cloud')}))""")
    }


def assert_ships_as_engine(page: Page, served: Served) -> None:
    game = served.table.controller.game
    assert game is not None
    positions = game.ship_positions()
    drawn = drawn_ships(page)
    for ship in game.ships():
        if ship.status is ShipStatus.IN_CLOUD:
            assert drawn[ship.id]["location"] == "cloud" and drawn[ship.id]["inCloud"]
        elif ship.location is None:
            assert ship.id not in drawn
        else:
            x, y = positions[ship.id]
            assert drawn[ship.id]["location"] == ship.location, ship.id
            tx, ty = (
                float(v)
                for v in drawn[ship.id]["transform"]
                .removeprefix("translate(")
                .removesuffix(")")
                .split()
            )
            assert abs(tx - x) < 0.01 and abs(ty - y) < 0.01, ship.id


def step_until(served: Served, until: Callable[[], bool], limit: int = 800) -> None:
    served.run_until(until, limit)


def test_a_simulated_game_on_the_page(browser: Browser, serve: Callable[..., Served]) -> None:
    served = serve(players=2, seed=4)
    table, controller = served.table, served.table.controller
    players = table.players
    assert players is not None
    press = players._press

    def press_except_spin() -> None:  # the page presses spin in this game
        if controller.status.mode is not Mode.SPIN:
            press()

    players._press = press_except_spin  # type: ignore[method-assign]
    page = open_page(browser, served, paired=True)
    assert page.inner_text("#pairing") == "paired"
    step_until(served, lambda: table.mode() is Mode.READY)

    # a short game from the page: 2 players, the first to $60,000 wins
    page.click("#new-game summary")
    page.fill("input[name=seed]", "11")
    page.fill("input[name=target_usd]", "60000")
    page.select_option("select[name=players]", "2")
    first = controller.game_id
    dialogs: list[str] = []
    page.once("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    page.click("#btn-new-game")
    step_until(served, lambda: controller.game_id != first)
    assert len(dialogs) == 1 and "is kept in the journal" in dialogs[0]
    game = controller.game
    assert game is not None and game.options.target_usd == 60_000 and game.seed == 11

    fixed = undone = spins = 0
    seen_seq = -1
    for _ in range(6000):
        if table.mode() is Mode.OVER:
            break
        controller.step()
        status = controller.status
        game = controller.game
        assert game is not None
        if status.mode is Mode.SPIN and not status.paused:
            caught_up(page, served)
            page.click("#btn-spin")
            step_until(served, lambda: table.mode() is not Mode.SPIN)
            if table.mode() is Mode.ASK:
                # asked first whether a ship stands on a landing the camera never saw: the
                # page shows the question; the players answer it, then spin is pressed again
                caught_up(page, served)
                assert page.inner_text("#question-text") == status.question.text
                step_until(served, lambda: table.mode() is not Mode.ASK)
                continue
            step_until(
                served, lambda: table.mode() in (Mode.SETUP, Mode.READY, Mode.FIX, Mode.OVER)
            )
            caught_up(page, served)
            spin = page.evaluate("() => window.bermuda.state.last_spin")
            assert spin is not None and spin["text"] == status.last_spin
            assert page.get_attribute("#pointer", "data-spin") == status.last_spin
            assert (
                page.evaluate("() => document.getElementById('pointer').getAnimations().length")
                >= 1
            )  # the spinner turns
            assert_ships_as_engine(page, served)
            if spins == 0:
                page.set_viewport_size(TABLET)  # type: ignore[arg-type]
                page.screenshot(path=str(SCREENSHOTS / "tablet-spin.png"), full_page=True)
                page.set_viewport_size(PHONE)  # type: ignore[arg-type]
            spins += 1
            continue
        if status.seq != seen_seq and status.mode is Mode.READY:
            seen_seq = status.seq
            caught_up(page, served)
            assert_ships_as_engine(page, served)
            if not fixed and status.seq >= 2:
                # someone knocks a ship of the player who is not to move onto a free space
                other = next(c for c in game.players if c != game.active)
                token = next(s.id for s in game.ships(other) if s.location in table.board.ports)
                free = next(
                    s
                    for s in table.board.spaces.values()
                    if s.kind == "path" and not game.ships_at(s.id) and s.id not in game.blocked
                )
                table.world.place_ship(token, free.x_mm, free.y_mm)
                step_until(served, lambda: controller.status.fix is not None)
                caught_up(page, served)
                fix = controller.status.fix
                assert fix is not None
                for _, place in (*fix.missing, *fix.extra):
                    assert page.locator(f"#layer-fix .fix-mark[data-place='{place}']").count()
                    assert "fix" in (page.get_attribute(f"#place-{place}", "class") or "")
                assert page.is_visible("#fix")
                page.screenshot(path=str(SCREENSHOTS / "phone-fix.png"), full_page=True)
                fixed += 1
            elif not undone and game.round >= 2 and game.journal and "move" in game.journal[-1]:
                before = len(game.journal)
                page.click("#btn-undo")
                step_until(served, lambda: controller.status.message.startswith("undone"))
                assert controller.game is not None
                assert len(controller.game.journal) == before - 2
                caught_up(page, served)
                assert page.inner_text("#message").startswith("undone")
                assert_ships_as_engine(page, served)  # the board as it was
                undone += 1
    assert table.mode() is Mode.OVER, f"{controller.status.mode}: {controller.status.message}"
    caught_up(page, served)
    assert_ships_as_engine(page, served)
    game = controller.game
    assert game is not None
    outcome = game.outcome()
    assert outcome is not None
    assert page.is_visible("#winner")
    assert page.inner_text("#winner") == str(outcome)  # in words, not the reason's code
    assert fixed == 1 and undone == 1 and spins >= 1
    page.screenshot(path=str(SCREENSHOTS / "phone-over.png"), full_page=True)
    # the game is kept among the finished games, and replays to the board it ended on
    game_id = controller.game_id
    finished = page.locator(f"#finished li[data-game='{game_id}']")
    finished.wait_for(timeout=10_000)
    assert all(w in finished.inner_text() for w in outcome.winners)
    finished.locator("button").click()
    page.wait_for_function("() => !document.getElementById('replay').hidden")
    steps = int(page.get_attribute("#replay-slider", "max") or "0")
    assert steps == len(game.journal)
    assert page.inner_text("#replay-step").startswith(f"Step 0 of {steps}")
    page.click("#replay-next")
    assert page.inner_text("#replay-step").startswith(f"Step 1 of {steps}")
    page.evaluate(f"""() => {{ const s = document.getElementById('replay-slider');
        s.value = '{steps}'; s.dispatchEvent(new Event('input')); }}""")
    assert page.is_disabled("#replay-next")
    assert_ships_as_engine(page, served)  # the last step is the board the game ended on
    page.screenshot(path=str(SCREENSHOTS / "phone-replay.png"))
    page.click("#replay-close")
    assert page.is_hidden("#replay")
    page.set_viewport_size(TABLET)  # type: ignore[arg-type]
    page.screenshot(path=str(SCREENSHOTS / "tablet-over.png"), full_page=True)
    assert not page.errors  # type: ignore[attr-defined]


def test_without_the_token_the_page_shows_nothing_of_the_table(
    browser: Browser, serve: Callable[..., Served]
) -> None:
    served = serve(with_players=False)
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    page = browser.new_page(viewport=PHONE)  # type: ignore[arg-type]
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(served.url + "/")
    page.wait_for_function(
        "() => document.getElementById('message').textContent.includes('not paired')"
    )
    assert page.inner_text("#pairing") == "not paired"
    # no "offline" badge for a table that is up, no "no finished game" it cannot know
    assert page.is_hidden("#link") and page.is_hidden("#finished-panel")
    assert page.evaluate("() => window.bermuda.state") is None
    assert not any("/api/stream" in url or "/api/state" in url for url in requests)
    # pairing shows the game
    page.goto(f"{served.url}/pair?token={served.page.token}")
    page.wait_for_function("() => window.bermuda && window.bermuda.state")
    assert page.inner_text("#pairing") == "paired"
    page.close()
