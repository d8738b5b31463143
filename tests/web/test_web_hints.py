"""Hints for learners: switched per player from the page; with the virtual die rolled, the
rolled player's legal moves, each with its card, its bumps and its danger; nothing for a
player who did not ask, nor before the roll."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser
from table_helpers import set_out

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import GameOptions
from bermuda_hw.rules.hints import move_hints

from .conftest import Served, open_page


def _ready(serve: Callable[..., Served]) -> Served:
    served = serve(with_players=False, options=GameOptions(die="virtual"), seed=3)
    table = served.table
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    return served


def test_hints_are_the_engines_for_the_player_who_asked(serve: Callable[..., Served]) -> None:
    served = _ready(serve)
    table, c = served.table, served.table.controller
    active = c.game.active
    other = next(p for p in c.game.players if p != active)
    assert served.post("hints", {"color": other, "on": True}).status == 200
    table.press()  # the virtual die is rolled for the active player
    table.run_until(lambda: c.status.die is not None, limit=20)
    assert served.get("/api/state").body["hints"] is None  # the rolled player did not ask
    reply = served.post("hints", {"color": active, "on": True})
    assert reply.status == 200 and reply.body["message"] == f"hints on for {active}"
    state = served.get("/api/state").body
    assert state["status"]["hints"] == [p for p in c.game.players if p in (active, other)]
    expected = move_hints(c.game)
    assert [h["move"] for h in state["hints"]] == [str(h.move) for h in expected]
    for shown, hint in zip(state["hints"], expected, strict=True):
        assert shown["card_usd"] == hint.card_usd
        assert shown["bumps"] == [list(b) for b in hint.bumps]
        assert shown["danger_exact"] == (None if hint.danger is None else str(hint.danger))
    assert served.post("hints", {"color": active, "on": False}).status == 200
    assert served.get("/api/state").body["hints"] is None


def test_hints_refuse_what_is_not_a_player_or_a_switch(serve: Callable[..., Served]) -> None:
    served = _ready(serve)
    for args in (
        {"color": "purple", "on": True},
        {"color": "blue", "on": "yes"},
        {"color": "blue"},
        {"color": "blue", "on": True, "x": 1},
    ):
        reply = served.post("hints", args)
        assert reply.status == 400, args
    assert served.table.controller.status.hints == ()


def test_hints_on_the_page(browser: Browser, serve: Callable[..., Served]) -> None:
    served = _ready(serve)
    table, c = served.table, served.table.controller
    active = c.game.active
    page = open_page(browser, served, paired=True)
    page.click(f"#hint-toggles button[data-color='{active}']")
    table.run_until(lambda: active in c.status.hints, limit=50)
    table.press()
    table.run_until(lambda: c.status.die is not None, limit=20)
    page.wait_for_function("() => !document.getElementById('hints').hidden")
    shown = page.eval_on_selector_all("#hints li", "items => items.map(i => i.dataset.move)")
    assert shown == [str(h.move) for h in move_hints(c.game)]
    assert (
        page.get_attribute(f"#hint-toggles button[data-color='{active}']", "aria-pressed") == "true"
    )
    assert not page.errors  # type: ignore[attr-defined]
    page.close()
