"""Stable observations: only agreeing, unoccluded frames over time make a new board state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.geometry import axis_deg, axis_gap_deg
from bermuda_hw.vision.stability import StabilitySettings, Stabilizer, observations
from bermuda_hw.vision.types import CloudReading, FrameReading, ShipReading


def frame(
    t: float,
    ships: tuple[tuple[str, str], ...] = (),
    *,
    occluded: bool = False,
    found: bool = True,
    hidden: frozenset[str] = frozenset(),
    cloud: tuple[int, int, int] | None = (4, 4, 0),
) -> FrameReading:
    return FrameReading(
        found,
        occluded=occluded,
        ships=tuple(ShipReading(c, s, 0.0, 0.0) for c, s in ships),
        cloud=CloudReading(*cloud, 0.0, 0.0, 0.0) if cloud else None,
        hidden_spaces=hidden,
        timestamp_s=t,
    )


A = (("red", "S01"), ("blue", "HOME"))
B = (("red", "S02"), ("blue", "HOME"))


def test_needs_the_configured_frames_and_time() -> None:
    s = Stabilizer(StabilitySettings(frames=3, min_time_s=0.5))
    assert s.push(frame(0.0, A)) is None
    assert s.push(frame(0.2, A)) is None
    assert s.push(frame(0.4, A)) is None  # 3 frames but only 0.4 s
    got = s.push(frame(0.6, A))
    assert got is not None and got.frames == 4
    assert sorted((x.color, x.space) for x in got.ships) == sorted(A)


def test_reports_only_changes() -> None:
    s = Stabilizer(StabilitySettings(frames=2, min_time_s=0.0))
    out = [s.push(frame(t, A if t < 0.5 else B)) for t in (0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7)]
    reported = [o for o in out if o is not None]
    assert [sorted((x.color, x.space) for x in o.ships) for o in reported] == [sorted(A), sorted(B)]


def test_occluded_and_boardless_frames_break_the_run() -> None:
    s = Stabilizer(StabilitySettings(frames=3, min_time_s=0.0))
    seq = [
        frame(0.0, A),
        frame(0.1, A),
        frame(0.2, A, occluded=True),
        frame(0.3, A),
        frame(0.4, A, found=False),
        frame(0.5, A),
        frame(0.6, A),
    ]
    assert all(s.push(f) is None for f in seq)
    assert s.push(frame(0.7, A)) is not None


def test_a_cloud_turn_is_a_new_state() -> None:
    s = Stabilizer(StabilitySettings(frames=1, min_time_s=0.0))
    assert s.push(frame(0.0, A, cloud=(4, 4, 0))) is not None
    assert s.push(frame(0.1, A, cloud=(4, 4, 0))) is None
    turned = s.push(frame(0.2, A, cloud=(4, 4, 3)))
    assert turned is not None and turned.cloud is not None and turned.cloud.letter == 3


def test_ships_under_the_cloud_stay_as_hidden() -> None:
    s = Stabilizer(StabilitySettings(frames=1, min_time_s=0.0))
    s.push(frame(0.0, A))
    got = s.push(frame(0.1, (("blue", "HOME"),), hidden=frozenset({"S01"}), cloud=(1, 3, 2)))
    assert got is not None
    assert [(x.color, x.space, x.hidden) for x in got.ships] == [
        ("blue", "HOME", False),
        ("red", "S01", True),
    ]


def sure(t: float, readings: tuple[tuple[str, str, float], ...]) -> FrameReading:
    """A frame whose ships are read with the given confidences."""
    return FrameReading(
        True,
        ships=tuple(ShipReading(c, p, 0.0, 0.0, confidence=k) for c, p, k in readings),
        cloud=CloudReading(4, 4, 0, 0.0, 0.0, 0.0),
        timestamp_s=t,
    )


def test_a_run_is_only_as_sure_as_its_least_sure_frame() -> None:
    s = Stabilizer(StabilitySettings(frames=3, min_time_s=0.0))
    s.push(sure(0.0, (("red", "S01", 0.9), ("blue", "HOME", 0.95))))
    s.push(sure(0.1, (("red", "S01", 0.62), ("blue", "HOME", 0.97))))
    got = s.push(sure(0.2, (("red", "S01", 0.88), ("blue", "HOME", 0.99))))
    assert got is not None
    assert {(x.color, x.confidence) for x in got.ships} == {("red", 0.62), ("blue", 0.95)}


def test_two_ships_of_a_colour_on_a_place_pair_by_how_sure_each_frame_read_them() -> None:
    s = Stabilizer(StabilitySettings(frames=2, min_time_s=0.0))
    s.push(sure(0.0, (("red", "S01", 0.5), ("red", "S01", 0.9))))
    got = s.push(sure(0.1, (("red", "S01", 0.95), ("red", "S01", 0.7))))
    assert got is not None
    assert sorted(x.confidence for x in got.ships) == [0.5, 0.9]


@settings(max_examples=100, deadline=None)
@given(runs=st.lists(st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3), min_size=1, max_size=5))
def test_no_ship_of_a_stable_run_is_surer_than_any_frame_read_it(runs: list[list[float]]) -> None:
    s = Stabilizer(StabilitySettings(frames=len(runs), min_time_s=0.0))
    places = (("red", "S01"), ("red", "S01"), ("blue", "S02"))
    got = None
    for t, confidences in enumerate(runs):
        got = s.push(
            sure(0.1 * t, tuple((c, p, k) for (c, p), k in zip(places, confidences, strict=True)))
        )
    assert got is not None
    reds = sorted(x.confidence for x in got.ships if x.color == "red")
    blue = [x.confidence for x in got.ships if x.color == "blue"]
    assert reds == [min(sorted(r[:2])[k] for r in runs) for k in range(2)]
    assert blue == [min(r[2] for r in runs)]


def test_a_board_left_still_is_one_run_that_costs_nothing_once_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board left still for a long game's pause: the run reports once; its later frames
    neither build another observation (each would combine every frame of the run) nor are
    kept, until the board changes, which is reported as ever."""
    from bermuda_hw.vision import stability

    built: list[int] = []
    real = stability._least_sure

    def counted(run: list[FrameReading]) -> tuple[ShipReading, ...]:
        built.append(len(run))
        return real(run)

    monkeypatch.setattr(stability, "_least_sure", counted)
    s = Stabilizer(StabilitySettings(frames=3, min_time_s=0.0))
    reported = [s.push(frame(0.1 * k, A)) for k in range(2000)]
    assert [k for k, o in enumerate(reported) if o is not None] == [2]
    assert built == [3]
    changed = [s.push(frame(200.0 + 0.1 * k, B)) for k in range(3)]
    assert changed[-1] is not None and built == [3, 3]
    assert sorted((x.color, x.space) for x in changed[-1].ships) == sorted(B)


def test_settings_are_checked() -> None:
    import pytest

    with pytest.raises(ValueError):
        StabilitySettings(frames=0)
    with pytest.raises(ValueError):
        StabilitySettings(min_time_s=-1.0)


states = st.sampled_from([A, B, ()])


@settings(max_examples=200, deadline=None)
@given(
    seq=st.lists(st.tuples(states, st.booleans(), st.floats(0.01, 0.3)), max_size=30),
    n=st.integers(1, 4),
    min_time=st.sampled_from([0.0, 0.2, 0.5]),
)
def test_every_observation_is_backed_by_agreeing_clear_frames(
    seq: list[tuple[tuple[tuple[str, str], ...], bool, float]], n: int, min_time: float
) -> None:
    t = 0.0
    frames = []
    for ships, occluded, dt in seq:
        t += dt
        frames.append(frame(t, ships, occluded=occluded))
    s = Stabilizer(StabilitySettings(frames=n, min_time_s=min_time))
    last_key = None
    for i, f in enumerate(frames):
        got = s.push(f)
        if got is None:
            continue
        start = i
        while (
            start > 0
            and not frames[start - 1].occluded
            and (frames[start - 1].state_key() == f.state_key())
        ):
            start -= 1
        run = frames[start : i + 1]
        assert len(run) >= n
        assert all(not w.occluded and w.state_key() == f.state_key() for w in run)
        assert f.timestamp_s - run[0].timestamp_s >= min_time
        key = f.state_key()
        assert key != last_key
        last_key = key
    assert len(list(observations(frames, StabilitySettings(frames=n, min_time_s=min_time)))) <= len(
        frames
    )


@settings(max_examples=50, deadline=None)
@given(
    xs=st.lists(st.floats(-3.0, 3.0), min_size=2, max_size=6),
    axis=st.floats(0.0, 179.9),
    spread=st.floats(0.0, 3.0),
)
def test_a_ship_alone_on_its_place_is_read_where_its_frames_read_it(
    xs: list[float], axis: float, spread: float
) -> None:
    """A stable run reads a ship alone of its colour on its place where its frames read it
    on average, and turned as they read it on average (an axis near north wraps: 179 and
    1 average to 0). Two ships of a colour on one place keep the last frame's readings."""
    s = Stabilizer(StabilitySettings(frames=len(xs), min_time_s=0.0))
    got = None
    for k, x in enumerate(xs):
        turn = spread if k % 2 else -spread
        ships = (
            ShipReading("red", "S01", 100.0 + x, 50.0 - x, axis_deg=axis_deg(axis + turn)),
            ShipReading("blue", "S07", 10.0 + x, 20.0),
            ShipReading("blue", "S07", 30.0 - x, 20.0),
        )
        got = s.push(FrameReading(True, ships=ships, timestamp_s=0.1 * k)) or got
    assert got is not None
    [red] = got.ships_at("S01")
    mean = sum(xs) / len(xs)
    assert red.x_mm == pytest.approx(100.0 + mean) and red.y_mm == pytest.approx(50.0 - mean)
    turns = [spread if k % 2 else -spread for k in range(len(xs))]
    assert red.axis_deg is not None
    assert axis_gap_deg(red.axis_deg, axis + sum(turns) / len(turns)) < 0.01
    blues = sorted(b.x_mm for b in got.ships_at("S07"))
    assert blues == sorted((10.0 + xs[-1], 30.0 - xs[-1]))
