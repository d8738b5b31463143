"""Tokens per place and colour: 0, 1 or 2+, from the colours' areas, with likelihoods."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from printing_trial import ARRANGEMENTS, RENDERERS, start_ships, token_scene

from bermuda_hw.rules.board import Board, Space
from bermuda_hw.sim.render import CloudState, Scene, ShipToken
from bermuda_hw.vision.colors import calibration_to_toml, parse_calibration
from bermuda_hw.vision.counts import ONE_FROM, TWO_FROM, count_loglik
from bermuda_hw.vision.reader import BoardReader


@given(st.floats(0.0, 3.0))
def test_the_likeliest_count_follows_the_area(x: float) -> None:
    """Below ONE_FROM tokens' areas no token, up to TWO_FROM one, above two or more."""
    best = int(np.argmax(count_loglik(np.array([x]))[0]))
    if x < ONE_FROM - 0.03:
        assert best == 0
    elif ONE_FROM + 0.03 < x < TWO_FROM - 0.03:
        assert best == 1
    elif x > TWO_FROM + 0.03:
        assert best == 2


@pytest.mark.parametrize("renderer", ["independent renderer", "project renderer"])
def test_tokens_side_by_side_overlapping_and_on_top_are_counted(
    classic_board: Board, renderer: str
) -> None:
    """One token, two side by side, two overlapping: every colour's count is right.
    One on top of another: the top one counts; the one below counts only as far as it
    shows (a token hidden whole is not seen)."""
    board = classic_board
    rng = random.Random(3)
    shoot = RENDERERS[renderer](board, rng)
    calibration = BoardReader(board).calibrate(shoot(Scene(start_ships(board)), 1))
    assert calibration.token_area_mm2 is not None
    again = parse_calibration(calibration_to_toml(calibration), "cal.toml", board.ship_colors)
    assert again.token_area_mm2 == pytest.approx(calibration.token_area_mm2, abs=0.05)
    scene, truth = token_scene(board, rng, places=12)
    evidence = BoardReader(board, calibration).read(shoot(scene, 2)).evidence
    assert evidence is not None
    for n, (space, there) in enumerate(truth.items()):
        got = evidence.counts(evidence.index(space))
        kind = ARRANGEMENTS[n % len(ARRANGEMENTS)]
        if kind == "on top":
            top = next(
                s
                for s in reversed(scene.ships)  # drawn last: on top
                if np.hypot(s.x_mm - board.spaces[space].x_mm, s.y_mm - board.spaces[space].y_mm)
                < 8.0
            )
            assert got[top.color][0] >= 1, (space, kind, dict(there), got)
            continue
        for color in board.ship_colors:
            assert got[color][0] == min(there[color], 2), (space, kind, dict(there), got)
            assert 0.5 < got[color][1] <= 1.0
    # A place with nothing on it: no token of any colour, and its JSON says so.
    empty = (
        next(
            s
            for s in board.spaces.values()
            if s.kind == "path"
            and s.id not in truth
            and all(np.hypot(t.x_mm - s.x_mm, t.y_mm - s.y_mm) > 40.0 for t in scene.ships)
            and np.hypot(s.x_mm - scene.cloud.x_mm, s.y_mm - scene.cloud.y_mm) > 100.0
        )
        if scene.cloud
        else None
    )
    assert empty is not None
    i = evidence.index(empty.id)
    assert all(n == 0 for n, _ in evidence.counts(i).values())
    item = evidence.to_json()[i]
    assert all(c["count"] == 0 for c in item["counts"].values())


def test_a_hidden_place_has_no_count_preference(classic_board: Board) -> None:
    """Under the cloud nothing is known: every count is as likely."""
    board = classic_board
    rng = random.Random(4)
    shoot = RENDERERS["independent renderer"](board, rng)
    calibration = BoardReader(board).calibrate(shoot(Scene(start_ships(board)), 1))
    scene, _ = token_scene(board, rng, places=4)
    reading = BoardReader(board, calibration).read(shoot(scene, 2))
    evidence = reading.evidence
    assert evidence is not None and reading.hidden_spaces
    hidden = [s for s in sorted(reading.hidden_spaces) if evidence.observability(s) == 0.0]
    assert hidden
    for space in hidden:
        assert not evidence.count_loglik(evidence.index(space)).any()


@pytest.mark.parametrize("light", ["warmer", "lamp on one side"])
def test_a_yellow_tokens_rim_is_no_green_token(classic_board: Board, light: str) -> None:
    """The project's renderer blurs a yellow token's rim into the blue sea: a line of
    green pixels round it. Yellow tokens alone and two side by side are counted, and no
    green token is seen beside them."""
    board = classic_board
    rng = random.Random(0)
    shoot = RENDERERS["project renderer"](board, rng)
    calibration = BoardReader(board).calibrate(shoot(Scene(start_ships(board)), 1))
    centre = board.grid.dot_mm(*board.grid.centre)
    free = [
        s
        for s in board.spaces.values()
        if s.kind == "path" and math.dist(s.position, centre) > board.cloud.footprint_radius_mm + 30
    ]
    rng.shuffle(free)
    chosen: list[Space] = []
    for space in free:
        if all(math.dist(space.position, o.position) > 40.0 for o in chosen):
            chosen.append(space)
    tokens: list[ShipToken] = []
    truth: dict[str, int] = {}
    for n, space in enumerate(chosen[:8]):
        heading = rng.uniform(0, 360)
        across = (math.cos(math.radians(heading)), math.sin(math.radians(heading)))
        x, y = space.position
        if n % 2 == 0:
            tokens.append(ShipToken("yellow", x, y, heading))
        else:
            tokens += [
                ShipToken("yellow", x - 6 * across[0], y - 6 * across[1], heading),
                ShipToken("yellow", x + 6 * across[0], y + 6 * across[1], heading),
            ]
        truth[space.id] = 1 + n % 2
    scene = Scene(tuple(tokens), CloudState(*centre))
    evidence = BoardReader(board, calibration).read(shoot(scene, 2, light)).evidence
    assert evidence is not None
    for space_id, n in truth.items():
        got = evidence.counts(evidence.index(space_id))
        assert {c: got[c][0] for c in board.ship_colors} == {
            c: n if c == "yellow" else 0 for c in board.ship_colors
        }, (space_id, got)
