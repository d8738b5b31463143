"""How far a token moved, as evidence between moves the colours leave tied: counted on the
table's own boards (`stillness.HandSample`), weighed by the belief, on synthetic evidence."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import observe, set_dock_or_bump

from bermuda_hw.controller.referee import UNTOUCHED_MM
from bermuda_hw.controller.ship_phase import Take, Tied, decide
from bermuda_hw.controller.stillness import HandSample, stillness
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation

BOARD = load_board()
FILL = 0.45  # the landing space's fill on both boards: its wider disk shows the same
#: a table whose hands were seen to set 3000 tokens down where another stood, none on the
#: same spot, and whose untouched tokens always read still
CAREFUL_COUNT = HandSample(Counter(yellow=3000), Counter(), left=5000, stayed=5000)


def count(again: int, same: int, left: int, stayed: int, color: str = "yellow") -> HandSample:
    return HandSample(Counter({color: again}), Counter({color: same}), left, stayed)


def tie() -> tuple[Game, str, str, dict[str, list[str]], dict[str, list[str]]]:
    """Yellow rolled 1: yellow-1 on x docks at SUGAR, or lands on yellow-2 on z, which goes
    back to SUGAR. (game, x, z, the board before, the board either move leaves)."""
    game = Game.new(2, seed=1, board=BOARD, first_player="yellow")
    x, z = set_dock_or_bump(game)
    before = {p: list(c) for p, c in contents(game).items()}
    after = {p: list(c) for p, c in before.items()}
    after[x].remove("yellow")
    after.setdefault("SUGAR", []).append("yellow")
    return game, x, z, before, {p: c for p, c in after.items() if c}


def seen(
    places: dict[str, list[str]], z: str, off: tuple[float, float], fill: float = FILL
) -> BoardObservation:
    return observe(BOARD, places, nudged={z: off}, weak={z: fill}, reach=True)


def test_a_token_read_still_where_hands_never_set_one_down_on_the_same_spot_is_a_dock() -> None:
    """The token on z reads where it stood, and this table's hands were never seen to set a
    token down on the spot of the one before: the dock is taken, no question, and z is
    named as read still."""
    game, _x, z, before, after = tie()
    reference = seen(before, z, (2.5, -1.0))
    now = seen(after, z, (2.5 + 0.1, -1.0))
    decision = decide(game, now, frozenset({1}), reference=reference, hands=CAREFUL_COUNT)
    assert isinstance(decision, Take)
    assert decision.group.best.move is not None and decision.group.best.move.end == "SUGAR"
    assert decision.still == (z,) and decision.untouched == ()


def test_without_the_tables_count_the_tie_is_asked() -> None:
    game, _x, z, before, after = tie()
    reference, now = seen(before, z, (2.5, -1.0)), seen(after, z, (2.5, -1.0))
    assert isinstance(decide(game, now, frozenset({1}), reference=reference), Tied)
    few = count(40, 0, 400, 400)
    assert isinstance(decide(game, now, frozenset({1}), reference=reference, hands=few), Tied)


def test_hands_that_set_tokens_squarely_leave_the_tie_asked() -> None:
    """One token in ten set down again read on the same spot (tokens set squarely on their
    places): a token read still is no sign that nobody touched it."""
    game, _x, z, before, after = tie()
    reference, now = seen(before, z, (0.0, 0.0)), seen(after, z, (0.0, 0.0))
    squarely = count(3000, 300, 5000, 5000)
    decision = decide(game, now, frozenset({1}), reference=reference, hands=squarely)
    assert isinstance(decision, Tied)


def test_a_token_that_moved_or_gained_a_neighbour_is_asked() -> None:
    """Moved 2 mm (a knock before a dock, or the mover set down beside the old spot), or
    read still with its wider disk showing more (a second token set down beside it): no
    evidence either way, the tie is asked, the bump never taken unasked either."""
    game, _x, z, before, after = tie()
    reference = seen(before, z, (2.5, -1.0))
    for now in (seen(after, z, (4.5, -1.0)), seen(after, z, (2.5, -1.0), fill=FILL * 1.5)):
        decision = decide(game, now, frozenset({1}), reference=reference, hands=CAREFUL_COUNT)
        assert isinstance(decision, Tied)
        assert stillness(BOARD, reference, now, z, CAREFUL_COUNT) is None


def test_the_table_counts_own_tokens_set_again_and_tokens_left_alone() -> None:
    """Between two boards that matched the game, over one move: the mover set down in the
    stead of a token of its own colour (read on its spot); the tokens no move or capture
    concerned, one of them knocked. A token of another colour taken over, a space the
    move started from and one a capture emptied are no sample."""
    spaces = [s for s in BOARD.spaces if s not in BOARD.ports][:6]
    a, b, c, d, e, f = spaces
    fills = dict.fromkeys(spaces, FILL)
    before = observe(
        BOARD,
        {a: ["yellow"], b: ["yellow"], c: ["green"], d: ["green"], f: ["red"]},
        weak=fills,
        reach=True,
    )
    after = observe(
        BOARD,
        {a: ["yellow"], c: ["green"], d: ["green"], e: ["red"], f: ["blue"]},
        nudged={a: (0.1, 0.0), d: (0.0, UNTOUCHED_MM + 0.05)},
        weak=fills,
        reach=True,
    )
    move = Move.parse(f"yellow-2 {b}-{a}")
    hands = HandSample()
    hands.learn(BOARD, before, after, [move], changed=[b, e, f])
    assert hands.set_again == Counter(yellow=1) and hands.same_spot == Counter(yellow=1)
    assert (hands.left, hands.stayed) == (2, 1)  # c stayed, d knocked
    assert hands.coincide("yellow") == 2 / 3 and hands.coincide("blue") == 1 / 2
    assert hands.stay() == 2 / 4

    again = HandSample()
    two = [move, Move.parse(f"blue-1 {e}-{f}")]
    again.learn(BOARD, before, after, two, changed=[b, e, f])
    assert again.set_again == Counter()  # over two moves a space may have changed hands twice
    skipped = HandSample()
    skipped.learn(BOARD, before, after, [move], changed=[b, e, f], skip=[a, c])
    assert skipped.set_again == Counter() and (skipped.left, skipped.stayed) == (1, 0)


def test_a_count_that_makes_a_still_token_likelier_set_down_is_no_evidence() -> None:
    """Untouched tokens seen to move more often than tokens set down again (a camera that
    moved between boards): a token read still counts for nothing, never for the bump."""
    game, _x, z, before, after = tie()
    reference, now = seen(before, z, (2.5, -1.0)), seen(after, z, (2.5, -1.0))
    for hands in (count(200, 200, 2000, 0), count(5000, 5000, 5000, 0), count(0, 0, 40, 0)):
        assert stillness(BOARD, reference, now, z, hands) is None
        assert isinstance(decide(game, now, frozenset({1}), reference=reference, hands=hands), Tied)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 5000),
    st.integers(0, 5000),
    st.integers(0, 5000),
    st.integers(0, 5000),
    st.floats(0.0, UNTOUCHED_MM * 0.9),
)
def test_a_token_read_still_never_takes_the_bump_and_takes_the_dock_only_on_a_large_count(
    set_again: int, left: int, same: int, stayed: int, moved: float
) -> None:
    """Whatever the table's count: the bump is never taken unasked, and the dock only where
    the count sets the ratio of "untouched" to "set down again" high (the die known: the
    bump's prior is 0.6 of the dock's, so the ratio must pass about 600)."""
    hands = count(set_again, min(same, set_again), left, min(stayed, left))
    game, _x, z, before, after = tie()
    reference, now = seen(before, z, (2.5, -1.0)), seen(after, z, (2.5 + moved, -1.0))
    decision = decide(game, now, frozenset({1}), reference=reference, hands=hands)
    if isinstance(decision, Take):
        assert decision.group.best.move is not None and decision.group.best.move.end == "SUGAR"
        assert hands.stay() / hands.coincide("yellow") > 500
    else:
        assert isinstance(decision, Tied)
