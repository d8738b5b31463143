"""The page as a family sees it, on a phone (390x844) and a desktop (1366x768): no text under
12 CSS px, whose turn, the scores and a pending question above the fold, no serious
accessibility fault (axe-core), and no control a read-only visitor cannot use."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page
from synthetic import set_dock_or_bump
from table_helpers import set_out

from bermuda_hw.config import WebConfig
from bermuda_hw.controller.status import Mode

from .conftest import Served, open_page

SCREENSHOTS = Path(
    os.environ.get("BERMUDA_SCREENSHOTS") or tempfile.mkdtemp(prefix="bermuda-shots-")
)
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 768}}
SMALLEST_PX = 12.0

# Every piece of text the browser draws, with the size it is drawn at in CSS px: an SVG text's
# font size times the scale from its user units to the screen.
DRAWN_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("title, script, style, option")) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    if (!el.getClientRects().length) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      px *= Math.hypot(m.a, m.b);
    }
    out.push({ text: text.slice(0, 40), px, id: el.id || el.getAttribute("class") || el.tagName });
  }
  return out;
}"""

# The controls a visitor can use that would change the table (the controls that only read are
# marked `data-reads`: a replay's; the camera panel and the record's download are no controls).
WRITING_CONTROLS = """() => [...document.querySelectorAll(
    "button:not([data-reads]), input:not([data-reads]), select, textarea, #new-game summary"
    )].filter((c) =>
    c.checkVisibility({ checkVisibilityCSS: true }) && !c.disabled).map((c) =>
    c.id || c.name || c.textContent.trim())"""


def small_text(page: Page) -> list[dict[str, Any]]:
    drawn: list[dict[str, Any]] = page.evaluate(DRAWN_TEXT)
    assert len(drawn) > 30  # the check sees the page's text (the scores, the board, the panels)
    return [d for d in drawn if d["px"] < SMALLEST_PX - 0.01]


def above_the_fold(page: Page, selector: str) -> bool:
    box = page.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: r.height }; }""",
        selector,
    )
    height = page.viewport_size["height"]  # type: ignore[index]
    return bool(box["height"] > 0 and box["top"] >= 0 and box["bottom"] <= height)


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def asked(served: Served) -> None:
    """Yellow docks at SUGAR on a board that a bump with a 1 leaves too: the table asks."""
    table = served.table
    set_dock_or_bump(table.controller.game)
    table.controller._commit()
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    free = [
        b
        for b in table.board.ports["SUGAR"].berths
        if all(
            abs(b[0] - p[0]) + abs(b[1] - p[1]) > 4 for p in table.world.ship_positions().values()
        )
    ]
    table.world.place_ship("yellow-1", *free[0])
    table.run_until(lambda: table.mode() is Mode.ASK, limit=60)


def caught_up(page: Page, served: Served) -> None:
    snapshot = served.table.controller.snapshot
    assert snapshot is not None
    page.wait_for_function(
        "v => window.bermuda.state && window.bermuda.state.version >= v",
        arg=snapshot.version,
        timeout=10_000,
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_question_on_a_phone_and_a_desktop(
    browser: Browser, serve: Callable[..., Served], scheme: str
) -> None:
    served = serve(with_players=False, seed=1)
    asked(served)
    question = served.table.controller.status.question
    assert question is not None
    for name, viewport in VIEWPORTS.items():
        page = open_page(browser, served, paired=True, viewport=viewport)
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        caught_up(page, served)
        page.wait_for_function("() => !document.getElementById('question').hidden")
        assert small_text(page) == [], name
        for what in ("#game-line", "#scoreline", "#question-text", "#question-options"):
            assert above_the_fold(page, what), (name, what)
        assert page.inner_text("#game-line").endswith("yellow to play")
        assert [
            li.get_attribute("data-player") for li in page.query_selector_all("#scoreline li")
        ] == list(served.table.controller.game.players)
        # the question is said once, with the table's presses beneath it
        assert page.inner_text("body").count(question.text) == 1, name
        assert page.inner_text("#question-press").startswith("On the table: ")
        assert [
            b.inner_text() for b in page.query_selector_all("#question-options button")
        ] == list(question.options)
        assert serious_violations(page) == [], (name, scheme)
        dark = "-dark" if scheme == "dark" else ""
        page.screenshot(path=str(SCREENSHOTS / f"{name}-question{dark}.png"))
        assert not page.errors  # type: ignore[attr-defined]
        page.close()


def test_a_read_only_visitor_sees_no_control_that_writes(
    browser: Browser, serve: Callable[..., Served]
) -> None:
    served = serve(
        web=WebConfig(enabled=True, bind="127.0.0.1:0", public_view=True), with_players=False
    )
    controller = served.table.controller
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    for name, viewport in VIEWPORTS.items():
        page = open_page(browser, served, paired=False, viewport=viewport)
        assert page.inner_text("#pairing") == "read-only"
        assert page.evaluate(WRITING_CONTROLS) == [], name
        assert page.is_visible("#pair-hint") and "pair it" in page.inner_text("#pair-hint")
        if name == "phone":
            for what in ("#game-line", "#scoreline", "#message", "#pair-hint"):
                assert above_the_fold(page, what), what
        assert small_text(page) == [], name
        assert serious_violations(page) == [], name
        page.close()
    # paired, the same page has its controls, and they act
    page = open_page(browser, served, paired=True)
    assert not page.is_visible("#pair-hint")
    writing = page.evaluate(WRITING_CONTROLS)
    assert {"btn-undo", "btn-pause"} <= set(writing)
    page.click("#btn-pause")
    served.run_until(lambda: controller.status.paused, 50)
    page.wait_for_function(
        "() => document.getElementById('action-result').textContent === 'motion paused'"
    )
    page.click("#btn-resume")
    served.run_until(lambda: not controller.status.paused, 50)
    game_id = controller.game_id
    page.click("#new-game summary")
    dialogs: list[str] = []
    page.once("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    page.click("#btn-new-game")
    served.run_until(lambda: controller.game_id != game_id, 50)
    assert len(dialogs) == 1 and "Archive this game (round 1)" in dialogs[0]
    page.close()


def test_the_board_names_what_is_tapped_and_draws_what_is_still_to_set(
    browser: Browser, serve: Callable[..., Served]
) -> None:
    """A new game: the ships the table asks to be set at their ports are outlines, not
    ships that stand there; a tap names a ship or a place in words of 12 px or more."""
    served = serve(with_players=False)
    table = served.table
    table.run_until(lambda: table.controller.status.fix is not None, limit=80)
    page = open_page(browser, served, paired=True)
    caught_up(page, served)
    fix = table.controller.status.fix
    assert fix is not None and fix.missing
    drawn = page.evaluate("""() => [...document.querySelectorAll('#board g.ship')].map(g =>
        ({ ship: g.dataset.ship, at: g.dataset.location,
           missing: g.classList.contains('missing') }))""")
    expected: dict[tuple[str, str], int] = {}
    for color, where in fix.missing:
        expected[(color, where)] = expected.get((color, where), 0) + 1
    outlined: dict[tuple[str, str], int] = {}
    for ship in drawn:
        if ship["missing"]:
            key = (ship["ship"].split("-")[0], ship["at"])
            outlined[key] = outlined.get(key, 0) + 1
    assert outlined == expected
    # on the phone the ships' numbers and the space labels give way; a tap names them
    assert page.evaluate("() => document.getElementById('board').classList.contains('compact')")
    ship = drawn[0]
    page.click(f"#board g.ship[data-ship='{ship['ship']}']")
    assert page.inner_text("#board-caption").startswith(f"{ship['ship']}")
    page.click("#place-S21 ellipse", force=True)
    assert page.inner_text("#board-caption").startswith("space S21")
    # on a desktop they are drawn, at 12 px or more
    page.set_viewport_size({"width": 1366, "height": 768})
    page.wait_for_function("() => !document.getElementById('board').classList.contains('compact')")
    assert page.is_visible("#place-S21 text") and small_text(page) == []
    page.close()


@pytest.mark.parametrize(
    "phase, active, over, expected",
    [
        ("ships", "blue", False, "round 3 · blue to play"),
        ("cloud", "blue", False, "round 3 · the cloud's turn: spin and move it"),
        ("over", "blue", True, "game over"),
    ],
)
def test_the_turn_line_says_whose_turn_it_is(
    browser: Browser,
    serve: Callable[..., Served],
    phase: str,
    active: str,
    over: bool,
    expected: str,
) -> None:
    """The turn line for each phase, drawn from the state the server sent with its phase
    changed (the cloud phase and the end of a game come from the same snapshot)."""
    served = serve(with_players=False)
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    page = open_page(browser, served, paired=True)
    line = page.evaluate(
        """([phase, active, over]) => {
        const state = structuredClone(window.bermuda.state);
        state.status.phase = phase; state.status.active = active; state.status.round = 3;
        if (over) state.game.outcome = { winners: ["blue"], reason: "reached $350,000" };
        window.bermuda.source.close();  // the live stream must not draw over this state
        render(state);
        return document.getElementById('game-line').textContent; }""",
        [phase, active, over],
    )
    assert line.endswith(expected) and "phase" not in line
    assert ("to play" in line) == (phase == "ships")
    page.close()


def test_reduced_motion_stills_the_page(browser: Browser, serve: Callable[..., Served]) -> None:
    served = serve(with_players=False)
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    page = open_page(browser, served, paired=True)
    page.emulate_media(reduced_motion="reduce")
    names = page.evaluate("""() => { const b = document.getElementById('btn-spin');
        b.classList.add('ready'); return getComputedStyle(b).animationName; }""")
    assert names == "none"
    page.emulate_media(reduced_motion="no-preference")
    assert (
        page.evaluate("() => getComputedStyle(document.getElementById('btn-spin')).animationName")
        == "pulse"
    )
    page.close()


@pytest.mark.parametrize(
    ("mode", "flag", "enabled"),
    [
        ("spin", "", True),
        ("ready", "", False),
        ("ready", "unfinished", True),
        ("fix", "", False),
        ("fix", "back_unseen", True),
    ],
)
def test_the_spin_button_is_offered_for_every_press_the_table_asks_for(
    browser: Browser, serve: Callable[..., Served], mode: str, flag: str, enabled: bool
) -> None:
    """The page's spin button is enabled for the spin and for the presses the table asks
    for outside it (a move done after "not yet"; bumped ships back where the camera cannot
    see), drawn from the state the server sent with its mode changed."""
    served = serve(with_players=False)
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    page = open_page(browser, served, paired=True)
    disabled = page.evaluate(
        """([mode, flag]) => {
        const state = structuredClone(window.bermuda.state);
        state.status.mode = mode; state.status.paused = false;
        if (flag) state.status[flag] = true;
        window.bermuda.source.close();  // the live stream must not draw over this state
        render(state);
        return document.getElementById('btn-spin').disabled; }""",
        [mode, flag],
    )
    assert disabled is (not enabled)
    page.close()


def test_the_page_says_when_it_waits_and_a_form_field_that_is_no_number(
    browser: Browser, serve: Callable[..., Served]
) -> None:
    """While the cloud moves the buttons wait and a line says why; while motion is paused
    a line says so and New game waits too; a form field that is no number is named on the
    page and nothing is sent ("0,5" is a number, as phones in many countries type it)."""
    served = serve(with_players=False)
    served.run_until(lambda: served.table.mode() is Mode.SETUP)
    page = open_page(browser, served, paired=True)
    drawn = page.evaluate(
        """() => {
        window.bermuda.source.close();  // the live stream must not draw over these states
        const seen = {};
        for (const [name, change] of [["moving", {mode: "moving", paused: false}],
                                      ["paused", {mode: "spin", paused: true}],
                                      ["playing", {mode: "spin", paused: false}]]) {
          const state = structuredClone(window.bermuda.state);
          Object.assign(state.status, change);
          render(state);
          const text = (id) => document.getElementById(id).hidden ? ""
            : document.getElementById(id).textContent;
          const off = (id) => document.getElementById(id).disabled;
          seen[name] = {busy: text("busy"), paused: text("paused"), spin: off("btn-spin"),
                        undo: off("btn-undo"), pause: off("btn-pause"),
                        newGame: off("btn-new-game")};
        }
        return seen; }"""
    )
    assert drawn["moving"]["busy"].startswith("The cloud is moving")
    assert all(drawn["moving"][b] for b in ("spin", "undo", "pause", "newGame"))
    assert drawn["paused"]["paused"].startswith("Motion paused")
    assert drawn["paused"]["spin"] and drawn["paused"]["newGame"] and not drawn["paused"]["busy"]
    playing = drawn["playing"]
    assert not (playing["busy"] or playing["paused"] or playing["spin"] or playing["newGame"])
    typed = page.evaluate(
        """() => [typed('0,5', true), typed('0.5', true), typed('1', true), typed(' 12 '),
        typed('350,000'), typed('350.000'), typed('350 000'), typed('60000'),
        typed('abc', true), typed('1,5'), typed('35,00'), typed(''), typed('-3')]"""
    )
    assert typed[:8] == [0.5, 0.5, 1, 12, 350000, 350000, 350000, 60000]
    assert all(v != v for v in typed[8:]), typed  # each is NaN
    game_id = served.table.controller.game_id
    page.click("#new-game summary")
    page.fill("#new-game-form input[name=seed]", "abc")
    page.evaluate("document.getElementById('new-game-form').requestSubmit()")
    result = page.locator("#action-result")
    assert "Seed: a whole number" in result.text_content(timeout=5_000)  # type: ignore[operator]
    assert served.table.controller.game_id == game_id
    page.close()
