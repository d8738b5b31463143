"""Provisional decisions corrected from the board once it is in view, on synthetic evidence."""

from __future__ import annotations

import random

from synthetic import observe, two_plain_moves

from bermuda_hw.controller.cloud_phase import plan_spin
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import corrected_captures, corrected_move
from bermuda_hw.controller.identify import Difference
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Bump, Kind, candidates, contents
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus

BOARD = load_board()


def captured_under_the_cloud() -> tuple[Game, Provisional, str, str]:
    """A game just past a cloud phase that captured a swept ship from a place the cloud then
    covered (provisional), the cloud still on the board: the game, the phase, the ship and
    its place."""
    for seed in range(50):
        rng = random.Random(seed)
        game = Game.new(4, seed=seed, board=BOARD)
        while not game.is_over():
            if game.phase is Phase.CLOUD:
                pending = plan_spin(game, None)
                if pending.swept and not pending.leaves_board:
                    sid = sorted(pending.swept)[0]
                    place = game.ship(sid).location
                    assert place is not None
                    count, round_ = len(game.journal), game.round
                    game.cloud_phase(None, capture=pending.swept, provisional=(place,))
                    item = Provisional(count, f"the captures of round {round_}", (place,), True)
                    return game, item, sid, place
                game.cloud_phase()
                continue
            game.roll_die()
            game.push(rng.choice(game.legal_moves()))
    raise AssertionError("no such cloud phase in 50 games")


def test_a_ship_seen_where_it_was_taken_from_was_left_by_the_magnets() -> None:
    game, item, sid, place = captured_under_the_cloud()
    assert game.ship(sid).status is ShipStatus.IN_CLOUD
    color = game.ship(sid).color
    corrected = corrected_captures(game, item, Difference(extra=((color, place),)))
    assert corrected is not None
    assert sid not in corrected.captured
    assert corrected.game.ship(sid).location == place
    assert corrected.game.ship(sid).status is not ShipStatus.IN_CLOUD
    assert corrected.changes == (f"the magnets left {sid} on {place}",)
    assert len(corrected.game.journal) == len(game.journal)


def test_a_board_that_agrees_or_differs_elsewhere_corrects_nothing() -> None:
    game, item, sid, place = captured_under_the_cloud()
    color = game.ship(sid).color
    assert corrected_captures(game, item, Difference()) is None
    elsewhere = next(p for p in BOARD.spaces if p != place)
    assert corrected_captures(game, item, Difference(extra=((color, elsewhere),))) is None


def test_a_move_out_of_sight_is_replaced_by_the_move_the_board_shows() -> None:
    game, taken, shown = two_plain_moves(BOARD, 1)
    assert taken.end is not None
    truth = game.copy()
    truth.push(shown)
    count = len(game.journal)
    game.push(taken, provisional=(taken.end,))
    item = Provisional(count, str(taken), (taken.end,))
    board = {p: list(c) for p, c in contents(truth).items()}
    corrected = corrected_move(game, item, observe(BOARD, board), "table")
    assert corrected is not None
    assert corrected.move.move is not None
    assert (corrected.move.move.ship, corrected.move.move.end) == (shown.ship, shown.end)
    assert contents(corrected.game) == contents(truth)
    # the board as the provisional move has it: nothing to correct
    same = {p: list(c) for p, c in contents(game).items()}
    assert corrected_move(game, item, observe(BOARD, same), "table") is None


def test_a_move_out_of_sight_landed_on_and_put_back_is_not_taken_for_another_move() -> None:
    """With the die on the table, a ship moved out of sight, then landed on by the next
    player and put back in its port, shows in that port: the next player's move explains
    it, and the first move is not rewritten as a dock there (as it was in a set's game)."""
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        game = Game.new(3, seed=seed, board=BOARD, options=GameOptions(die="table"))
        for _ in range(rng.randrange(3, 30)):
            if game.phase is not Phase.SHIPS:
                game.cloud_phase()
                continue
            game.roll_die()
            game.push(rng.choice(game.legal_moves()))
        if game.is_over() or game.phase is not Phase.SHIPS:
            continue
        case = _landed_on_and_put_back(game)
        if case is None:
            continue
        after, item, board, hidden = case
        observation = observe(BOARD, board, hidden=[hidden])
        assert corrected_move(after, item, observation, "table") is None
        found += 1
        if found == 5:
            return
    raise AssertionError(f"only {found} such states in 400 games")


def _landed_on_and_put_back(
    game: Game,
) -> tuple[Game, Provisional, dict[str, list[str]], str] | None:
    """A plain move of the active player's ship onto an empty path space, and a move of the
    next player onto that space that bumps it back, where the first player could also
    have docked that ship in the port it goes back to: the game after the first move (out
    of sight), its item, the board after the second (the bumped ship back) and the
    space."""
    color = game.active
    for die in range(1, 7):
        for move in game.legal_moves(die):
            end = move.end
            if move.is_pass or end is None or end in BOARD.ports or game.ships_at(end):
                continue
            docks = {m.end for d in range(1, 7) for m in game.legal_moves(d) if m.ship == move.ship}
            after = game.copy()
            count = len(after.journal)
            after.set_die(die)
            after.push(move, provisional=(end,))
            for cand in candidates(after, None):
                if cand.kind is not Kind.MOVE or move.ship not in cand.bumped:
                    continue
                if cand.bump is not Bump.BACK or after.active == color:
                    continue
                port = next(
                    p
                    for p, c in cand.contents.items()
                    if color in c
                    and p in BOARD.ports
                    and contents(after).get(p, ()).count(color) < c.count(color)
                )
                if port not in docks:
                    continue
                item = Provisional(count, str(move), (end,))
                return after, item, {p: list(c) for p, c in cand.contents.items()}, end
    return None
