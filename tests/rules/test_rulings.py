"""One test (or a few) per ruling in rulings.md, named after the ruling it pins.

Most use the ring board (see conftest):
HOME-A-B-C-SUGAR-D-E-OIL-F-G-BANANAS-H-I-LUMBER-J-K-HOME.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from bermuda_hw.errors import IllegalMoveError, RulesError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cards import BONUS_CARD_USD, PRODUCT_CARDS_USD
from bermuda_hw.rules.cloud import CloudPose, Spin, Spinner, blocked_spaces
from bermuda_hw.rules.events import (
    BonusTaken,
    Bumped,
    Captured,
    CardTaken,
    CloudMoved,
    CloudRemoved,
    Docked,
    EndReason,
    GameOver,
    Moved,
    Passed,
    PileEmpty,
    Spun,
    Swept,
)
from bermuda_hw.rules.game import (
    Game,
    GameOptions,
    Phase,
    ShipStatus,
    roll_for_first,
)
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.record import from_json, to_dict

Position = Callable[..., Game]
Ring = Callable[..., Board]

LOOP = [
    ["HOME", "A", "B", "C", "D", "SUGAR"],
    ["B", "E", "D"],
    ["SUGAR", "F", "OIL"],
    ["OIL", "G", "BANANAS"],
    ["BANANAS", "H", "LUMBER"],
    ["LUMBER", "I", "HOME"],
]


def moves(game: Game) -> set[str]:
    return {str(m) for m in game.legal_moves()}


# ---------------------------------------------------------------- ship movement


def test_ruling_01_walk_is_exact_count_and_never_revisits(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    game = position(tiny_board(LOOP), 2, {"blue-1": "B"}, "blue", 4)
    # round the loop B-C-D-E-B would revisit B: not a move
    assert "blue-1 B-C-D-E-B" not in moves(game)
    with pytest.raises(IllegalMoveError, match="twice"):
        game.push("blue-1 B-C-D-E-B")
    with pytest.raises(IllegalMoveError, match="die shows 4"):
        game.push("blue-1 B-C-D-E")  # a walk of 3 that ends on a path space


def test_ruling_01_ship_may_set_off_in_any_direction_next_turn(
    ring: Ring, position: Position
) -> None:
    game = position(ring(), 2, {"blue-1": "A"}, "blue", 2)
    game.push("blue-1 A-B-C")
    game.set_turn("blue")
    game.set_die(1)
    assert moves(game) == {"blue-1 C-B", "blue-1 C-SUGAR"}


def test_ruling_02_leaving_a_port_counts_the_next_path_space(
    ring: Ring, position: Position
) -> None:
    game = position(ring(), 2, {"blue-1": "HOME"}, "blue", 1)
    assert moves(game) == {"blue-1 HOME-A", "blue-1 HOME-K"}


def test_ruling_03_docking_ends_the_walk(ring: Ring, position: Position) -> None:
    game = position(ring(), 2, {"blue-1": "A"}, "blue", 6)
    assert "blue-1 A-HOME" in moves(game)
    with pytest.raises(IllegalMoveError, match="ruling 3"):
        game.push("blue-1 A-HOME-K")
    events = game.push("blue-1 A-HOME")
    assert Docked("blue-1", "HOME") in events
    assert game.ship("blue-1").location == "HOME"
    assert game.ship("blue-1").previous_port == "HOME"


def test_ruling_04_port_capacity_is_the_number_of_players(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "C", "yellow-1": "SUGAR", "yellow-2": "SUGAR", "green-1": "SUGAR"}
    three = position(ring(), 3, ships, "blue", 1)
    assert "blue-1 C-SUGAR" not in moves(three)
    with pytest.raises(IllegalMoveError, match=r"full.*ruling 4"):
        three.push("blue-1 C-SUGAR")
    ships4 = {"blue-1": "C", "yellow-1": "SUGAR", "yellow-2": "SUGAR", "green-1": "SUGAR"}
    four = position(ring(), 4, ships4, "blue", 1)
    assert "blue-1 C-SUGAR" in moves(four)


def test_ruling_04_at_most_two_ships_of_a_colour_in_a_port(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "C", "blue-2": "SUGAR", "blue-3": "SUGAR", "yellow-1": "C"}
    game = position(ring(), 4, ships, "blue", 1)
    with pytest.raises(IllegalMoveError, match="already has 2 ships in SUGAR"):
        game.push("blue-1 C-SUGAR")
    # yellow may still enter: 2 ships in a port for 4 players
    game.set_turn("yellow")
    game.set_die(1)
    assert "yellow-1 C-SUGAR" in moves(game)


def test_ruling_05_bump_sends_every_ship_back(ring: Ring, position: Position) -> None:
    ships = {
        "blue-1": "A",
        "blue-2": {"at": "C", "previous": "OIL"},
        "yellow-1": {"at": "C", "previous": "SUGAR"},
        "yellow-3": "SUGAR",
        "yellow-4": "SUGAR",
    }
    game = position(ring(), 2, ships, "blue", 2)
    piles_before = {p: game.pile(p) for p in PRODUCT_CARDS_USD}
    events = game.push("blue-1 A-B-C")
    assert Bumped("blue-2", "C", "OIL") in events
    assert Bumped("yellow-1", "C", "SUGAR") in events
    assert game.ships_at("C") == ["blue-1"]
    # sent back even though SUGAR was full (2 ships for 2 players)
    assert sorted(game.ships_at("SUGAR")) == ["yellow-1", "yellow-3", "yellow-4"]
    assert game.ship("blue-2").location == "OIL"
    # no card and no bonus for a ship sent back
    assert game.totals() == {"blue": 0, "yellow": 0}
    assert {p: game.pile(p) for p in PRODUCT_CARDS_USD} == piles_before
    assert not any(isinstance(e, CardTaken | BonusTaken) for e in events)


def test_ruling_05_own_ships_are_bumped_too(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "A", "blue-2": {"at": "C", "previous": "LUMBER"}}
    game = position(ring(), 2, ships, "blue", 2)
    events = game.push("blue-1 A-B-C")
    assert Bumped("blue-2", "C", "LUMBER") in events
    assert game.ship("blue-2").location == "LUMBER"


def test_ruling_05_passing_ships_and_ports_never_bump(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "A", "yellow-1": "B", "yellow-2": "C", "yellow-3": "HOME"}
    game = position(ring(), 2, ships, "blue", 3)
    events = game.push("blue-1 A-B-C-SUGAR")
    assert not any(isinstance(e, Bumped) for e in events)
    assert game.ship("yellow-1").location == "B"
    assert game.ship("yellow-2").location == "C"
    game.set_turn("blue")
    game.set_die(4)
    events = game.push("blue-1 SUGAR-C-B-A-HOME")
    assert not any(isinstance(e, Bumped) for e in events)
    assert sorted(game.ships_at("HOME")) == ["blue-1", "yellow-3"]


def test_ruling_06_the_cloud_blocks_entering_and_crossing(ring: Ring, position: Position) -> None:
    game = position(ring(["B"]), 2, {"blue-1": "A", "blue-2": "B"}, "blue", 3)
    assert game.blocked == frozenset({"B"})
    assert game.ship("blue-2").status is ShipStatus.UNDER_CLOUD
    assert moves(game) == {"blue-1 A-HOME"}
    with pytest.raises(IllegalMoveError, match=r"under the cloud.*ruling 6"):
        game.push("blue-1 A-B-C-SUGAR")
    with pytest.raises(IllegalMoveError, match=r"cannot move.*ruling 6"):
        game.push("blue-2 B-C-SUGAR")


def test_ruling_06_blocked_spaces_follow_the_cloud(classic_board: Board) -> None:
    game = Game.new(4, seed=5, board=classic_board)
    assert game.blocked == blocked_spaces(classic_board, game.pose)
    assert game.blocked  # the centre of the classic board lies over the paths
    game.set_cloud(CloudPose(0, 0, 0))
    assert game.blocked == blocked_spaces(classic_board, CloudPose(0, 0, 0))


def test_ruling_07_short_move_stops_before_the_obstacle(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "A", "yellow-1": "SUGAR", "yellow-2": "SUGAR", "yellow-3": "C"}
    game = position(ring(["HOME"]), 2, ships, "blue", 4)
    assert moves(game) == {"blue-1 A-B-C"}
    with pytest.raises(IllegalMoveError, match="ruling 7"):
        game.push("blue-1 A-B")  # may not stop earlier than the last free space
    events = game.push("blue-1 A-B-C")
    assert Moved(Move.parse("blue-1 A-B-C"), 4, short=True) in events
    # it did not land by exact count: the ships share the space
    assert not any(isinstance(e, Bumped) for e in events)
    assert sorted(game.ships_at("C")) == ["blue-1", "yellow-3"]


def test_ruling_07_no_short_move_while_a_full_move_exists(ring: Ring, position: Position) -> None:
    ships = {"blue-1": "A", "blue-2": "J", "yellow-1": "SUGAR", "yellow-2": "SUGAR"}
    game = position(ring(["HOME"]), 2, ships, "blue", 4)
    # blue-2 has full moves, so blue-1 may not make its short move
    assert "blue-1 A-B-C" not in moves(game)
    with pytest.raises(IllegalMoveError, match="only when no ship has a full move"):
        game.push("blue-1 A-B-C")


def test_ruling_08_pass_only_without_any_move(ring: Ring, position: Position) -> None:
    game = position(ring(["B"]), 2, {"blue-1": "B", "yellow-1": "A"}, "blue", 3)
    assert game.legal_moves() == [Move.pass_turn("blue")]
    events = game.push("blue pass")
    assert events == [Passed("blue", 3)]
    assert game.active == "yellow"
    game.set_die(1)
    with pytest.raises(IllegalMoveError, match=r"may not pass.*ruling 8"):
        game.push("yellow pass")


# ------------------------------------------------------------------------ cards


def _dock_repeatedly(game: Game, ship: str, out: str, port: str, times: int) -> list[object]:
    """Sail `ship` from its port to `out` and back into `port`, `times` times."""
    events: list[object] = []
    for _ in range(times):
        game.set_ship(ship, out)
        game.set_turn(game.ship(ship).id.split("-")[0])
        game.set_die(1)
        events.extend(game.push(f"{ship} {out}-{port}"))
    return events


def test_ruling_09_docking_takes_the_top_card_until_the_pile_is_empty(
    ring: Ring, position: Position
) -> None:
    game = position(ring(), 2, {"blue-1": "G", "yellow-1": "A"}, "blue", 1)
    events = _dock_repeatedly(game, "blue-1", "G", "BANANAS", 5)
    taken = [e.value_usd for e in events if isinstance(e, CardTaken)]
    assert taken == [10_000, 20_000, 30_000, 40_000]  # printed order, top card first
    assert game.pile("bananas") == ()
    assert isinstance(events[-1], PileEmpty)
    assert game.totals()["blue"] == 100_000
    assert [v for _, v in game.hand("blue")] == taken


def test_ruling_09_home_port_bonus_until_eight_are_gone(ring: Ring, position: Position) -> None:
    game = position(ring(), 2, {"blue-1": "A", "yellow-1": "C"}, "blue", 1)
    events = _dock_repeatedly(game, "blue-1", "A", "HOME", 9)
    bonuses = [e for e in events if isinstance(e, BonusTaken)]
    assert [b.value_usd for b in bonuses] == [BONUS_CARD_USD] * 8
    assert game.bonus_left == 0
    assert isinstance(events[-1], PileEmpty)
    assert game.totals()["blue"] == 8 * BONUS_CARD_USD


def test_ruling_10_digital_ledger_shuffles_and_deals(classic_board: Board) -> None:
    physical = Game.new(2, seed=11, board=classic_board)
    for product, values in PRODUCT_CARDS_USD.items():
        assert physical.pile(product) == values
    ledgers = [
        Game.new(2, seed=s, board=classic_board, options=GameOptions(digital_ledger=True))
        for s in range(5)
    ]
    for game in ledgers:
        for product, values in PRODUCT_CARDS_USD.items():
            assert sorted(game.pile(product)) == sorted(values)
    # shuffled: some seed gives another order than the printed one
    assert any(g.pile("sugar") != PRODUCT_CARDS_USD["sugar"] for g in ledgers)
    # and the same seed deals the same piles
    again = Game.new(2, seed=0, board=classic_board, options=GameOptions(digital_ledger=True))
    assert again.pile("sugar") == ledgers[0].pile("sugar")


# ------------------------------------------------------------------------ cloud

SWEEP_AT = {"M": (550.0, 450.0)}
# M lies 70.7 mm from the centre dot (not blocked); "A 1 E" drags the magnet,
# 50 mm north of the locater, from (500, 450) to (600, 450), right over M.
SWEEP_PATHS = [
    ["HOME", "A", "M", "SUGAR"],
    ["SUGAR", "D", "OIL"],
    ["OIL", "F", "BANANAS"],
    ["BANANAS", "H", "LUMBER"],
    ["LUMBER", "J", "HOME"],
]


def _cloud_game(tiny_board: Callable[..., Board], position: Position) -> Game:
    board = tiny_board(SWEEP_PATHS, at=SWEEP_AT)
    ships = {"blue-1": {"at": "M", "previous": "HOME"}, "blue-2": "A", "yellow-1": "J"}
    game = position(board, 2, ships, "blue")
    game.set_turn("blue", Phase.CLOUD)
    return game


def test_ruling_11_cloud_starts_on_the_centre_at_letter_a(classic_board: Board) -> None:
    game = Game.new(3, seed=2, board=classic_board)
    assert game.pose == CloudPose(*classic_board.grid.centre, 0)


def test_ruling_12_spin_turns_clockwise_then_moves(classic_board: Board) -> None:
    game = Game.new(2, seed=2, board=classic_board)
    game.set_turn(game.active, Phase.CLOUD)
    events = game.cloud_phase("C 1 N", capture=())
    centre = classic_board.grid.centre
    assert Spun(Spin.parse("C 1 N")) in events
    assert CloudMoved(CloudPose(*centre, 0), CloudPose(centre[0], centre[1] - 1, 2), 90.0) in events
    assert game.pose == CloudPose(centre[0], centre[1] - 1, 2)
    assert game.phase is Phase.SHIPS and game.round == 2


def test_ruling_12_the_cloud_stops_on_an_outside_dot(classic_board: Board) -> None:
    game = Game.new(2, seed=2, board=classic_board)
    game.set_cloud(CloudPose(4, 2, 0))
    game.set_turn(game.active, Phase.CLOUD)
    events = game.cloud_phase("B 4 N", capture=())
    moved = next(e for e in events if isinstance(e, CloudMoved))
    assert moved.end == CloudPose(4, 0, 1)  # 2 dots to the edge, not 4
    assert moved.turn_deg == 45.0


def test_ruling_13_engine_spin_is_one_spinner_angle(classic_board: Board) -> None:
    game = Game.new(2, seed=8, board=classic_board)
    game.set_turn(game.active, Phase.CLOUD)
    rng = random.Random()
    rng.setstate(game.rng.getstate())
    expected = Spinner(classic_board.spinner).spin(rng)
    events = game.cloud_phase(capture=())
    assert events[0] == Spun(expected)
    assert game.journal[-1]["cloud"] == str(expected)


def test_ruling_14_swept_ships_are_captured_by_default(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    game = _cloud_game(tiny_board, position)
    events = game.cloud_phase("A 1 E")
    assert Swept(("blue-1",)) in events
    assert Captured(("blue-1",)) in events
    assert game.ship("blue-1").status is ShipStatus.IN_CLOUD
    assert game.ship("blue-1").location is None
    assert game.ships_at("M") == []
    assert game.ship("blue-2").status is ShipStatus.ON_BOARD


def test_ruling_14_the_caller_decides_captures(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    survive = _cloud_game(tiny_board, position)
    events = survive.cloud_phase("A 1 E", capture=lambda swept: set())
    assert Swept(("blue-1",)) in events
    assert not any(isinstance(e, Captured) for e in events)
    assert survive.ship("blue-1").location == "M"
    never = _cloud_game(tiny_board, position)
    with pytest.raises(RulesError, match="not swept: blue-2"):
        never.cloud_phase("A 1 E", capture={"blue-2"})


def test_ruling_14_a_ship_in_a_port_is_swept_whichever_berth_it_stands_on(
    classic_board: Board,
) -> None:
    """The magnets pass LUMBER's berths 1-3, not berth 0: a ship there may stand on any."""
    game = Game.new(2, seed=1, board=classic_board)
    lumber, *others = game.ships_at("LUMBER")
    for sid in others:
        game.set_ship(sid, "SUGAR")
    assert game.ships_at("LUMBER") == [lumber]  # seat order would put it on berth 0
    game.set_cloud(CloudPose(4, 1, 1))
    game.set_turn(game.active, Phase.CLOUD)
    survive = game.copy()
    events = game.cloud_phase("A 1 N", capture=())
    assert any(isinstance(e, Swept) and lumber in e.ships for e in events)
    # the camera decides: the magnets took it (it stood on a berth they pass) or not
    events = survive.cloud_phase("A 1 N", capture={lumber})
    assert Captured((lumber,)) in events


def test_ruling_14_capture_probability_house_rule(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    game = _cloud_game(tiny_board, position)
    data = to_dict(game)
    data["setup"]["options"]["capture_probability"] = 0.0
    never = from_json(json.dumps(data), game.board)
    assert never.options.capture_probability == 0.0
    events = never.cloud_phase("A 1 E")
    assert Swept(("blue-1",)) in events
    assert never.ship("blue-1").status is ShipStatus.ON_BOARD
    with pytest.raises(RulesError):
        GameOptions(capture_probability=1.5)


def test_ruling_14_ships_in_the_cloud_travel_with_it(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    game = _cloud_game(tiny_board, position)
    game.cloud_phase("A 1 E")
    game.set_turn("blue", Phase.CLOUD)
    events = game.cloud_phase("A 1 S", capture=())  # to (5, 5): not an outside dot
    assert not any(isinstance(e, CloudRemoved) for e in events)
    assert game.ship("blue-1").status is ShipStatus.IN_CLOUD
    assert game.outcome() is None


def test_ruling_15_removal_at_an_outside_dot(
    tiny_board: Callable[..., Board], position: Position
) -> None:
    game = _cloud_game(tiny_board, position)
    game.cloud_phase("A 1 E")  # captures blue-1; the cloud is at (5, 4)
    game.set_turn("blue", Phase.CLOUD)
    events = game.cloud_phase("C 4 E", capture=())  # (8, 4) is an outside dot
    centre = CloudPose(4, 4, 0)
    assert CloudRemoved(("blue-1",), centre) in events
    assert game.ship("blue-1").status is ShipStatus.OUT
    assert game.pose == centre
    assert game.outcome() is None  # blue still has blue-2


# ------------------------------------------------------------------ end of game


def test_ruling_16_reaching_the_target_wins_at_once(
    ring: Ring, position: Position, cards: Callable[..., Game]
) -> None:
    game = position(ring(), 2, {"blue-1": "C", "yellow-1": "A"}, "blue", 1)
    hand = [("oil", 60_000), ("oil", 70_000), ("oil", 80_000), ("oil", 90_000),
            ("bananas", 10_000), ("bananas", 20_000)]  # fmt: skip
    game = cards(game, hands={"blue": hand}, piles={"oil": [100_000], "bananas": [30_000, 40_000]})
    assert game.totals()["blue"] == 330_000
    events = game.push("blue-1 C-SUGAR")  # the top sugar card is $30,000
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.reason is EndReason.TARGET
    assert outcome.winners == ("blue",)
    assert outcome.totals == {"blue": 360_000, "yellow": 0}
    assert events[-1] == GameOver(outcome)
    assert game.phase is Phase.OVER
    with pytest.raises(RulesError, match="over"):
        game.set_die(1)


def test_ruling_17_losing_every_ship_ends_the_game(
    tiny_board: Callable[..., Board], position: Position, cards: Callable[..., Game]
) -> None:
    board = tiny_board(SWEEP_PATHS, at=SWEEP_AT)
    game = position(board, 2, {"blue-1": "M", "yellow-1": "J"}, "blue")
    game = cards(game, hands={"blue": [("sugar", 50_000)], "yellow": [("oil", 60_000)]})
    game.set_turn("blue", Phase.CLOUD)
    game.cloud_phase("A 1 E")
    # blue's last ship is in the cloud: it still counts
    assert game.outcome() is None
    game.set_turn("blue", Phase.CLOUD)
    game.cloud_phase("A 4 E", capture=())
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.reason is EndReason.FLEET_LOST
    assert outcome.winners == ("yellow",)


def test_ruling_17_a_player_without_ships_can_win_and_ties_share(
    tiny_board: Callable[..., Board], position: Position, cards: Callable[..., Game]
) -> None:
    board = tiny_board(SWEEP_PATHS, at=SWEEP_AT)
    for blue_usd, winners in ((90_000, ("blue",)), (60_000, ("blue", "yellow"))):
        game = position(board, 2, {"blue-1": "M", "yellow-1": "J"}, "blue")
        game = cards(game, hands={"blue": [("sugar", blue_usd)], "yellow": [("oil", 60_000)]})
        game.set_turn("blue", Phase.CLOUD)
        game.cloud_phase("A 1 E")
        game.set_turn("blue", Phase.CLOUD)
        game.cloud_phase("A 4 E", capture=())
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.winners == winners


def test_ruling_18_no_cards_left_ends_the_game(
    ring: Ring, position: Position, cards: Callable[..., Game]
) -> None:
    game = position(ring(), 2, {"blue-1": "C", "yellow-1": "A"}, "blue", 1)
    empty = {"sugar": [80_000], "oil": [], "bananas": [], "lumber": []}
    game = cards(game, hands={"yellow": [("oil", 100_000)]}, piles=empty, bonus_left=0)
    game.push("blue-1 C-SUGAR")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.reason is EndReason.CARDS_GONE
    assert outcome.winners == ("yellow",)
    assert outcome.totals == {"blue": 80_000, "yellow": 100_000}


def test_ruling_18_not_over_while_a_bonus_card_remains(
    ring: Ring, position: Position, cards: Callable[..., Game]
) -> None:
    game = position(ring(), 2, {"blue-1": "C", "yellow-1": "A"}, "blue", 1)
    empty = {"sugar": [80_000], "oil": [], "bananas": [], "lumber": []}
    game = cards(game, piles=empty, bonus_left=1)
    game.push("blue-1 C-SUGAR")
    assert game.outcome() is None


class _Dice:
    """A stand-in random source that rolls the given values in turn."""

    def __init__(self, rolls: list[int]) -> None:
        self.rolls = list(rolls)

    def randint(self, low: int, high: int) -> int:
        return self.rolls.pop(0)


def test_ruling_19_high_roll_starts_and_ties_roll_again() -> None:
    dice = _Dice([5, 5, 2, 1, 3, 6])
    first, rounds = roll_for_first(["blue", "yellow", "green", "red"], dice)  # type: ignore[arg-type]
    assert first == "yellow"
    assert rounds == [
        {"blue": 5, "yellow": 5, "green": 2, "red": 1},
        {"blue": 3, "yellow": 6},
    ]


def test_ruling_19_play_goes_clockwise_from_the_first_player(classic_board: Board) -> None:
    for seed in range(6):
        game = Game.new(4, seed=seed, board=classic_board)
        first = game.order[0]
        final = game.setup_rolls[-1]
        assert final[first] == max(final.values())
        seat = game.players.index(first)
        assert game.order == game.players[seat:] + game.players[:seat]
        seen = []
        for _ in range(4):
            seen.append(game.active)
            game.roll_die()
            game.push(game.legal_moves()[0])
        assert tuple(seen) == game.order
        assert game.phase is Phase.CLOUD
    chosen = Game.new(3, seed=0, board=classic_board, first_player="green")
    assert chosen.order == ("green", "blue", "yellow")
