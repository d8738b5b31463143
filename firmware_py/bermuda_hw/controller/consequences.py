"""What a board means for the game beyond one move: which swept ships the cloud took (the
camera's word before and after a spin), the hand edits that make the game what the camera
sees, the moves and captures still to be checked once the cloud uncovers their places, and
what a candidate move leaves unexplained."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bermuda_hw.controller.identify import Difference, difference, expected_places
from bermuda_hw.rules.board import Point
from bermuda_hw.rules.candidates import Candidate, as_contents
from bermuda_hw.rules.cloud import Spin, plan_spin, swept_ships
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.rules.moves import split_ship_id
from bermuda_hw.vision.types import BoardObservation


@dataclass
class Provisional:
    """A move taken into places the camera could not see, or a cloud phase's captures from
    places it covered, to check when they come into view."""

    count: int  # the journal's length before the move's entries (or the cloud phase's entry)
    move: str
    places: tuple[str, ...]
    captures: bool = False  # the captures of the cloud phase at `count`
    #: of a cloud phase's ships, those the table told of (ship, taken), kept while its
    #: other places are still to check (not journalled: asked again after a restart)
    told: tuple[tuple[str, bool], ...] = ()


def ship_points(game: Game) -> dict[str, Point]:
    """Where the game's ships may stand: a path space's centre, or every berth of their port."""
    out: dict[str, Point] = {}
    for ship in game.ships():
        if ship.location is None:
            continue
        port = game.board.ports.get(ship.location)
        if port is None:
            out[ship.id] = game.board.spaces[ship.location].position
        else:
            for k, berth in enumerate(port.berths):
                out[f"{ship.id}#{k}"] = berth
    return out


def taken_by_track(
    game: Game, spin: Spin, observation: BoardObservation | None
) -> tuple[Counter[tuple[str, str | None]], frozenset[str]]:
    """Before a spin: the ships seen within the magnets' reach of the spin's track, by
    (colour, place), and the places the camera saw.

    The rules' sweep knows only each ship's place (a port's ship may stand on
    any berth); the camera saw which berth each token stands on. A token may
    stand off its berth's or space's centre by up to `STAND_TOLERANCE_MM`, so a
    ship within the capture radius plus that counts. For a place the cloud then
    covers, this is the best word on what it took.
    """
    taken: Counter[tuple[str, str | None]] = Counter()
    if observation is None:
        return taken, frozenset()
    board = game.board
    path = plan_spin(board.grid, game.pose, spin, board.cloud)
    ships = [s for s in observation.ships if not s.hidden and s.space is not None]
    points = {str(i): (s.x_mm, s.y_mm) for i, s in enumerate(ships)}
    for key in swept_ships(board, path, points, STAND_TOLERANCE_MM):
        ship = ships[int(key)]
        taken[(ship.color, ship.space)] += 1
    places = {s.space for s in ships if s.space is not None}
    places.update(s for s in board.spaces if s not in observation.hidden_spaces)
    return taken, frozenset(places)


def captured_ships(
    game: Game,
    swept: frozenset[str],
    observation: BoardObservation,
    taken: Counter[tuple[str, str | None]] | None = None,
    taken_from: frozenset[str] = frozenset(),
) -> frozenset[str]:
    """The swept ships the camera no longer sees, place by place.

    For every place that held swept ships, as many ships as are missing there
    are captured, swept ships first in seat order. A swept ship on a place now
    under the cloud cannot be seen: if the camera saw the place before the spin,
    the ships it saw standing within the magnets' track (`taken_by_track`) are
    captured; else every swept ship there is (it lies where the magnets pass).
    """
    expected = expected_places(game)
    seen = Counter((s.color, s.space) for s in observation.ships if not s.hidden)
    groups: dict[tuple[str, str | None], list[str]] = {}
    for sid in game.ship_ids:
        if sid in swept:
            ship = game.ship(sid)
            groups.setdefault((ship.color, ship.location), []).append(sid)
    captured: set[str] = set()
    for place, ships in groups.items():
        if place[1] is not None and place[1] in observation.hidden_spaces:
            if taken is not None and place[1] in taken_from:
                captured.update(ships[: taken[place]])
            else:
                captured.update(ships)
            continue
        missing = max(0, expected[place] - seen[place])
        captured.update(ships[:missing])
    return frozenset(captured)


def hand_edits(
    game: Game, diff: Difference, going_back: tuple[str, ...] = ()
) -> list[tuple[str, str | None]]:
    """The ship edits that make the game's placement what the camera sees.

    A ship expected where none is seen goes where a ship of its colour is seen
    that the game does not have (or out of the game if there is none); a ship
    seen that the game does not have, with no such ship to move, comes back from
    the cloud or from out of the game if one of its colour is there. The ships
    `going_back` (bumped by the move just made, on their way to their ports as
    the players are asked next) are not missing.
    """
    back = Counter((game.ship(s).color, game.ship(s).location) for s in going_back)
    missing = []
    for item in diff.missing:
        if back[item] > 0:
            back[item] -= 1
        else:
            missing.append(item)
    extra = [e for e in diff.extra if e[1] is not None]
    edits: list[tuple[str, str | None]] = []
    used: set[str] = set()
    for color, place in missing:
        sid = next(
            (
                s
                for s in game.ships_at(place or "")
                if split_ship_id(s)[0] == color and s not in used
            ),
            None,
        )
        if sid is None:
            continue
        used.add(sid)
        twin = next((e for e in extra if e[0] == color), None)
        if twin is not None:
            extra.remove(twin)
        edits.append((sid, twin[1] if twin is not None else None))
    for color, place in extra:
        spare = next(
            (
                s.id
                for s in game.ships(color)
                if s.id not in used and s.status in (ShipStatus.IN_CLOUD, ShipStatus.OUT)
            ),
            None,
        )
        if spare is not None:
            used.add(spare)
            edits.append((spare, place))
    return edits


def entry_index(game: Game, item: Provisional) -> int:
    """The index in the game's journal of a provisional item's entry: its move (after the
    roll, if any) or its cloud phase."""
    if item.captures:
        return item.count
    return next(i for i in range(item.count, len(game.journal)) if "move" in game.journal[i])


def provisional_moves(game: Game, settled: frozenset[int] = frozenset()) -> list[Provisional]:
    """The journal's provisional moves since the last cloud phase, and the provisional
    captures of the last two (after a restart: a cloud phase's captures are checked
    once the next one has moved the cloud off their places); not those whose entries
    are `settled` (confirmed since, `Journal.settled`)."""
    out: list[Provisional] = []
    round_ = 1
    last_cloud = -1  # the index of the last cloud phase so far
    for i, entry in enumerate(game.journal):
        if "cloud" in entry:
            out = [p for p in out if p.captures and p.count == last_cloud]
            if entry.get("provisional") and i not in settled:
                out.append(
                    Provisional(
                        i,
                        f"the captures of round {round_}",
                        tuple(entry["provisional"]),
                        captures=True,
                    )
                )
            last_cloud = i
            round_ += 1
        elif "move" in entry and entry.get("provisional") and i not in settled:
            count = i - 1 if i > 0 and "roll" in game.journal[i - 1] else i
            out.append(Provisional(count, str(entry["move"]), tuple(entry["provisional"])))
    return out


def unseen_sweep(
    game: Game, swept: frozenset[str], observation: BoardObservation
) -> tuple[str, ...]:
    """The places of swept ships that the observation after the spin cannot see (the
    cloud covers them): their captures are a guess until the cloud has left them."""
    places = {game.ship(s).location for s in swept}
    return tuple(sorted(p for p in places if p is not None and p in observation.hidden_spaces))


def made(game: Game, candidate: Candidate) -> Game:
    """A copy of the game with the candidate's move made (the game itself, copied, for a
    candidate that makes none)."""
    after = game.copy()
    if candidate.move is not None and candidate.die is not None:
        after.set_die(candidate.die)
        after.push(candidate.move)
    return after


def difference_after(game: Game, candidate: Candidate, observation: BoardObservation) -> Difference:
    """What differs between the board and the game once the candidate's move is made."""
    return difference(made(game, candidate), observation)


def back_board(game: Game, candidate: Candidate) -> dict[str, tuple[str, ...]]:
    """The board a move that left its bumped ships on the landing space shows once they are
    back in their ports."""
    assert candidate.move is not None
    board = {p: list(c) for p, c in candidate.contents.items()}
    for sid in candidate.bumped:
        ship = game.ship(sid)
        board[candidate.move.end].remove(ship.color)
        board.setdefault(ship.previous_port, []).append(ship.color)
    return as_contents(board)


def bump_left_over(
    game: Game, candidate: Candidate, observation: BoardObservation
) -> list[tuple[str, str | None]]:
    """What a move that left its bumped ships on the landing space does not explain: the
    difference once it is made, less those ships still there and not yet in their ports,
    and less its own ship not seen under them."""
    assert candidate.move is not None
    diff = difference_after(game, candidate, observation)
    end = candidate.move.end
    owed: Counter[tuple[str, str | None]] = Counter(
        (game.ship(s).color, game.ship(s).previous_port) for s in candidate.bumped
    )
    there: Counter[tuple[str, str | None]] = Counter(
        (game.ship(s).color, end) for s in candidate.bumped
    )
    there[(game.active, end)] += 1
    out: list[tuple[str, str | None]] = []
    for item in diff.missing:
        if owed[item] > 0:
            owed[item] -= 1
        elif item[1] == end and there[item] > 0:
            there[item] -= 1
        else:
            out.append(item)
    for item in diff.extra:
        if there[item] > 0:
            there[item] -= 1
        else:
            out.append(item)
    return out


def left_over(game: Game, candidate: Candidate, observation: BoardObservation) -> list[object]:
    """The ships a candidate leaves unexplained on the board (missing and extra)."""
    diff = difference_after(game, candidate, observation)
    return [*diff.missing, *diff.extra]
