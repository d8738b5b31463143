"""The put-back decisions' pure parts on synthetic evidence."""

from __future__ import annotations

from synthetic import observe, two_plain_moves

from bermuda_hw.controller.putback import unseen_arrivals
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Kind, candidates

BOARD = load_board()


def test_a_move_is_confirmed_only_where_its_arrival_is_seen() -> None:
    game, move, _ = two_plain_moves(BOARD, 3)
    assert game.die is not None and move.end is not None
    cand = next(
        c
        for c in candidates(game, frozenset({game.die}))
        if c.kind is Kind.MOVE
        and c.move is not None
        and c.move.end == move.end
        and c.move.ship.split("-")[0] == move.ship.split("-")[0]
    )
    board = {p: list(c) for p, c in cand.contents.items()}
    assert unseen_arrivals(game, cand, observe(BOARD, board)) == ()
    hidden = observe(BOARD, board, hidden={move.end})
    assert unseen_arrivals(game, cand, hidden) == (move.end,)
