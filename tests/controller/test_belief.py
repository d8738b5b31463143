"""The referee's belief on synthetic evidence: one posterior over the turn, decisive or not."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import after, observe, set_dock_or_bump, two_plain_moves

from bermuda_hw.controller import belief
from bermuda_hw.controller.belief import (
    ABSENT_SD,
    ALPHA,
    FOLLOWED,
    HIDDEN,
    MAX_ABSENT_SD,
    Explanation,
    fill_noise,
    weigh,
)
from bermuda_hw.controller.ship_phase import Take, decide
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import consequence, contents
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def moved(game: Game, die: int, index: int = 0) -> Game:
    move = [m for m in game.legal_moves(die) if not m.is_pass][index]
    return after(game, move, die)


def lifted(game: Game, place: str) -> dict[str, list[str]]:
    """The game's board with one of the active player's ships lifted off `place`."""
    board = {p: list(c) for p, c in contents(game).items()}
    board[place].remove(game.active)
    return board


def test_the_board_as_the_game_has_it_is_no_move(board: Board) -> None:
    game = Game.new(3, seed=2, board=board)
    belief = weigh(game, observe(board, contents(game)))
    assert belief.best.is_none
    assert belief.some_move < ALPHA


@pytest.mark.parametrize("known", [False, True])
def test_a_plain_move_is_decisive(board: Board, known: bool) -> None:
    game = Game.new(2, seed=1, board=board)
    done = moved(game, 3)
    belief = weigh(game, observe(board, contents(done)), frozenset({3}) if known else None)
    assert belief.decisive
    assert belief.best.kind is Explanation.MOVE and belief.best.consequence == consequence(done)


def test_a_ship_held_in_hand_decides_nothing(board: Board) -> None:
    # the mover lifted off its port while the player thinks: no board of a finished move
    game = Game.new(2, seed=1, board=board)
    start = next(s.location for s in game.ships(game.active) if s.location is not None)
    assert start is not None
    belief = weigh(game, observe(board, lifted(game, start)), frozenset({4}))
    assert not (belief.decisive and belief.best.kind is Explanation.MOVE)
    assert belief.some_move < 1.0 - ALPHA


def test_a_held_ship_beside_its_own_ship_in_reach_commits_no_bump(board: Board) -> None:
    # the own ship within the die's reach makes "landed on it, both there" read the same as
    # "lifted off, in hand": the belief keeps both open
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, _z = set_dock_or_bump(game)
    belief = weigh(game, observe(board, lifted(game, x)), frozenset({1}))
    assert not belief.decisive
    assert belief.mass(Explanation.IN_HAND) > ALPHA


def test_a_counted_board_with_a_ship_in_hand_is_no_mover_hidden_under_the_ship_in_reach(
    board: Board,
) -> None:
    # yellow holds its ship from x while a blue ship stands on z, where the die takes it:
    # the fill cannot tell "in hand" from "landed on z, wholly under the blue ship"; with
    # the tokens counted, a token wholly hidden under another is rare (HIDDEN) and the
    # ship in hand is the likeliest explanation
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    game.set_ship("yellow-2", None)
    game.set_ship(game.ships("blue")[0].id, z, "SUGAR")
    held = lifted(game, x)
    fill_only = weigh(game, observe(board, held), frozenset({1}))
    assert fill_only.best.kind is Explanation.MOVE
    counted = weigh(game, observe(board, held, counted=True), frozenset({1}))
    assert counted.best.kind is Explanation.IN_HAND
    assert counted.some_move < fill_only.some_move * 2 * HIDDEN


def test_a_miscount_is_never_explained_as_a_legal_bump(board: Board) -> None:
    # yellow rolls 2 with its own ship two spaces on, and moves only 1: the board reads as
    # a bump of the own ship with one place (where the mover stopped) unexplained
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    w = sorted(s for s in board.neighbours(z) if s not in board.ports and s != x)[0]
    game.set_ship("yellow-2", w, "SUGAR")
    assert any(m.end == w for m in game.legal_moves(2) if m.ship == "yellow-1")
    wrong = lifted(game, x)
    wrong.setdefault(z, []).append("yellow")
    belief = weigh(game, observe(board, wrong), frozenset({2}))
    assert belief.some_move < 1.0 - ALPHA
    assert not (belief.decisive and belief.best.kind is Explanation.MOVE)
    # the move made is among the explanations, named as it was made
    named = [h for h in belief.hypotheses if h.kind is Explanation.ILLEGAL]
    assert (named[0].place, named[0].target) == (x, z)
    assert named[0].posterior > ALPHA
    # with the die on the table, the same board is the legal move of a 1
    legal = weigh(game, observe(board, wrong))
    assert legal.best.kind is Explanation.MOVE and legal.best.posterior > 0.99
    assert legal.mass(Explanation.ILLEGAL) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_token_set_off_its_place_counts_as_one_whole_token(board: Board, seed: int) -> None:
    # the die on the table; the mover set 5 mm off its new place's centre fills a fifth of
    # the place's disk: against "still in a hand" that alone is not decisive, its area of
    # one whole token on the place is
    game, move, _ = two_plain_moves(board, seed)
    assert move.end is not None
    done = after(game, move, move.steps)
    fill_only = weigh(game, observe(board, contents(done), weak={move.end: 0.18}, seed=seed))
    assert not fill_only.decisive and fill_only.mass(Explanation.IN_HAND) > ALPHA
    counted = weigh(
        game, observe(board, contents(done), weak={move.end: 0.18}, seed=seed, counted=True)
    )
    assert counted.decisive and counted.best.consequence == consequence(done)


def test_two_tokens_of_a_colour_counted_on_a_place_show_the_bump_of_an_own_ship(
    board: Board,
) -> None:
    # yellow-1 lands on yellow-2, both left there: one colour, so the fill cannot tell the
    # bump from yellow-1 still in hand; two tokens' area on the landing space can
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    bump = next(m for m in game.legal_moves(1) if m.end == z)
    both = lifted(game, x)
    both[z].append("yellow")
    for counted in (False, True):
        belief = weigh(game, observe(board, both, counted=counted), frozenset({1}))
        assert belief.decisive is counted
        assert belief.best.consequence == consequence(after(game, bump, 1))
    # and one token's area there is no bump left on the landing space: the held ship stays
    # as likely as before (the bump with its ship lifted off reads the same)
    held = weigh(game, observe(board, lifted(game, x), counted=True), frozenset({1}))
    assert not held.decisive and held.mass(Explanation.IN_HAND) > 0.1


@pytest.mark.parametrize(
    ("start", "landing", "die"), [("SUGAR", "S25", 1), ("OIL", "S12", 1), ("BANANAS", "S18", 1)]
)
def test_a_bump_left_beside_its_mover_is_taken_with_the_die_on_the_table(
    board: Board, start: str, landing: str, die: int
) -> None:
    # yellow lands on blue's ship and both stay there. A place read with two tokens is
    # left out of the misread's bound (docs/belief.md), so the ship in a hand from `start`
    # with the landing misread is no rival, and the bump is taken with no die known. With
    # two-token contents in the misread's best fit, these boards are asked about.
    game = Game.new(2, seed=1, board=board)
    assert game.active == "yellow"
    other = next(s for s in game.ships() if s.color == "blue" and s.location != start)
    game.set_ship(other.id, landing, other.location)
    bump = next(m for m in game.legal_moves(die) if m.start == start and m.end == landing)
    both = lifted(game, start)
    both[landing].append("yellow")
    observation = observe(board, both, seed=3, counted=True)
    decision = decide(game, observation, None)
    assert isinstance(decision, Take)
    assert decision.group.consequence == consequence(after(game, bump, die))
    belief = weigh(game, observation)
    assert belief.mass(Explanation.IN_HAND) < ALPHA * 1e-3
    # its board with one token on the landing is the ship still in a hand: not decisive
    held = weigh(game, observe(board, lifted(game, start), seed=3, counted=True))
    assert not held.decisive


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ship_seen_in_the_part_of_a_place_out_of_the_cloud_counts_whole(
    board: Board, seed: int
) -> None:
    # the mover's new place is half in the cloud's rim band and its token stands in the
    # half in view: its colour seen there tells what it tells in the clear (the covered
    # half shows no ship's colour)
    game, move, _ = two_plain_moves(board, seed)
    assert move.end is not None
    done = after(game, move, move.steps)
    belief = weigh(
        game, observe(board, contents(done), partly={move.end: 0.55}, seed=seed, counted=True)
    )
    assert belief.decisive and belief.best.consequence == consequence(done)
    # the ship's old place half in view and showing nothing tells little: the ship may stand
    # in the covered half, so "no move yet" stays open
    assert move.start is not None
    unseen = weigh(
        game, observe(board, contents(done), partly={move.start: 0.55}, seed=seed, counted=True)
    )
    still = next(h for h in unseen.hypotheses if h.is_none)
    assert not unseen.decisive and still.posterior > ALPHA


def test_the_same_board_of_a_dock_and_an_own_bump_is_a_tie(board: Board) -> None:
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    set_dock_or_bump(game)
    dock = next(m for m in game.legal_moves(1) if m.end == "SUGAR")
    belief = weigh(game, observe(board, contents(after(game, dock, 1))), frozenset({1}))
    assert not belief.decisive
    top = belief.moves[:2]
    assert len(top) == 2 and sum(h.posterior for h in top) > 1.0 - ALPHA


def test_a_stray_token_beside_a_clear_move_leaves_the_move_decisive(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    done = moved(game, 3)
    places = {p: list(c) for p, c in contents(done).items()}
    stray = next(s for s in ("S16", "S10", "S40") if s not in places)
    places[stray] = ["red"]
    belief = weigh(game, observe(board, places))
    assert belief.decisive and belief.best.consequence == consequence(done)


def test_the_die_known_rules_out_another_count(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    done = moved(game, 3)
    belief = weigh(game, observe(board, contents(done)), frozenset({5}))
    assert not any(h.consequence == consequence(done) for h in belief.moves if h.posterior > ALPHA)
    assert not (belief.decisive and belief.best.kind is Explanation.MOVE)


def test_a_place_under_the_cloud_weighs_nothing(board: Board) -> None:
    game = Game.new(2, seed=1, board=board)
    done = moved(game, 3)
    end = next(p for p in contents(done) if p not in contents(game))
    belief = weigh(game, observe(board, contents(done), hidden={end}), frozenset({3}))
    # the ship went somewhere the camera cannot see: other moves of the die explain it alike
    assert not belief.decisive


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    die=st.integers(1, 6),
    pick=st.integers(0, 20),
    noise=st.integers(0, 1000),
)
def test_a_decisive_move_is_the_move_made(seed: int, die: int, pick: int, noise: int) -> None:
    board = load_board()
    game = Game.new(2 + seed % 3, seed=seed, board=board)
    moves = [m for m in game.legal_moves(die) if not m.is_pass]
    if not moves:
        return
    done = after(game, moves[pick % len(moves)], die)
    for dice in (frozenset({die}), None):
        belief = weigh(game, observe(board, contents(done), seed=noise), dice)
        assert math.isclose(sum(h.posterior for h in belief.hypotheses), 1.0)
        if belief.decisive and belief.best.kind is Explanation.MOVE:
            assert belief.best.consequence == consequence(done)


def _noisy(observation: BoardObservation, absent_sd: float, seed: int = 0) -> BoardObservation:
    """The observation with every fill of a colour that is not there redrawn from a
    half-normal of scale `absent_sd` (a blurrier lens, another light)."""
    evidence = observation.evidence
    assert evidence is not None
    rng = np.random.default_rng(seed)
    f = evidence.fractions.copy()
    empty = f < 0.1
    f[empty] = np.abs(rng.normal(0.0, absent_sd, int(empty.sum())))
    return replace(observation, evidence=replace(evidence, fractions=f))


def test_the_fill_noise_is_the_floor_on_frames_as_measured(board: Board) -> None:
    """Fills as vision was measured to produce (a colour absent: 0-0.016): the floor."""
    game = Game.new(3, seed=2, board=board)
    evidence = observe(board, contents(game)).evidence
    assert evidence is not None
    assert fill_noise(evidence) == ABSENT_SD


@pytest.mark.parametrize("absent_sd", [0.06, 0.1, 0.3])
def test_the_fill_noise_is_measured_on_a_noisier_frame(board: Board, absent_sd: float) -> None:
    """Measured up to MAX_ABSENT_SD: a ship's fill stays three spreads above an empty's."""
    game = Game.new(3, seed=2, board=board)
    evidence = _noisy(observe(board, contents(game)), absent_sd).evidence
    assert evidence is not None
    expected = min(absent_sd, MAX_ABSENT_SD)
    assert fill_noise(evidence) == pytest.approx(expected, rel=0.2)


def test_a_cast_of_one_colour_widens_the_fill_noise(board: Board) -> None:
    """Empty places tinted towards one colour only (a coloured lamp, a cast): that
    colour's fills spread at 0.12, the others' as measured; the spread is that colour's."""
    game = Game.new(3, seed=2, board=board)
    observation = observe(board, contents(game))
    evidence = observation.evidence
    assert evidence is not None
    rng = np.random.default_rng(5)
    f = evidence.fractions.copy()
    column = f[:, 2]
    empty = column < 0.1
    column[empty] = np.abs(rng.normal(0.0, 0.12, int(empty.sum())))
    assert fill_noise(replace(evidence, fractions=f)) == pytest.approx(0.12, rel=0.25)


@pytest.mark.parametrize("seed", range(4))
def test_a_faint_fill_within_the_frames_own_noise_is_no_arrival(
    board: Board, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mover's ship gone from its start, its colour faint (0.14) at the landing, on a
    frame whose empty places show each colour at a spread of 0.1: measured on the frame,
    0.14 is no evidence of an arrival and the move is not the likeliest explanation; with
    the floor's spread (0.04) on the same frame, it would be taken for one."""
    game = Game.new(2, seed=3, board=board)
    ship = game.ships(game.active)[0].id
    game.set_ship(ship, "S10")
    game.set_die(2)
    move = next(m for m in game.legal_moves(2) if m.ship == ship and m.end not in board.ports)
    start = "S10"
    placed = {p: list(c) for p, c in contents(after(game, move, 2)).items()}
    noisy = _noisy(observe(board, placed, weak={move.end: 0.14}, seed=seed), 0.1, seed)
    evidence = noisy.evidence
    assert evidence is not None
    f = evidence.fractions.copy()
    mover = evidence.colors.index(game.active)
    f[evidence.index(start)] = 0.0
    f[evidence.index(move.end)] = 0.0
    f[evidence.index(move.end), mover] = 0.14
    noisy = replace(noisy, evidence=replace(evidence, fractions=f))
    assert weigh(game, noisy, frozenset({2})).some_move < 0.5
    monkeypatch.setattr(belief, "fill_noise", lambda evidence: ABSENT_SD)
    assert weigh(game, noisy, frozenset({2})).some_move > 0.9


def test_a_landing_cleared_against_the_rolls_instruction_weighs_as_a_bump_put_back(
    board: Board,
) -> None:
    """Told to leave a ship landed on z beside the mover, a player who clears z first (the
    mover still in the hand) goes against the instruction as one who puts the ship back:
    that board's prior drops by the same 1 - FOLLOWED as the bump's board with its ships
    back; the plain ship in a hand keeps its own."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    game.set_ship("yellow-2", None)
    blue = game.ships("blue")[0].id
    game.set_ship(blue, z, "BANANAS")
    seen = {p: list(c) for p, c in contents(game).items()}
    seen[x].remove("yellow")
    obs = observe(board, {p: c for p, c in seen.items() if c})

    def in_hand(held: frozenset[str]) -> list[float]:
        b = weigh(game, obs, frozenset({1}), held=held)
        return sorted(h.log_prior for h in b.hypotheses if h.kind is Explanation.IN_HAND)

    free, told = in_hand(frozenset()), in_hand(frozenset({z}))
    assert len(free) == len(told) >= 2
    scaled = [t - f for f, t in zip(free, told, strict=True) if not math.isclose(f, t)]
    assert scaled and all(math.isclose(d, math.log(1.0 - FOLLOWED)) for d in scaled)
    assert any(math.isclose(f, t) for f, t in zip(free, told, strict=True))


def test_every_explanation_names_the_board_it_leaves(board: Board) -> None:
    """What a later check of the places could tell it from (`ship_phase._settled_by`): a
    move leaves its candidate's board; a ship in a hand the board without it, and with a
    bump's ships already back where its landing was cleared first; a move against the
    rules its ship moved from its place to the other."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    game.set_ship("yellow-2", None)
    blue = game.ships("blue")[0].id
    game.set_ship(blue, z, "BANANAS")
    base = contents(game)
    seen = {p: list(c) for p, c in base.items()}
    seen[x].remove("yellow")
    b = weigh(game, observe(board, {p: c for p, c in seen.items() if c}), frozenset({1}))
    shapes = set()
    for h in b.hypotheses:
        changed = {p for p in set(base) | set(h.leaves) if base.get(p) != h.leaves.get(p)}
        if h.kind is Explanation.MOVE:
            assert h.best is not None and h.leaves == h.best.contents
        elif h.kind is Explanation.IN_HAND:
            assert h.place is not None and h.place in changed
            assert h.leaves.get(h.place, ()).count("yellow") == base[h.place].count("yellow") - 1
            shapes.add(len(changed))
        else:
            assert h.place is not None and h.target is not None and changed == {h.place, h.target}
    assert shapes == {1, 3}  # in a hand; and with the blue ship cleared from z to BANANAS
