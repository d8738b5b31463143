"""The computer player: always legal, deterministic from its seed, and it plays to win."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from midgames import midgame, midgames

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cards import PRODUCT_CARDS_USD
from bermuda_hw.rules.computer import (
    TABLE_SEAT,
    ComputerPlayer,
    Weights,
    describe_move,
    evaluate,
    greedy_chooser,
    match,
    score_moves,
)
from bermuda_hw.rules.danger import place_odds, sweep_odds
from bermuda_hw.rules.events import BonusTaken, Bumped, CardTaken
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move, walk_table
from bermuda_hw.rules.play import Chooser, random_chooser, simulate_game
from bermuda_hw.rules.record import to_json

BOARD = load_board()
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(midgames, st.sampled_from(["easy", "best"]), st.integers(0, 1000), st.integers(1, 6))
def test_the_chosen_move_is_always_legal_and_the_game_is_untouched(
    game: Game, level: str, seed: int, die: int
) -> None:
    if game.is_over():
        return
    before = to_json(game)
    player = ComputerPlayer(level, seed=seed)
    assert player.choose(game) in game.legal_moves()
    assert player.choose(game, die) in game.legal_moves(die)
    assert to_json(game) == before


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 4))
def test_whole_games_of_computer_seats_end_by_the_rules(seed: int, players: int) -> None:
    levels = ["best", "easy", "best", "easy"]
    seats = {
        color: ComputerPlayer(levels[k], seed=seed + k)
        for k, color in enumerate(BOARD.ship_colors[:players])
    }

    def choose(game: Game, moves: list[Move]) -> Move:
        move = seats[game.active](game, moves)
        assert move in moves
        return move

    result = simulate_game(players, seed, board=BOARD, choose=choose, keep_rounds=False)
    assert result.game.is_over()


def test_the_same_seed_plays_the_same_game_and_another_seed_another() -> None:
    def journal(seed: int) -> list[dict[str, Any]]:
        chooser = ComputerPlayer("easy", seed=seed)
        return simulate_game(2, 11, board=BOARD, choose=chooser).game.journal

    assert journal(5) == journal(5)
    assert journal(5) != journal(6)


def test_best_is_deterministic_and_takes_the_top_score() -> None:
    for seed in range(20):
        game = midgame(seed, 2, 30)
        if game.is_over():
            continue
        scores = score_moves(game)
        top = max(s.score for s in scores)
        choice = ComputerPlayer("best", seed=seed).choose(game)
        assert choice == next(s.move for s in scores if s.score == top)
        assert ComputerPlayer("best", seed=seed + 1).choose(game) == choice


def test_easy_sometimes_plays_other_than_best() -> None:
    same = other = 0
    easy = ComputerPlayer("easy", seed=3)
    for seed in range(60):
        game = midgame(seed, 2, 20)
        if game.is_over() or len(game.legal_moves()) < 3:
            continue
        if easy.choose(game) == ComputerPlayer("best").choose(game):
            same += 1
        else:
            other += 1
    assert same > 0 and other > 0


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(RulesError, match="easy or best"):
        ComputerPlayer("hard")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 3), st.integers(0, 60))
def test_best_takes_a_move_that_reaches_the_target(seed: int, players: int, turns: int) -> None:
    # a low target makes a winning dock common in real play
    game = midgame(seed, players, turns, GameOptions(target_usd=60_000))
    if game.is_over():
        return
    color = game.active
    winning = []
    for move in game.legal_moves():
        trial = game.copy()
        trial.push(move)
        outcome = trial.outcome()
        if outcome is not None and outcome.winners == (color,):
            winning.append(move)
    choice = ComputerPlayer("best").choose(game)
    if winning:
        assert choice in winning


@settings(max_examples=40, deadline=None)
@given(midgames)
def test_with_ships_worth_everything_best_keeps_its_fleet_safest(game: Game) -> None:
    """Only the fleets' danger counts: the mover's own, against its safest opponent's."""
    if game.is_over():
        return
    color = game.active
    careful = ComputerPlayer("best", weights=Weights(ship_usd=1e12, win_usd=1e18))

    def margin(move: Move) -> float:
        trial = game.copy()
        trial.push(move)
        outcome = trial.outcome()
        if outcome is not None:
            return 1e6 if color in outcome.winners else -1e6
        odds = sweep_odds(trial).swept
        risk = {
            c: float(sum(p for ship, p in odds.items() if ship.startswith(c + "-")))
            for c in game.players
        }
        return min(r for c, r in risk.items() if c != color) - risk[color]

    margins = {m: margin(m) for m in game.legal_moves()}
    # the cards' few hundred thousand dollars against 1e12 a ship: below 1e-5 of a ship
    assert margins[careful.choose(game)] >= max(margins.values()) - 1e-5


def test_the_danger_of_every_place_is_the_danger_map_of_the_ships_there() -> None:
    for seed in range(6):
        game = midgame(seed, 4, 40 + seed)
        odds = place_odds(BOARD, game.pose).swept
        for ship, chance in sweep_odds(game).swept.items():
            location = game.ship(ship).location
            assert location is not None
            assert odds[location] == chance


def test_evaluate_counts_a_win_and_the_cards_in_hand() -> None:
    for seed in range(10):
        result = simulate_game(
            2,
            seed,
            board=BOARD,
            options=GameOptions(target_usd=60_000),
            choose=greedy_chooser(random.Random(seed)),
        )
        game = result.game
        worth = evaluate(game)
        outcome = game.outcome()
        assert outcome is not None and set(worth) == set(game.players)
        w = Weights()
        top_card = max(max(v) for v in PRODUCT_CARDS_USD.values())
        for color in game.players:
            won = game.totals()[color] >= 60_000
            assert (worth[color] >= w.win_usd) == won
            if not won:
                # the cards in hand, and at most the biggest card twice and a win's bonus
                most = w.next_card * (1 + w.later_card) * top_card + w.next_win_usd
                assert worth[color] <= game.totals()[color] + most


def test_best_beats_a_random_mover_and_a_greedy_card_taker() -> None:
    # the full figures (1,000 games each) are `make bench`'s; a few games show the direction
    def best(seed: int) -> Chooser:
        return ComputerPlayer("best", seed=seed)

    def mover(seed: int) -> Chooser:
        return random_chooser(random.Random(seed))

    def greedy(seed: int) -> Chooser:
        return greedy_chooser(random.Random(seed))

    assert match(best, mover, 20, board=BOARD).share >= 0.8
    assert match(best, greedy, 30, board=BOARD).share >= 0.55


def test_the_greedy_card_taker_docks_for_the_biggest_card() -> None:
    greedy = greedy_chooser(random.Random(0))
    checked = 0
    for seed in range(40):
        game = midgame(seed, 2, seed)
        if game.is_over():
            continue
        values = {}
        for move in game.legal_moves():
            trial = game.copy()
            events = trial.push(move)
            values[move] = sum(e.value_usd for e in events if isinstance(e, CardTaken | BonusTaken))
        choice = greedy(game, game.legal_moves())
        assert values[choice] == max(values.values())
        checked += 1
    assert checked > 20


def test_a_move_in_words() -> None:
    said: set[str] = set()
    for seed in range(80):
        game = midgame(seed, 2, seed % 40)
        if game.is_over():
            continue
        color, die = game.active, game.position.die
        for move in game.legal_moves():
            text = describe_move(game, move)
            if move.is_pass:
                assert text == f"{color}, {TABLE_SEAT}, rolls {die}: no move; passes"
                said.add("pass")
                continue
            assert text.startswith(
                f"{color}, {TABLE_SEAT}, rolls {die}: {move.ship} from {move.start} to {move.end}"
            )
            trial = game.copy()
            for event in trial.push(move):
                if isinstance(event, CardTaken):
                    assert f"takes {event.product} worth ${event.value_usd:,}" in text
                    said.add("card")
                elif isinstance(event, BonusTaken):
                    assert "Home Port bonus of $20,000" in text
                    said.add("bonus")
                elif isinstance(event, Bumped):
                    assert f"sends {event.ship} back to {event.port}" in text
                    said.add("bump")
            assert describe_move(game, move, seat=None).startswith(f"{color} rolls {die}: ")
    assert {"card", "bump"} <= said


def test_closed_ports_are_the_ports_a_colour_may_not_enter(
    ring: Callable[..., Board], position: Callable[..., Game]
) -> None:
    ships = {
        "blue-1": "C",
        "blue-2": "SUGAR",
        "blue-3": "SUGAR",
        "yellow-1": "OIL",
        "green-1": "OIL",
        "red-1": "OIL",
        "red-2": "OIL",
    }
    game = position(ring(), 4, ships, "blue", 1)
    bit = walk_table(game.board).port_bit
    assert game.closed_ports("blue") == bit["SUGAR"] | bit["OIL"]  # two own; four of four
    assert game.closed_ports("yellow") == bit["OIL"]
    three = position(
        ring(), 3, {"blue-1": "SUGAR", "yellow-1": "SUGAR", "green-1": "SUGAR"}, "blue", 1
    )
    assert three.closed_ports("green") == bit["SUGAR"]
    with pytest.raises(RulesError, match="not a player"):
        three.closed_ports("red")


def test_computer_seats_are_a_setup_option_kept_with_the_game() -> None:
    options = GameOptions(computer={"yellow": "easy", "blue": "best"})  # type: ignore[arg-type]
    assert options.computer == (("blue", "best"), ("yellow", "easy"))
    game = Game.new(2, seed=9, options=options)
    assert game.setup["options"]["computer"] == {"blue": "best", "yellow": "easy"}
    # through JSON (the journal's setup) and back: the same options
    import json

    again = GameOptions(**json.loads(json.dumps(game.setup["options"])))
    assert again == options and hash(again) == hash(options)
    # no seats: the setup is as it always was
    assert "computer" not in Game.new(2, seed=9).setup["options"]


@pytest.mark.parametrize(
    ("seats", "players", "reason"),
    [
        ({"blue": "hard"}, 2, "easy or best, not 'hard'"),
        ({"red": "best"}, 2, "'red' does not play"),
        ([["blue", "best"], ["blue", "easy"]], 2, "named twice"),
        (5, 2, "must map colours to levels"),
    ],
)
def test_computer_seats_that_cannot_be_are_refused(seats: Any, players: int, reason: str) -> None:
    with pytest.raises(RulesError, match=reason):
        Game.new(players, seed=1, options=GameOptions(computer=seats))
