"""Rendered observations of game positions for the referee tests, as a camera sees them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Game
from bermuda_hw.sim.render import CameraModel, CloudState, Palette, Scene, ShipToken, render
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import StabilitySettings, Stabilizer
from bermuda_hw.vision.types import BoardObservation

BESIDE_MM = 9.0  # a second token on a space stands beside the first, never on it


def tokens(
    board: Board,
    places: Mapping[str, Sequence[str]],
    off_board: Sequence[tuple[str, float, float]] = (),
    nudge: Mapping[str, float] = {},
    along: Mapping[str, float] = {},
    turn: Mapping[str, float] = {},
) -> tuple[ShipToken, ...]:
    """Ship tokens for colours by place: a port's ships in its berths, a space's side by side
    (`nudge` sets a space's tokens that many mm across its heading, `along` that many along
    it: set down off its centre; `turn` turns them that many degrees off its heading)."""
    out: list[ShipToken] = []
    for place, colors in sorted(places.items()):
        port = board.ports.get(place)
        if port is not None:
            for k, color in enumerate(colors):
                x, y = port.berths[k % len(port.berths)]
                shift = BESIDE_MM * (k // len(port.berths))
                out.append(ShipToken(color, x + shift, y, 0.0))
            continue
        space = board.spaces[place]
        heading = space.heading_deg
        for k, color in enumerate(colors):
            # side by side, across the space's heading
            across = (k - (len(colors) - 1) / 2) * BESIDE_MM + nudge.get(place, 0.0)
            ahead = along.get(place, 0.0)
            dx = across * math.cos(math.radians(heading)) + ahead * math.sin(math.radians(heading))
            dy = across * math.sin(math.radians(heading)) - ahead * math.cos(math.radians(heading))
            out.append(
                ShipToken(color, space.x_mm + dx, space.y_mm + dy, heading + turn.get(place, 0.0))
            )
    out.extend(ShipToken(c, x, y, 0.0) for c, x, y in off_board)
    return tuple(out)


def cloud_of(game: Game) -> CloudState:
    x, y = game.board.grid.dot_mm(game.pose.col, game.pose.row)
    return CloudState(x, y, 45.0 * game.pose.letter)


class Camera:
    """A camera over a board and a reader behind it, with a stabiliser: shoot a board, get
    the stable observation the controller would get."""

    def __init__(
        self, board: Board, camera: CameraModel | None = None, palette: Palette | None = None
    ) -> None:
        self.board = board
        self.camera = camera or CameraModel()
        self.palette = palette or Palette()
        self.reader = BoardReader(board)
        self.stabilizer = Stabilizer(StabilitySettings(frames=2, min_time_s=0.0))
        self.t = 0.0
        self.seed = 0

    def observe(
        self,
        scene_tokens: tuple[ShipToken, ...],
        cloud: CloudState | None,
        frames: int = 3,
        limit: int = 12,
    ) -> BoardObservation | None:
        """Show the same board for some frames; the last new stable observation, or, when
        the last frames agree on the state observed before, that observation again. A
        place that flickers between frames (the cloud's rim) is watched longer, up to
        `limit` frames, as the controller keeps reading until the board settles."""
        got = None
        keys: list[object] = []
        count = 0
        while count < frames or (got is None and count < limit):
            count += 1
            self.seed += 1
            self.t += 0.1
            frame = render(
                self.board,
                Scene(ships=scene_tokens, cloud=cloud),
                self.camera,
                seed=self.seed,
                palette=self.palette,
            )
            reading = self.reader.read(frame, self.t)
            keys.append(
                reading.state_key() if reading.board_found and not reading.occluded else None
            )
            got = self.stabilizer.push(reading) or got
            if got is None and count >= frames and keys[-1] is not None and keys[-1] == keys[-2]:
                # settled where it was: the camera sees no change
                return self.stabilizer.current
        return got

    def forget(self) -> None:
        """Forget the last stable state: the next board is reported even if its ships read
        the same (a token set down elsewhere on its place)."""
        self.stabilizer.forget()

    def game(
        self,
        game: Game,
        places: Mapping[str, Sequence[str]] | None = None,
        off_board: Sequence[tuple[str, float, float]] = (),
        nudge: Mapping[str, float] = {},
        along: Mapping[str, float] = {},
        turn: Mapping[str, float] = {},
    ) -> BoardObservation:
        """The stable observation of a board: the game's own placement unless given."""
        seen = self.observe(
            tokens(
                self.board,
                places if places is not None else contents(game),
                off_board,
                nudge,
                along,
                turn,
            ),
            cloud_of(game),
        )
        assert seen is not None, "the board did not settle"
        return seen
