"""How far a token moved (`controller.moved`) on synthetic readings: the camera's own shift
measured on the other ships, and a landing space's token scored as the one that stood
there or another set down in its place."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import after, moved_term, observe, set_dock_or_bump

from bermuda_hw.controller.belief import FOLLOWED, PRIOR_BUMP, Belief, weigh
from bermuda_hw.controller.moved import NUDGED, SWAPPED
from bermuda_hw.geometry import axis_deg
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Bump, consequence, contents
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation, ShipReading

#: each shot's own error of a token's position per axis, and of its axis: two shots of a
#: rendered board, each its stable run's average, differ by a spread of 0.033 mm and 0.5
#: degrees (`moved.STILL_FLOOR_MM`)
CAMERA_MM = 0.023
CAMERA_DEG = 0.35


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def shot(
    obs: BoardObservation, seed: int, moved: dict[str, tuple[float, float, float]]
) -> BoardObservation:
    """The observation as a camera reads it: every token a little off where it stands and
    how it is turned (the camera's own spread), and the ships on `moved` spaces shifted by
    (dx, dy) mm and turned by degrees."""
    rng = random.Random(seed)
    board = load_board()
    ships: list[ShipReading] = []
    for s in obs.ships:
        dx, dy, dt = moved.get(s.space or "", (0.0, 0.0, 0.0))
        space = board.spaces.get(s.space or "")
        heading = space.heading_deg if space is not None and s.berth is None else 0.0
        ships.append(
            replace(
                s,
                x_mm=s.x_mm + dx + rng.gauss(0.0, CAMERA_MM),
                y_mm=s.y_mm + dy + rng.gauss(0.0, CAMERA_MM),
                axis_deg=axis_deg(heading + dt + rng.gauss(0.0, CAMERA_DEG)),
            )
        )
    return replace(obs, ships=tuple(ships))


def position(board: Board) -> tuple[Game, str, str, BoardObservation]:
    game = Game.new(3, seed=4, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    return game, x, z, observe(board, contents(game))


shifts = st.floats(0.0, 8.0)
turns = st.floats(-90.0, 90.0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), shift=shifts, angle=st.floats(0.0, 2 * math.pi), turn=turns)
def test_a_shift_says_replaced_at_most_as_a_nudge_allows(
    seed: int, shift: float, angle: float, turn: float
) -> None:
    """Whatever the token on the landing space reads, it says "another token" at most
    1 / NUDGED times more than "the same one", and "the same one" at most 1 / SWAPPED times
    more (after a bump, the ship landed on may stand untouched all the same); "another
    token" more the farther it moved."""
    board = load_board()
    _, _, z, obs = position(board)
    before = shot(obs, seed, {})
    move = (shift * math.cos(angle), shift * math.sin(angle), turn)
    farther = ((2 * shift + 0.5) * math.cos(angle), (2 * shift + 0.5) * math.sin(angle), turn)
    near, far = (moved_term(board, before, shot(obs, seed + 1, {z: m}), z) for m in (move, farther))
    for t in (near, far):
        assert math.log(SWAPPED) - 0.2 <= t <= -math.log(NUDGED) + 1e-9
    assert far >= near - 1e-9


def test_a_token_left_alone_reads_untouched() -> None:
    """The same board shot twice: the token on the landing space reads likelier the one
    that stood there, every time; mostly nearly as much as a token can say (a bump leaves
    it untouched too, one time in 1 / SWAPPED)."""
    board = load_board()
    _, _, z, obs = position(board)
    terms = [
        moved_term(board, shot(obs, 2 * k, {}), shot(obs, 2 * k + 1, {}), z) for k in range(100)
    ]
    assert max(terms) < 0.0
    assert sum(t < math.log(SWAPPED) + 0.1 for t in terms) >= 60


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shift=shifts,
    turn=turns,
    held=st.booleans(),
    known=st.booleans(),
)
def test_no_reading_of_the_token_makes_the_bump_decisive(
    seed: int, shift: float, turn: float, held: bool, known: bool
) -> None:
    """The dock's board, its landing space's token read anywhere on its space and turned
    any way: the bump with its ship back is never decisive (the colours tie it with the
    dock, and the token can only weaken the dock)."""
    board = load_board()
    game, x, z, obs = position(board)
    dock = contents(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    before = shot(obs, seed, {})
    now = shot(observe(board, dock), seed + 1, {z: (shift, 0.0, turn)})
    belief = weigh(
        game,
        now,
        frozenset({1}) if known else None,
        reference=before,
        held=frozenset({z}) if held else frozenset(),
    )
    assert not (belief.decisive and belief.best.consequence == bump)
    assert dict(belief.moved).keys() == {z}  # the token on z was judged


def test_an_untouched_token_never_makes_the_dock_decisive() -> None:
    """The roll named z, or not; the dock leaves z's token where it stood, turned as it
    stood. The belief holds the dock likelier with the board before than without it, but is
    never sure of it: a player putting back an own ship landed on may lift the mover
    instead (SWAPPED), and the bump leaves the same board."""
    board = load_board()
    game, x, z, obs = position(board)
    done = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    dock = consequence(done)
    for k in range(30):
        now = shot(observe(board, contents(done)), 2 * k + 1, {})
        for dice in (frozenset({1}), None):
            for held in (frozenset({z}), frozenset()):
                seen = weigh(game, now, dice, reference=shot(obs, 2 * k, {}), held=held)
                blind = weigh(game, now, dice, held=held)
                assert not seen.decisive and not blind.decisive
                assert seen.best.consequence == dock
                assert seen.best.posterior > blind.best.posterior


def test_told_to_leave_both_the_board_with_both_there_takes_most_of_the_bump() -> None:
    """The roll named z: a bump there with its ship back (or on its way) weighs 1 - FOLLOWED
    of what it weighs where nobody was told to leave both, and with both there FOLLOWED
    more; the bump in all, and the dock, weigh the same."""
    board = load_board()
    game, x, z, _ = position(board)
    now = shot(observe(board, contents(after(game, Move("yellow-1", (x, "SUGAR")), 1))), 1, {})
    told = weigh(game, now, frozenset({1}), held=frozenset({z}))
    free = weigh(game, now, frozenset({1}))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    dock = consequence(after(game, Move("yellow-1", (x, "SUGAR")), 1))

    def prior(belief: Belief, key: object) -> float:
        return math.exp(next(h.log_prior for h in belief.hypotheses if h.consequence == key))

    assert prior(told, bump) == pytest.approx(prior(free, bump))
    assert prior(told, dock) == pytest.approx(prior(free, dock))
    # both left on z as told, counted there: of the bump's boards only that one fits, and
    # it weighs FOLLOWED more of the bump's prior than where nobody was told
    both = contents(after(game, Move("yellow-1", (x, z)), 1))
    landed = {**both, z: ("yellow", "yellow"), "SUGAR": contents(game).get("SUGAR", ())}
    seen = observe(board, landed, counted=True)

    def weight(belief: Belief) -> float:
        h = next(h for h in belief.hypotheses if h.consequence == bump)
        return math.exp(h.log_prior + h.log_likelihood)

    ratio = weight(weigh(game, seen, frozenset({1}), held=frozenset({z}))) / weight(
        weigh(game, seen, frozenset({1}))
    )
    landing = PRIOR_BUMP[Bump.LANDING]
    assert ratio == pytest.approx((FOLLOWED + (1 - FOLLOWED) * landing) / landing, rel=0.01)
