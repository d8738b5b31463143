"""A second token on a landing space, and the ties the colours cannot settle: a dock and a
bump of an own ship back into the same port with the same die (rendered boards). The
colours alone (`referee.judge`) leave the bump with its ship beside the mover tied with
the dock; the tokens counted on the landing space (the belief, `ship_phase.decide`) tell
them apart."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from referee_helpers import BESIDE_MM, Camera
from synthetic import after, moved_term, set_dock_or_bump

from bermuda_hw.controller.belief import weigh
from bermuda_hw.controller.identify import difference
from bermuda_hw.controller.moved import NUDGED, SWAPPED, replaced_loglik
from bermuda_hw.controller.referee import (
    Outcome,
    judge,
    observation_evidence,
    same_board_bumps,
)
from bermuda_hw.controller.ship_phase import ShipDecision, Take, Tied, decide
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Consequence, consequence, contents
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.sim.render import CameraModel
from bermuda_hw.vision.types import BoardObservation

SET_DOWN_MM = 6.0  # a ship set down beside the one it bumps stands this far across its space


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def dock_or_bump(board: Board) -> tuple[Game, str, str]:
    """`set_dock_or_bump` on a new game: (game, x, z)."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    return (game, *set_dock_or_bump(game))


def look(
    camera: Camera,
    game: Game,
    places: Mapping[str, Sequence[str]] | None = None,
    nudge: Mapping[str, float] = {},
    along: Mapping[str, float] = {},
    off_board: Sequence[tuple[str, float, float]] = (),
    turn: Mapping[str, float] = {},
) -> BoardObservation:
    """A fresh stable observation of a board (reported even if its ships read as before)."""
    camera.forget()
    return camera.game(game, places, off_board, nudge=nudge, along=along, turn=turn)


Position = tuple[Game, str, str, BoardObservation, Camera]


@pytest.fixture(scope="module")
def position(board: Board) -> Position:
    game, x, z = dock_or_bump(board)
    camera = Camera(board)
    return game, x, z, camera.game(game), camera


def boards(board: Board, position: Position) -> dict[str, BoardObservation]:
    """The boards the turn may leave, rendered: the dock; the bump with its ship back and
    the mover set down beside where it stood; the bump with its ship still where it stood
    and the mover set down beside it."""
    game, x, z, _, camera = position
    dock = contents(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    landing = {p: list(c) for p, c in contents(game).items()}
    landing.pop(x)
    landing[z] = ["yellow", "yellow"]
    return {
        "dock": look(camera, game, dock),
        "back, beside": look(camera, game, dock, nudge={z: SET_DOWN_MM}),
        "landing": look(camera, game, landing, nudge={z: BESIDE_MM / 2}),
    }


@pytest.fixture(scope="module")
def seen(board: Board, position: Position) -> dict[str, BoardObservation]:
    return boards(board, position)


def test_the_same_board_is_known_from_the_die(board: Board) -> None:
    game, x, z = dock_or_bump(board)
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    assert contents(dock) == contents(bump) and consequence(dock) != consequence(bump)
    assert same_board_bumps(game, 1) == {z}
    # with a 4 the ship cannot land on z: nothing looks like the dock
    assert same_board_bumps(game, 4) == frozenset()


def taken(decision: ShipDecision) -> Consequence | None:
    """The consequence a decision takes, if it takes one."""
    return decision.group.consequence if isinstance(decision, Take) else None


def test_a_second_token_beside_the_first_is_seen(board: Board, position: Position) -> None:
    """The ship landed on where it stood and the mover set down beside it, on either side:
    two tokens counted there, the bump taken (with the die or without, with the board
    before or without). The mover lifted and the token on z nudged across its space or
    along it, or left alone: one token, no bump taken."""
    game, x, z, before, camera = position
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    places = {p: list(c) for p, c in contents(game).items()}
    places.pop(x)
    places[z] = ["yellow", "yellow"]
    for side in (1.0, -1.0):
        seen = look(camera, game, places, nudge={z: side * BESIDE_MM / 2})
        for dice in (None, frozenset({1})):
            for reference in (before, None):
                assert taken(decide(game, seen, dice, reference=reference)) == bump, (side, dice)
    lifted = {p: list(c) for p, c in contents(game).items()}
    lifted.pop(x)
    for nudge_mm in (0.0, 0.5, 3.0, -5.0):
        seen = look(camera, game, lifted, nudge={z: nudge_mm})
        assert taken(decide(game, seen, frozenset({1}), reference=before)) is None, nudge_mm
    for along_mm in (5.0, -8.0):
        seen = look(camera, game, lifted, along={z: along_mm})
        assert taken(decide(game, seen, frozenset({1}), reference=before)) is None, along_mm


def test_a_ship_beside_the_landing_space_leaves_the_count_alone(board: Board) -> None:
    """Another player's ship on the space next to the landing space, pushed by a hand or
    not, is counted on its own space: the bump with its ship beside the mover is taken."""
    game = Game.new(2, seed=1, board=board, first_player="yellow")
    x, z = set_dock_or_bump(game)
    near = min(
        (s for s in board.spaces.values() if s.kind == "path" and s.id not in (x, z)),
        key=lambda s: math.dist(s.position, board.spaces[z].position),
    ).id
    blue = next(s for s in game.ships("blue") if s.location is not None)
    game.set_ship(blue.id, near, blue.location)
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    camera = Camera(board)
    before = camera.game(game)
    places = {p: list(c) for p, c in contents(game).items()}
    places.pop(x)
    places[z] = ["yellow", "yellow"]
    for pushed_mm in (0.0, 4.0):
        seen = look(camera, game, places, nudge={z: BESIDE_MM / 2, near: pushed_mm})
        assert taken(decide(game, seen, frozenset({1}), reference=before)) == bump, pushed_mm


def test_the_colours_alone_leave_the_dock_and_the_bump_tied(
    board: Board, position: Position, seen: dict[str, BoardObservation]
) -> None:
    """The dock, and the bump with its ship back (the mover beside where it stood): the
    colours tie them, with or without the die, and so does the decision without the board
    before. With it, both stay questions: the dock's token on the landing space reads
    untouched, which a bump also leaves when the player lifts the mover instead of the
    ship it landed on (`controller.moved`)."""
    game, x, z, before, _ = position
    dock = consequence(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    for name in ("dock", "back, beside"):
        for dice in (None, frozenset({1})):
            verdict = judge(game, seen[name], dice)
            assert verdict.outcome is Outcome.TIE, (name, dice)
            assert {dock, bump} <= {g.consequence for g in verdict.tied}
            assert isinstance(decide(game, seen[name], dice), Tied), (name, dice)
    for dice in (None, frozenset({1})):
        for name in ("dock", "back, beside"):
            decision = decide(game, seen[name], dice, reference=before)
            assert isinstance(decision, Tied), (name, dice)


def test_the_bumped_ship_beside_the_mover_shows_the_bump_whole(
    board: Board, position: Position, seen: dict[str, BoardObservation]
) -> None:
    """The ship landed on still where it stood, the mover beside it: the tokens counted
    there take the bump (no put-back asked first), with the die known or not."""
    game, x, z, before, _ = position
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    for dice in (None, frozenset({1})):
        assert taken(decide(game, seen["landing"], dice, reference=before)) == bump, dice


def test_a_mover_in_hand_and_a_nudged_token_show_no_bump(
    board: Board, position: Position, seen: dict[str, BoardObservation]
) -> None:
    """The mover lifted (held while the player decides) and the token on z nudged: one
    token there, so nothing is taken."""
    game, x, z, before, camera = position
    lifted = {p: list(c) for p, c in contents(game).items()}
    lifted.pop(x)
    for nudge_mm in (0.0, 4.0):
        seen_now = look(camera, game, lifted, nudge={z: nudge_mm})
        for dice in (None, frozenset({1})):
            assert taken(decide(game, seen_now, dice, reference=before)) is None, nudge_mm


@pytest.mark.parametrize("then", ["set back along its length", "under a shadow"])
def test_a_token_that_showed_little_of_itself_then_changes_nothing(board: Board, then: str) -> None:
    """The board that matched the game showed z's token poorly (set 10 mm back along its
    length, or a person's shadow over it); now it shows it whole. The counts are the
    board's own: the dock stays a question, and the mover lifted while the player decides
    is no move."""
    game, x, z = dock_or_bump(board)
    zx, zy = board.spaces[z].position
    if then == "under a shadow":
        before = Camera(board, CameraModel(shadows=((zx, zy, 25.0, 0.5),))).game(game)
    else:
        before = Camera(board).game(game, along={z: -10.0})
    assert not difference(game, before)
    camera = Camera(board)
    dock = after(game, Move("yellow-1", (x, "SUGAR")), 1)
    bump = after(game, Move("yellow-1", (x, z)), 1)
    decision = decide(game, look(camera, game, contents(dock)), frozenset({1}), reference=before)
    assert isinstance(decision, Tied)
    assert {consequence(dock), consequence(bump)} <= {g.consequence for g in decision.groups}
    lifted = {p: list(c) for p, c in contents(game).items()}
    lifted.pop(x)
    decision = decide(game, look(camera, game, lifted), frozenset({1}), reference=before)
    assert taken(decision) is None


def test_a_ship_left_as_it_stood_reads_untouched(board: Board, position: Position) -> None:
    """The ship on z read where it stood and turned as it stood, board after board: likelier
    untouched, nearly as much as a token can say (the camera's own shift is measured on
    the other ships; a bump leaves it untouched one time in 1 / SWAPPED). Moved a third
    of a millimetre across its space, a few along it, or turned a few degrees where it
    stands: likelier another token, but never by more than a nudged token allows."""
    game, _, z, before, camera = position
    for _ in range(3):
        assert moved_term(board, before, look(camera, game), z) < math.log(SWAPPED) + 0.5
    cap = -math.log(NUDGED) + 1e-9
    for shift in ({"nudge": {z: 0.3}}, {"nudge": {z: -1.0}}, {"along": {z: 3.0}}):
        seen = look(camera, game, **shift)  # type: ignore[arg-type]
        assert 0.0 < moved_term(board, before, seen, z) <= cap, shift
    for turn_deg in (3.0, -8.0, 90.0):
        seen = look(camera, game, turn={z: turn_deg})
        assert 0.0 < moved_term(board, before, seen, z) <= cap, turn_deg


def test_a_token_beside_it_or_none_is_not_judged(board: Board, position: Position) -> None:
    """Two tokens on z now (read as one reading at their middle, counted as two), or none: no
    single token to follow, so no term."""
    game, _, z, before, camera = position
    places = {p: list(c) for p, c in contents(game).items()}
    places[z] = ["yellow", "yellow"]
    seen = look(camera, game, places, nudge={z: BESIDE_MM / 2})
    now = observation_evidence(board, seen)
    was = observation_evidence(board, before)
    assert replaced_loglik(board, now, before, was, seen, frozenset({z})) == {}
    places.pop(z)
    empty = look(camera, game, places)
    terms = replaced_loglik(
        board, observation_evidence(board, empty), before, was, empty, frozenset({z})
    )
    assert terms == {}


def test_too_few_ships_on_both_boards_tell_no_camera_shift(board: Board) -> None:
    """With fewer than MIN_SAMPLES ships standing alone on both boards, the camera's own
    shift is not known, and no token is judged."""
    game, _x, z = dock_or_bump(board)
    camera = Camera(board)
    before = camera.game(game)
    alone = {z: ["yellow"]}
    seen = look(camera, game, alone)
    terms = replaced_loglik(
        board,
        observation_evidence(board, seen),
        camera.game(game, alone),
        observation_evidence(board, before),
        seen,
        frozenset({z}),
    )
    assert terms == {}


def test_told_to_leave_both_an_untouched_ship_leaves_the_dock_a_question(
    board: Board, position: Position, seen: dict[str, BoardObservation]
) -> None:
    """The roll named z (`held`): the player who lands there leaves both ships until asked,
    as most do (`FOLLOWED`). The dock leaves z's ship untouched, and the belief holds the
    dock likelier for it, but a player who put back at once may have lifted the mover
    instead: still a question, as are the bump with its ship back and the mover beside
    where it stood, and a token set down where it stood but turned. The bump shown whole is
    taken."""
    game, x, z, before, camera = position
    dock = consequence(after(game, Move("yellow-1", (x, "SUGAR")), 1))
    bump = consequence(after(game, Move("yellow-1", (x, z)), 1))
    held = frozenset({z})
    verdict = judge(game, seen["dock"], frozenset({1}))
    assert verdict.outcome is Outcome.TIE
    assert {dock, bump} <= {g.consequence for g in verdict.tied}
    turned = look(
        camera, game, contents(after(game, Move("yellow-1", (x, "SUGAR")), 1)), turn={z: 6.0}
    )
    for name, now in (
        ("dock", seen["dock"]),
        ("back, beside", seen["back, beside"]),
        ("turned", turned),
    ):
        decision = decide(game, now, frozenset({1}), reference=before, held=held)
        assert isinstance(decision, Tied), name
    sure = weigh(game, seen["dock"], frozenset({1}), reference=before, held=held)
    blind = weigh(game, seen["dock"], frozenset({1}), held=held)
    assert sure.best.consequence == dock and sure.best.posterior > blind.best.posterior
    assert (
        dict(sure.moved)[z]
        < 0.0
        < dict(weigh(game, turned, frozenset({1}), reference=before, held=held).moved)[z]
    )
    decision = decide(game, seen["landing"], frozenset({1}), reference=before, held=held)
    assert isinstance(decision, Take) and decision.group.consequence == bump
