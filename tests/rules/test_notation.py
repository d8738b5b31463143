"""The move notation: parse and print round-trip, and bad text is refused with a reason."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.errors import ParseError
from bermuda_hw.rules.moves import Move, split_ship_id


@pytest.mark.parametrize(
    "text",
    ["red-2 S03-S04-S05", "blue-1 HOME-S01", "green-4 S05-S06-LUMBER", "yellow pass"],
)
def test_parse_and_print_round_trip(text: str) -> None:
    assert str(Move.parse(text)) == text


def test_fields_of_a_move() -> None:
    move = Move.parse("red-2 S05-S06-LUMBER")
    assert move.ship == "red-2"
    assert move.color == "red"
    assert move.walk == ("S05", "S06", "LUMBER")
    assert (move.start, move.end, move.steps) == ("S05", "LUMBER", 2)
    assert not move.is_pass
    passing = Move.parse("red pass")
    assert passing.is_pass and passing.color == "red" and passing.steps == 0
    assert passing == Move.pass_turn("red")


def test_moves_are_values() -> None:
    a = Move.parse("red-2 S03-S04")
    b = Move("red-2", ("S03", "S04"))
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.ship = "red-1"  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    ["", "red-2", "red-2 S03", "red S03-S04", "red-2 S03--S04", "red-2 S03-S04 S05",
     "red-x S03-S04", "2 pass", "red-2 -S04"],
)  # fmt: skip
def test_bad_text_is_refused(text: str) -> None:
    with pytest.raises(ParseError):
        Move.parse(text)


def test_ship_ids() -> None:
    assert split_ship_id("yellow-3") == ("yellow", 3)
    with pytest.raises(ParseError, match="not a ship id"):
        split_ship_id("yellow3")


space = st.from_regex(r"[A-Z][A-Z0-9]{0,6}", fullmatch=True)


@given(
    st.sampled_from(["blue", "yellow", "green", "red"]),
    st.integers(1, 4),
    st.lists(space, min_size=2, max_size=7),
)
def test_any_walk_round_trips(color: str, number: int, walk: list[str]) -> None:
    move = Move(f"{color}-{number}", tuple(walk))
    assert Move.parse(str(move)) == move
