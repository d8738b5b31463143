"""Invariants over many random complete games (hypothesis picks seeds, players and house rules)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cards import ALL_CARDS_USD, BONUS_CARD_USD, BONUS_CARDS, PRODUCT_CARDS_USD
from bermuda_hw.rules.cloud import CloudPose, Spinner, plan_spin, swept_ships
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.events import Bumped, Docked, EndReason, Event, Swept
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.play import random_chooser
from bermuda_hw.rules.record import from_json, replay, to_json
from bermuda_hw.rules.record import record as game_record

ALL_CARDS = sum(len(v) for v in PRODUCT_CARDS_USD.values()) + BONUS_CARDS
MAX_ROUNDS = 3_000

games = st.builds(
    lambda seed, players, ledger, p: (seed, players, GameOptions(ledger, p)),
    st.integers(0, 2**32 - 1),
    st.integers(2, 4),
    st.booleans(),
    st.sampled_from([1.0, 1.0, 0.5, 0.0]),
)
FAST = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _check_cards(game: Game) -> None:
    piles = [v for p in PRODUCT_CARDS_USD for v in game.pile(p)]
    hands = [v for c in game.players for _, v in game.hand(c)]
    assert sum(piles) + sum(hands) + game.bonus_left * BONUS_CARD_USD == ALL_CARDS_USD
    assert len(piles) + len(hands) + game.bonus_left == ALL_CARDS
    assert sum(game.totals().values()) == sum(hands)
    # the values held are exactly the printed cards
    held = Counter(piles) + Counter(hands) + Counter({BONUS_CARD_USD: game.bonus_left})
    printed = Counter(v for vs in PRODUCT_CARDS_USD.values() for v in vs)
    printed[BONUS_CARD_USD] += BONUS_CARDS
    assert held == printed


def _check_ships(game: Game) -> None:
    for color in game.players:
        ships = game.ships(color)
        assert [s.id for s in ships] == [f"{color}-{n}" for n in range(1, 5)]
        for ship in ships:
            on_board = ship.status in (ShipStatus.ON_BOARD, ShipStatus.UNDER_CLOUD)
            assert (ship.location is not None) == on_board
            if ship.location is not None:
                blocked = ship.location in game.blocked
                assert (ship.status is ShipStatus.UNDER_CLOUD) == blocked
            assert ship.previous_port in game.board.ports
            if ship.location in game.board.ports:
                assert ship.previous_port == ship.location


def _port_counts(game: Game) -> dict[str, int]:
    return {p: len(game.ships_at(p)) for p in game.board.ports}


def _check_capacity(game: Game, before: dict[str, int], events: list[Event]) -> None:
    capacity = game.port_capacity()
    after = _port_counts(game)
    bumped_into = {e.port for e in events if isinstance(e, Bumped)}
    for port, n in after.items():
        if n > capacity:
            # only a bump-back may put a port over capacity
            assert n <= before[port] or port in bumped_into, (port, before[port], n)
    for e in events:
        if isinstance(e, Docked):
            assert after[e.port] <= capacity
            color = e.ship.rpartition("-")[0]
            own = sum(1 for s in game.ships_at(e.port) if s.startswith(color + "-"))
            assert own <= 2


def _play_checked(seed: int, players: int, options: GameOptions, board: Board) -> Game:
    game = Game.new(players, seed=seed, board=board, options=options)
    choose = random_chooser(random.Random(seed))
    _check_cards(game)
    _check_ships(game)
    while not game.is_over():
        assert game.round <= MAX_ROUNDS, "the game did not end"
        before = _port_counts(game)
        if game.phase is Phase.CLOUD:
            events = game.cloud_phase()
        else:
            moves = game.legal_moves(game.roll_die())
            assert moves
            assert len(set(moves)) == len(moves)
            assert all(m.color == game.active for m in moves)
            events = game.push(choose(game, moves))
        _check_cards(game)
        _check_ships(game)
        _check_capacity(game, before, events)
    return game


@FAST
@given(games)
def test_cards_ships_and_capacity_hold_in_every_game(
    classic_board: Board, spec: tuple[int, int, GameOptions]
) -> None:
    seed, players, options = spec
    game = _play_checked(seed, players, options, classic_board)
    outcome = game.outcome()
    assert outcome is not None
    assert game.phase is Phase.OVER
    totals = game.totals()
    best = max(totals.values())
    assert outcome.winners == tuple(c for c in game.players if totals[c] == best)
    assert outcome.totals == totals
    if outcome.reason is EndReason.TARGET:
        assert best >= options.target_usd
    elif outcome.reason is EndReason.CARDS_GONE:
        assert game.bonus_left == 0 and not any(game.pile(p) for p in PRODUCT_CARDS_USD)
    else:
        assert any(all(s.status is ShipStatus.OUT for s in game.ships(c)) for c in game.players)


@settings(max_examples=200, deadline=None)
@given(games, st.integers(0, 10_000))
def test_state_round_trips_and_replays_exactly(
    classic_board: Board, spec: tuple[int, int, GameOptions], stop_at: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    choose = random_chooser(random.Random(seed))
    steps = 0
    while not game.is_over() and steps < stop_at:
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        elif game.die is None:
            game.roll_die()
        else:
            game.push(choose(game, game.legal_moves()))
        steps += 1
    text = to_json(game)
    restored = from_json(text, classic_board)
    assert to_json(restored) == text
    replayed = replay(game_record(game), classic_board)
    assert to_json(replayed) == text
    # both go on identically
    if not game.is_over():
        for g in (game, restored):
            pick = random_chooser(random.Random(stop_at))
            while not g.is_over():
                assert g.round <= MAX_ROUNDS
                if g.phase is Phase.CLOUD:
                    g.cloud_phase()
                else:
                    g.push(pick(g, g.legal_moves(g.die or g.roll_die())))
        assert to_json(restored) == to_json(game)


@settings(max_examples=100, deadline=None)
@given(games, st.integers(0, 300))
def test_copy_is_independent(
    classic_board: Board, spec: tuple[int, int, GameOptions], plies: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    pick = random_chooser(random.Random(seed))
    for _ in range(plies):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        else:
            game.push(pick(game, game.legal_moves(game.roll_die())))
    snapshot = to_json(game)
    twin = game.copy()
    assert to_json(twin) == snapshot
    while not twin.is_over():
        assert twin.round <= MAX_ROUNDS
        if twin.phase is Phase.CLOUD:
            twin.cloud_phase()
        else:
            twin.push(pick(twin, twin.legal_moves(twin.roll_die())))
    assert to_json(game) == snapshot


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 200),
    st.integers(0, 8),
    st.integers(0, 8),
    st.integers(0, 7),
    st.floats(0.0, 359.999),
)
def test_cloud_phase_sweeps_exactly_what_swept_ships_says(
    classic_board: Board, seed: int, plies: int, col: int, row: int, letter: int, angle: float
) -> None:
    game = Game.new(4, seed=seed, board=classic_board)
    pick = random_chooser(random.Random(seed))
    for _ in range(plies):
        if game.is_over():
            return
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        else:
            game.push(pick(game, game.legal_moves(game.roll_die())))
    if game.is_over():
        return
    game.set_cloud(CloudPose(col, row, letter))
    game.set_turn(game.active, Phase.CLOUD)
    spin = Spinner(classic_board.spinner).at(angle)
    path = plan_spin(classic_board.grid, game.pose, spin)
    expected = {
        p.partition("#")[0]
        for p in swept_ships(classic_board, path, game.sweep_points(), STAND_TOLERANCE_MM)
    }
    events = game.cloud_phase(spin, capture=())
    got = next((e.ships for e in events if isinstance(e, Swept)), ())
    assert set(got) == expected
