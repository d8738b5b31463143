"""The game session: every change to the game journalled at once, on a journal of its own
(no table, no camera)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from synthetic import observe, two_plain_moves

from bermuda_hw.controller.cloud_phase import Captures, plan_spin
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import corrected_move
from bermuda_hw.controller.journal import Journal, JournalWriteError
from bermuda_hw.controller.session import GameSession, NotThere, WrongCaptures
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import Candidate, Kind, candidates, contents
from bermuda_hw.rules.game import Game, Phase, ShipStatus

BOARD = load_board()


class Told:
    """What a session says, and the write errors it hands on."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.faults: list[str] = []


def _session(journal: Journal, told: Told, seed: int = 1) -> GameSession:
    return GameSession(
        BOARD,
        journal,
        players=2,
        seed=seed,
        options=None,
        say=told.lines.append,
        on_write_error=told.faults.append,
    )


def _reloaded(path: Path) -> Game:
    with Journal(path) as journal:
        loaded = journal.load(BOARD)
    assert loaded is not None
    return loaded[1]


def _a_move(game: Game, die: int) -> Candidate:
    """A move out of a port with `die`."""
    return next(c for c in candidates(game, frozenset({die})) if c.kind is Kind.MOVE)


def test_a_new_game_is_journalled_and_resumed(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    told = Told()
    with Journal(path) as journal:
        session = _session(journal, told)
        assert not session.load()  # an empty journal: nothing to resume
        game = session.new()
        assert session.game is game and session.game_id > 0
        assert told.lines[-1].startswith(f"new game {session.game_id}: 2 players")
    with Journal(path) as journal:
        again = _session(journal, Told())
        assert again.load()
        assert again.game_id == session.game_id and again.current.seed == game.seed


def test_a_move_applied_is_journalled_and_said(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    told = Told()
    with Journal(path) as journal:
        session = _session(journal, told)
        session.new()
        candidate = _a_move(session.current, 4)
        made, committed = session.apply(candidate)
        assert committed and made == candidate.move
        assert told.lines[-1].startswith(f"{session.current.order[0]} (die 4): ")
        length = len(session.current.journal)
    assert len(_reloaded(path).journal) == length


def test_a_move_the_journal_refuses_is_said_only_once_it_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told = Told()
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, told)
        session.new()
        said = len(told.lines)

        def refuse(game_id: int, game: Game) -> int:
            raise JournalWriteError("the disk is full (a test)")

        monkeypatch.setattr(journal, "sync", refuse)
        candidate = _a_move(session.current, 4)
        _, committed = session.apply(candidate)
        assert not committed and told.faults == ["the disk is full (a test)"]
        assert len(told.lines) == said  # nothing told that is not recorded
        monkeypatch.undo()
        assert session.commit()
        session.say_unsaid()
        assert told.lines[said].startswith(f"{session.current.order[0]} (die 4): ")
        session.say_unsaid()  # said once
        assert len([line for line in told.lines if "(die 4)" in line]) == 1


def test_a_pass_is_refused_while_every_die_gives_a_move(tmp_path: Path) -> None:
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, Told())
        session.new()  # at the start, every die moves a ship out of a port
        length = len(session.current.journal)
        with pytest.raises(ActionRefused, match="every die value gives a move"):
            session.pass_turn()
        assert len(session.current.journal) == length


def test_a_roll_and_its_undo(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        session = _session(journal, Told())
        session.new()
        die = session.roll()
        assert die is not None and _reloaded(path).die == die
        candidate = _a_move(session.current, die)
        made, _ = session.apply(candidate)
        assert session.undo() == str(made)
        assert _reloaded(path).journal == session.current.journal


def test_a_provisional_move_the_board_contradicts_is_taken_back(tmp_path: Path) -> None:
    path = tmp_path / "bermuda.db"
    told = Told()
    with Journal(path) as journal:
        session = _session(journal, told)
        session.new()
        before = len(session.current.journal)
        candidate = _a_move(session.current, 4)
        made, _ = session.apply(candidate, provisional=(str(candidate.move.end),))
        assert session.provisional_moves == (str(made),)
        assert "provisional: the camera cannot see" in told.lines[-1]
        (item,) = session.provisional
        assert session.rewind(item, [str(made.end)])
        assert len(session.current.journal) == before and session.provisional == []
        assert told.lines[-1].startswith(f"{made} was not made")
    assert len(_reloaded(path).journal) == before  # an undo entry: nothing deleted, taken back


def _as_seen(game: Game) -> dict[str, list[str]]:
    """The board showing the game's ships where the game has them."""
    return {p: list(c) for p, c in contents(game).items()}


def test_a_provisional_move_the_board_contradicts_is_reported(tmp_path: Path) -> None:
    told = Told()
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, told)
        session.new()
        before = session.current.copy()
        candidate = _a_move(session.current, 4)
        assert candidate.move is not None and candidate.move.end is not None
        end = str(candidate.move.end)
        session.apply(candidate, provisional=(end,))
        (item,) = session.provisional
        # the place out of sight: nothing to check yet
        assert session.check_provisional(observe(BOARD, _as_seen(before), hidden=[end])) is None
        assert session.provisional == [item]
        # in view, and the ship is not there
        said = len(told.lines)
        found = session.check_provisional(observe(BOARD, _as_seen(before)))
        assert isinstance(found, NotThere)
        assert found.item == item and found.wrong == [end]
        assert session.provisional == []  # handed to the caller to correct
        assert len(told.lines) == said  # nothing confirmed


@pytest.mark.parametrize(
    ("unseen", "taken", "said"),
    [
        ("end", False, "confirmed"),  # the ship is where the move took it
        # the cloud took the ship before its landing came into view: an empty place
        # confirms nothing (the ship could have stood anywhere under the cloud)
        ("end", True, "never seen"),
        # only the start was out of sight: the ship was seen arriving on its landing
        ("start", True, "confirmed"),
    ],
)
def test_a_provisional_move_the_board_shows_is_confirmed_and_one_never_seen_is_said_so(
    tmp_path: Path, unseen: str, taken: bool, said: str
) -> None:
    told = Told()
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, told)
        session.new()
        candidate = _a_move(session.current, 4)
        move = candidate.move
        assert move is not None and move.end is not None
        place = move.end if unseen == "end" else move.start
        made, _ = session.apply(candidate, provisional=(str(place),))
        if taken:
            session.current.set_ship(move.ship, None, status=ShipStatus.IN_CLOUD)
        assert session.check_provisional(observe(BOARD, _as_seen(session.current))) is None
        assert session.provisional == []
        if said == "confirmed":
            assert told.lines[-1] == f"confirmed: {made}"
        else:
            assert told.lines[-1].startswith(f"never seen: {made}: {move.ship} left {move.end} ")
            assert not any(line.startswith("confirmed") for line in told.lines)


def test_hand_edits_keep_only_the_provisional_moves_since(tmp_path: Path) -> None:
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, Told())
        session.new()
        first = _a_move(session.current, 4)
        assert first.move is not None and first.move.end is not None
        session.apply(first, provisional=(str(first.move.end),))
        second = _a_move(session.current, 3)
        assert second.move is not None and second.move.end is not None
        keep_since = len(session.current.journal)
        session.apply(second, provisional=(str(second.move.end),))
        earlier, later = session.provisional
        assert earlier.count < keep_since <= later.count
        assert session.edit([], keep_since)
        assert session.provisional == [later]
        assert session.edit([], later.count + 1)
        assert session.provisional == []


def test_hand_edits_the_journal_refuses_keep_the_provisional_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Journal(tmp_path / "bermuda.db") as journal:
        told = Told()
        session = _session(journal, told)
        session.new()
        candidate = _a_move(session.current, 4)
        assert candidate.move is not None and candidate.move.end is not None
        session.apply(candidate, provisional=(str(candidate.move.end),))
        kept = list(session.provisional)

        def refuse(game_id: int, game: Game) -> int:
            raise JournalWriteError("the disk is full (a test)")

        monkeypatch.setattr(journal, "sync", refuse)
        assert not session.edit([], len(session.current.journal) + 1)
        assert session.provisional == kept and told.faults == ["the disk is full (a test)"]


def test_a_corrected_move_forgets_the_provisional_entries_it_replaces(tmp_path: Path) -> None:
    game, taken, shown = two_plain_moves(BOARD, 1)
    told = Told()
    with Journal(tmp_path / "bermuda.db") as journal:
        session = GameSession(
            BOARD,
            journal,
            players=3,
            seed=game.seed,
            options=None,
            say=told.lines.append,
            on_write_error=told.faults.append,
        )
        session.new()
        assert session.roll() == game.die
        truth = session.current.copy()
        truth.push(shown)
        assert taken.end is not None
        candidate = next(
            c
            for c in candidates(session.current, frozenset({game.die}))
            if c.move is not None and c.move == taken
        )
        session.apply(candidate, provisional=(str(taken.end),))
        (item,) = session.provisional
        earlier = Provisional(item.count - 1, "an earlier move", ("X",))
        later = Provisional(item.count + 1, "a later move", ("X",))
        session.provisional = [earlier, item, later]
        corrected = corrected_move(session.current, item, observe(BOARD, _as_seen(truth)), "table")
        assert corrected is not None
        assert session.correct_move(item, corrected)
        assert session.provisional == [earlier]  # the move and what followed it: replaced
        assert contents(session.current) == contents(truth)
        assert any(
            line.startswith(f"{item.move} is not where the ship went") for line in told.lines
        )


def test_a_new_game_forgets_what_the_last_one_held_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told = Told()
    with Journal(tmp_path / "bermuda.db") as journal:
        session = _session(journal, told)
        session.new()
        sync = journal.sync

        def refuse(game_id: int, game: Game) -> int:
            raise JournalWriteError("the disk is full (a test)")

        monkeypatch.setattr(journal, "sync", refuse)
        candidate = _a_move(session.current, 4)
        assert candidate.move is not None and candidate.move.end is not None
        session.apply(candidate, provisional=(str(candidate.move.end),))
        assert session.provisional
        monkeypatch.setattr(journal, "sync", sync)
        session.new()
        assert session.provisional == []
        said = len(told.lines)
        session.say_unsaid()
        assert len(told.lines) == said  # the old game's move is never said
        assert not any("(die 4)" in line for line in told.lines)


def _out_of_sight(session: GameSession, die: int) -> Provisional:
    """A move out of a port with `die` made with its landing out of sight: its item."""
    candidate = _a_move(session.current, die)
    assert candidate.move is not None and candidate.move.end is not None
    session.apply(candidate, provisional=(str(candidate.move.end),))
    return session.provisional[-1]


def _resumed(path: Path) -> tuple[list[Provisional], Game]:
    """What a session that resumes the journal's game (as after a restart) holds back as
    provisional, and its game."""
    with Journal(path) as journal:
        session = _session(journal, Told())
        assert session.load()
        return session.provisional, session.current


@pytest.mark.parametrize("how", ["the table", "the board"])
def test_a_provisional_move_confirmed_stays_confirmed_after_a_restart(
    tmp_path: Path, how: str
) -> None:
    """A "yes" from the table, or the board showing the ship on its landing, is journalled
    (a settled row): a restart neither checks the move again nor asks about it, while
    the other provisional move of the round is still held back; the game is the same."""
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        told = Told()
        session = _session(journal, told)
        session.new()
        confirmed, held = _out_of_sight(session, 4), _out_of_sight(session, 3)
        assert [p.move for p in _resumed(path)[0]] == [confirmed.move, held.move]
        if how == "the table":
            session.confirmed(confirmed)
        else:  # the first landing in view with its ship, the second still hidden
            seen = observe(BOARD, _as_seen(session.current), hidden=held.places)
            assert session.check_provisional(seen) is None
            assert told.lines[-1] == f"confirmed: {confirmed.move}"
        assert session.provisional == [held] and not told.faults
        provisional, game = _resumed(path)
        assert provisional == session.provisional
        assert game.journal == session.current.journal


def test_a_settled_row_names_its_row_and_an_undo_leaves_nothing_settled(tmp_path: Path) -> None:
    """The settled row names the move's row, not its place in the game: once the move is
    taken back and another made provisionally in its place, that one is not settled."""
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        session = _session(journal, Told())
        session.new()
        item = _out_of_sight(session, 4)
        session.confirmed(item)
        assert journal.settled(session.game_id) == {len(session.current.journal) - 1}
        assert session.rewind(item, (), why="a test")
        assert journal.settled(session.game_id) == set()
        redone = _out_of_sight(session, 4)
        assert session.provisional == [redone] and redone.count == item.count
        assert [p.move for p in _resumed(path)[0]] == [redone.move]


def test_a_settlement_the_journal_refuses_is_said_and_the_move_checked_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        told = Told()
        session = _session(journal, told)
        session.new()
        item = _out_of_sight(session, 4)

        def refuse(game_id: int, index: int) -> None:
            raise JournalWriteError("the disk is full (a test)")

        monkeypatch.setattr(journal, "settle", refuse)
        session.confirmed(item)
        assert session.provisional == [] and told.faults == []  # the game goes on
        assert f"the journal did not record that {item.move} stands" in told.lines[-2]
        assert "the disk is full (a test)" in told.lines[-2]
        assert told.lines[-1] == f"confirmed by the table: {item.move}"
        assert _resumed(path)[0] == [item]


def test_a_cloud_phases_captures_confirmed_in_view_stay_confirmed_after_a_restart(
    tmp_path: Path,
) -> None:
    """The captures of a cloud phase from places the cloud covered are held back until
    the board shows those places; once it does, the settled row names the cloud phase's
    row, and a restart does not check them again."""
    path = tmp_path / "bermuda.db"
    with Journal(path) as journal:
        session = _session(journal, Told())
        session.new()
        while session.current.phase is not Phase.CLOUD:
            session.apply(_a_move(session.current, 4))
        assert session.cloud_phase(Captures(frozenset(), ("S40",))) is not None
        (item,) = session.provisional
        assert item.captures and "cloud" in session.current.journal[item.count]
        assert _resumed(path)[0] == [item]
        assert session.check_provisional(observe(BOARD, _as_seen(session.current))) is None
        assert session.provisional == []
        assert journal.settled(session.game_id) == {item.count}
        assert _resumed(path)[0] == []


def _swept_in_port(game: Game) -> tuple[str, str] | None:
    """A ship in a port that the game's next cloud phase sweeps (previewed on a copy, whose
    random source draws the same spin), and its port."""
    swept = plan_spin(game, None).swept
    return next(
        ((s.id, s.location) for s in game.ships() if s.id in swept and s.location in BOARD.ports),
        None,
    )


def test_a_capture_from_a_port_is_checked_only_once_every_berth_is_in_view(
    tmp_path: Path,
) -> None:
    """A ship the cloud took from a port, provisionally, is not confirmed gone while only
    some of the port's berths are in view: the token may stand in a berth still under the
    cloud's rim. Once every berth is in view and shows it, the capture is corrected."""
    for seed in range(1, 60):
        with Journal(tmp_path / f"bermuda-{seed}.db") as journal:
            session = _session(journal, Told(), seed=seed)
            session.new()
            while session.current.phase is not Phase.CLOUD:
                session.apply(_a_move(session.current, 4))
            found_ship = _swept_in_port(session.current)
            if found_ship is None:
                continue
            taken, port = found_ship
            before = session.current.copy()
            assert session.cloud_phase(Captures(frozenset({taken}), (port,))) is not None
            (item,) = session.provisional
            covered = observe(BOARD, _as_seen(session.current), hidden=[port])
            assert covered.evidence is not None
            observable = covered.evidence.observable.copy()
            observable[covered.evidence.berths(port)[0]] = 1.0  # one berth out of the rim
            partly = dataclasses.replace(
                covered, evidence=dataclasses.replace(covered.evidence, observable=observable)
            )
            assert session.check_provisional(partly) is None
            assert session.provisional == [item]
            found = session.check_provisional(observe(BOARD, _as_seen(before)))
            assert isinstance(found, WrongCaptures)
            assert f"the magnets left {taken} on {port}" in found.corrected.changes
            return
    pytest.fail("no seed's first cloud phase sweeps a ship in a port")


def test_a_provisional_move_whose_start_still_holds_its_ship_is_taken_back(
    tmp_path: Path,
) -> None:
    """A move taken while its start port was seen in part (`ship_phase`: the ship perhaps
    still in a berth under the cloud's rim), that port provisional: seen whole with the ship
    still in it, the move is contradicted (one more of its colour there than the game has,
    which the check of missing ships alone would never show), even where the board also
    shows a ship of that colour on the landing (a stray); seen whole without it, confirmed."""
    for stays in (True, False):
        told = Told()
        with Journal(tmp_path / f"{stays}.db") as journal:
            session = _session(journal, told)
            session.new()
            before = session.current.copy()
            candidate = _a_move(session.current, 4)
            assert candidate.move is not None and candidate.move.end is not None
            start = candidate.move.start
            session.apply(candidate, provisional=(start,))
            assert f"cannot see {start} whole" in told.lines[-1]
            (item,) = session.provisional
            board = _as_seen(session.current)
            if stays:
                board[start].append(candidate.move.ship.split("-")[0])
            found = session.check_provisional(observe(BOARD, board))
            if stays:
                assert isinstance(found, NotThere) and found.wrong == [start]
                assert found.why == f"{start} seen with the ship still there"
            else:
                assert found is None and session.provisional == []
                assert told.lines[-1] == f"confirmed: {item.move}"
            assert session.current.journal[: len(before.journal)] == before.journal
