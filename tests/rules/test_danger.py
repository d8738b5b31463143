"""The danger map against a brute-force enumeration of the spinner, written independently."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, Spinner, plan_spin, swept_ships
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.danger import place_odds, spinner_outcomes, sweep_odds
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.record import to_json

BOARD = load_board()


def brute_force(game: Game) -> tuple[dict[str, Fraction], Fraction]:
    """Point the spinner at the middle of each of many equal slices of the circle.

    The slices are fine enough that every ring's sector boundary falls on a
    slice boundary, so counting slices gives the exact probability.
    """
    rings = BOARD.spinner
    lcm = math.lcm(len(rings.letters), len(rings.numbers), len(rings.directions))
    slices = lcm * 7
    spinner = Spinner(rings)
    points = game.sweep_points()
    counts: Counter[str] = Counter()
    leaves = 0
    for i in range(slices):
        spin = spinner.at((i + 0.5) * 360.0 / slices)
        path = plan_spin(BOARD.grid, game.pose, spin)
        swept = swept_ships(BOARD, path, points, STAND_TOLERANCE_MM)
        for ship in {p.partition("#")[0] for p in swept}:
            counts[ship] += 1
        leaves += path.leaves_board
    odds = {sid: Fraction(counts[sid], slices) for sid in game.ship_positions()}
    return odds, Fraction(leaves, slices)


def played(seed: int, turns: int) -> Game:
    """A game some random turns in (moves and cloud phases by the engine)."""
    rng = random.Random(seed)
    game = Game.new(rng.choice((2, 3, 4)), seed=seed, board=BOARD)
    for _ in range(turns):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
            continue
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    return game


def test_outcomes_cover_the_circle_exactly() -> None:
    outcomes = spinner_outcomes(BOARD.spinner)
    assert sum(o.probability for o in outcomes) == 1
    assert len({o.spin for o in outcomes}) == len(outcomes)
    spinner = Spinner(BOARD.spinner)
    for outcome in outcomes:
        assert spinner.at(outcome.angle_deg) == outcome.spin


def test_start_position_matches_brute_force() -> None:
    game = Game.new(4, seed=3, board=BOARD)
    odds, leaves = brute_force(game)
    danger = sweep_odds(game)
    assert dict(danger.swept) == odds
    assert danger.leaves_board == leaves
    assert any(odds.values())  # the classic board's ports are within reach of some spins


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60))
def test_any_position_matches_brute_force(seed: int, turns: int) -> None:
    game = played(seed, turns)
    before = to_json(game)
    danger = sweep_odds(game)
    assert to_json(game) == before  # the game itself is untouched
    if game.is_over():
        assert not any(danger.swept.values())
        return
    odds, leaves = brute_force(game)
    assert dict(danger.swept) == odds
    assert danger.leaves_board == leaves
    assert all(0 <= p <= 1 for p in danger.swept.values())


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_the_danger_of_every_place_from_any_cloud_pose(data: st.DataObject) -> None:
    """`place_odds` against every place's berths and spaces, each spinner outcome in full."""
    grid = BOARD.grid
    pose = CloudPose(
        data.draw(st.integers(0, grid.cols - 1)),
        data.draw(st.integers(0, grid.rows - 1)),
        data.draw(st.integers(0, 7)),
    )
    points: dict[str, tuple[float, float]] = {}
    for sid, space in BOARD.spaces.items():
        port = BOARD.ports.get(sid)
        for k, point in enumerate(port.berths if port else (space.position,)):
            points[f"{sid}#{k}"] = point
    expected = dict.fromkeys(BOARD.spaces, Fraction(0))
    leaves = Fraction(0)
    for outcome in spinner_outcomes(BOARD.spinner):
        path = plan_spin(grid, pose, outcome.spin, BOARD.cloud)
        for place in {
            p.partition("#")[0] for p in swept_ships(BOARD, path, points, STAND_TOLERANCE_MM)
        }:
            expected[place] += outcome.probability
        leaves += outcome.probability if path.leaves_board else 0
    odds = place_odds(BOARD, pose)
    assert odds.swept == expected
    assert odds.leaves_board == leaves
