"""The game's position is one value: copying, saving and loading each work on it alone.

Also: rules/game.py holds no persistence (that is rules/record.py), and the
JSON documents written by earlier releases still load, byte for byte
(tests/rules/saved: a finished 4-player game with the digital ledger and
capture probability 0.5, and a 3-player game in progress with table dice, a
given spin and capture, position edits and a provisional note; each as the
JSON state and as the journal record, written by the format-1 code of main
ae33345 before the position became one value).
"""

from __future__ import annotations

import ast
import inspect
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bermuda_hw.rules.game as game_module
from bermuda_hw.errors import RulesError, StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game, GameOptions, Phase, Position
from bermuda_hw.rules.play import random_chooser
from bermuda_hw.rules.record import (
    FORMAT_VERSION,
    from_json,
    position_from_dict,
    position_to_dict,
    replay,
    to_dict,
    to_json,
)
from bermuda_hw.rules.record import record as game_record

SAVED = Path(__file__).parent / "saved"
SAVED_GAMES = ("v1-finished-4p", "v1-midgame-3p")

games = st.builds(
    lambda seed, players, ledger, p: (seed, players, GameOptions(ledger, p)),
    st.integers(0, 2**32 - 1),
    st.integers(2, 4),
    st.booleans(),
    st.sampled_from([1.0, 0.5, 0.0]),
)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _play(game: Game, plies: int, rng: random.Random) -> None:
    """`plies` random actions (rolls, moves, cloud phases), or fewer if the game ends."""
    pick = random_chooser(rng)
    for _ in range(plies):
        if game.is_over():
            return
        if game.phase is Phase.CLOUD:
            game.cloud_phase()
        elif game.die is None:
            game.roll_die()
        else:
            game.push(pick(game, game.legal_moves()))


def _fixed_parts(game: Game) -> dict[str, Any]:
    """Every attribute of a game but its position, journal (with the game before each entry,
    for `Game.pop`), random source and legal-move cache."""
    changing = ("_position", "journal", "_before", "rng", "_legal")
    return {k: v for k, v in vars(game).items() if k not in changing}


# ------------------------------------------------------------ one value


@SETTINGS
@given(games, st.integers(0, 200), st.integers(1, 200))
def test_a_copy_plays_on_without_touching_the_original(
    classic_board: Board, spec: tuple[int, int, GameOptions], plies: int, more: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    _play(game, plies, random.Random(seed))
    before = game.position
    journal = [dict(e) for e in game.journal]
    rng = game.rng.getstate()
    twin = game.copy()
    assert twin.position is before  # shared: it is immutable
    _play(twin, more, random.Random(seed + 1))
    assert game.position is before
    assert game.journal == journal and game.rng.getstate() == rng
    # and the original still plays exactly as it would have
    again = replay(game_record(game), classic_board)
    assert again.position == game.position


@SETTINGS
@given(games, st.integers(0, 300))
def test_state_and_record_round_trip_equal_positions(
    classic_board: Board, spec: tuple[int, int, GameOptions], plies: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    _play(game, plies, random.Random(seed))
    assert from_json(to_json(game), classic_board).position == game.position
    assert replay(game_record(game), classic_board).position == game.position
    fields = json.loads(json.dumps(position_to_dict(game)))
    loaded = position_from_dict(fields, game)
    assert isinstance(loaded, Position) and loaded == game.position
    for die in (None, 1, 6):  # the fast path of a roll is `_replace` by another name
        assert game.position.with_die(die) == game.position._replace(die=die)
        assert type(game.position.with_die(die)) is Position


@SETTINGS
@given(games, st.integers(1, 120))
def test_every_rule_changes_only_the_position_journal_and_dice(
    classic_board: Board, spec: tuple[int, int, GameOptions], plies: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    fixed = _fixed_parts(game)
    snapshot = {k: (v, repr(v)) for k, v in fixed.items()}
    _play(game, plies, random.Random(seed))
    assert _fixed_parts(game).keys() == fixed.keys()
    for key, (value, text) in snapshot.items():
        assert getattr(game, key) is value and repr(value) == text, key


def test_a_position_moves_to_another_game_in_one_assignment(classic_board: Board) -> None:
    played = Game.new(3, seed=4, board=classic_board, first_player="green")
    _play(played, 40, random.Random(4))
    fresh = Game.new(3, seed=4, board=classic_board, first_player="green")
    fresh.position = played.position
    assert fresh.position is played.position
    assert (fresh.round, fresh.turn, fresh.phase, fresh.die, fresh.pose) == (
        played.round,
        played.turn,
        played.phase,
        played.die,
        played.pose,
    )
    assert fresh.ships() == played.ships() and fresh.totals() == played.totals()
    assert fresh.blocked == played.blocked
    if fresh.phase is Phase.SHIPS and fresh.die is not None:
        assert fresh.legal_moves() == played.legal_moves()


def test_a_position_of_another_shape_is_refused(classic_board: Board) -> None:
    two = Game.new(2, seed=1, board=classic_board)
    four = Game.new(4, seed=1, board=classic_board)
    with pytest.raises(RulesError, match="8 ships"):
        two.position = four.position


def test_an_illegal_move_leaves_the_position_as_it_was(classic_board: Board) -> None:
    game = Game.new(2, seed=5, board=classic_board)
    game.set_die(3)
    before = game.position
    legal = game.legal_moves()
    wrong = next(m for m in game.legal_moves(5) if m not in legal)
    with pytest.raises(RulesError):
        game.push(wrong)
    assert game.position is before


def test_the_legal_move_cache_follows_the_position(classic_board: Board) -> None:
    game = Game.new(2, seed=5, board=classic_board, first_player="blue")
    game.set_die(4)
    moves = game.legal_moves()
    other = game.copy()
    other.push(moves[0])
    other.set_turn("blue")
    other.set_die(4)
    assert other.legal_moves() != moves  # recomputed for the new position
    assert game.legal_moves() == moves


# ------------------------------------------------------- persistence split


def test_the_rules_module_holds_no_persistence() -> None:
    tree = ast.parse(inspect.getsource(game_module))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert "json" not in imported
    for name in ("record", "replay", "to_json", "from_json", "to_dict", "_from_dict", "_apply"):
        assert not hasattr(Game, name), name
    assert not hasattr(game_module, "FORMAT") and not hasattr(game_module, "FORMAT_VERSION")


# ------------------------------------------------------------ saved games


@pytest.mark.parametrize("name", SAVED_GAMES)
def test_states_written_by_earlier_releases_load_and_save_byte_for_byte(
    classic_board: Board, name: str
) -> None:
    text = (SAVED / f"{name}.json").read_text("utf-8").strip()
    assert json.loads(text)["version"] == FORMAT_VERSION
    game = from_json(text, classic_board)
    assert to_json(game) == text
    # the journal record written beside it replays to the same position
    record = json.loads((SAVED / f"{name}.record.json").read_text("utf-8"))
    replayed = replay(record, classic_board)
    assert replayed.position == game.position
    assert to_dict(replayed) == to_dict(game)
    assert game_record(game) == record


def test_saved_games_cover_what_the_format_holds(classic_board: Board) -> None:
    finished = from_json((SAVED / "v1-finished-4p.json").read_text("utf-8"), classic_board)
    assert finished.is_over() and finished.phase is Phase.OVER
    assert any(s.location is None for s in finished.ships())
    assert finished.options.digital_ledger and finished.setup_rolls
    going = from_json((SAVED / "v1-midgame-3p.json").read_text("utf-8"), classic_board)
    assert going.die is not None and not going.is_over() and going.round == 2
    kinds = {next(iter(e)) for e in going.journal}
    assert {"roll", "move", "cloud", "set-ship", "set-cloud"} <= kinds
    assert any("provisional" in e for e in going.journal)
    # the game in progress plays on
    going.push(going.legal_moves()[0])


def test_a_saved_state_with_a_broken_position_names_the_field(classic_board: Board) -> None:
    data = json.loads((SAVED / "v1-midgame-3p.json").read_text("utf-8"))
    data["cloud"]["col"] = 99
    with pytest.raises(StateError, match="off the dot grid"):
        from_json(json.dumps(data), classic_board)
    data = json.loads((SAVED / "v1-midgame-3p.json").read_text("utf-8"))
    data["turn"] = 7
    with pytest.raises(StateError, match="turn 7"):
        from_json(json.dumps(data), classic_board)


# ------------------------------------------------------------ taking entries back


@SETTINGS
@given(games, st.integers(0, 150), st.integers(0, 150), st.integers(0, 40))
def test_pop_takes_entries_back_as_a_replay_of_the_shorter_journal_would(
    classic_board: Board, spec: tuple[int, int, GameOptions], plies: int, back: int, more: int
) -> None:
    seed, players, options = spec
    game = Game.new(players, seed=seed, board=classic_board, options=options)
    _play(game, plies, random.Random(seed))
    back = min(back, len(game.journal))
    kept = game.journal[: len(game.journal) - back]
    taken = game.journal[len(game.journal) - back :]
    assert game.pop(back) == taken
    assert game.journal == kept
    replayed = replay({**game_record(game), "journal": kept}, classic_board)
    assert game.position == replayed.position
    # the dice to come are the replay's too: both play on alike
    _play(game, more, random.Random(seed + 1))
    _play(replayed, more, random.Random(seed + 1))
    assert game.journal == replayed.journal and game.position == replayed.position


def test_pop_refuses_more_than_the_journal_and_a_restored_game(classic_board: Board) -> None:
    game = Game.new(2, seed=3, board=classic_board)
    _play(game, 12, random.Random(3))
    with pytest.raises(RulesError, match="journal holds 12"):
        game.pop(13)
    assert len(game.journal) == 12
    restored = from_json(to_json(game), classic_board)
    with pytest.raises(RulesError, match="restored from a saved position"):
        restored.pop(1)
    assert restored.journal == game.journal
    # a replay of its record plays every entry again: it can take any back
    replayed = replay(game_record(restored), classic_board)
    assert len(replayed.pop(12)) == 12 and replayed.journal == []
