"""Computer seats on the page: chosen per colour when a new game starts, the die rolled for a
seat told with a button, and the seat's move drawn on the board and said in the message."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser
from table_helpers import set_out

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import GameOptions

from .conftest import Served, open_page


def test_a_new_game_with_computer_seats_from_the_page(
    browser: Browser, serve: Callable[..., Served]
) -> None:
    served = serve(with_players=False, options=GameOptions(die="virtual"), seed=3)
    table, c = served.table, served.table.controller
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    old = c.game_id
    page = open_page(browser, served, paired=True)
    page.click("#new-game summary")
    page.select_option("#new-game-form select[name=players]", "2")
    # only the colours that play are offered
    assert page.is_hidden("#seats label[data-color=green]")
    page.select_option("#seats select[name=seat-blue]", "best")
    page.select_option("#seats select[name=seat-yellow]", "easy")
    page.select_option("#new-game-form select[name=die]", "table")
    dialogs: list[str] = []
    page.once("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    page.click("#btn-new-game")
    table.run_until(lambda: c.game_id != old, limit=200)
    game = c.game
    assert game is not None
    assert game.options.computer == (("blue", "best"), ("yellow", "easy"))
    assert game.options.die == "table" and len(game.players) == 2
    set_out(table)
    # the table's die, rolled for the seat, is told with a button
    table.run_until(lambda: c.status.die_for is not None, limit=400)
    seat = c.status.die_for
    page.wait_for_function("() => !document.getElementById('die-for').hidden")
    assert seat is not None and seat in page.inner_text("#die-for-text")
    page.click("#die-options button:has-text('4')")
    table.run_until(lambda: c.status.suggestion is not None, limit=200)
    assert game.journal[-1] == {"roll": 4, "engine": False}
    chosen = c.status.suggestion
    assert chosen is not None and chosen.die == 4 and chosen.color == seat
    # the move drawn on the board, from its start to its end, and said in the message
    page.wait_for_selector("#layer-fix .suggested-path")
    drawn = (
        page.get_attribute("#layer-fix .suggested-path", "data-ship"),
        page.get_attribute("#layer-fix .suggested-path", "data-end"),
    )
    assert drawn == (chosen.ship, chosen.end)
    points = page.get_attribute("#layer-fix .suggested-path", "points")
    assert points is not None and len(points.split()) == len(chosen.path)
    assert chosen.describe() in page.inner_text("#message")
    assert page.is_hidden("#die-for")
    assert not page.errors  # type: ignore[attr-defined]
    page.close()
