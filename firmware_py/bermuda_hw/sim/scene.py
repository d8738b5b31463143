"""What the camera over the simulated table sees: the `World` as a renderer `Scene`.

Ships held by the cloud's magnets travel inside the cloud and are not drawn;
every other ship is drawn where it truly is, turned like the space it stands
on, in the order they were put down (a ship that just arrived lies on top).
A hand over the board can be added (a player reaching in). Callables in
`before_frame` run before each frame is taken: the simulated players act
there, so that the table changes between frames, as it does in front of a
real camera.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.moves import split_ship_id
from bermuda_hw.sim.render import CLOUD_HEIGHT_MM, CloudState, Cover, Hand, Scene, ShipToken
from bermuda_hw.sim.world import World

SNAP_MM = 6.0  # a ship this close to a space's centre is drawn turned like that space


class WorldScene:
    """A scene provider for `SimulatedCamera`: call it to get the table as it is now."""

    def __init__(self, world: World, board: Board) -> None:
        self.world = world
        self.board = board
        self.hand: Hand | None = None
        self.other_hand: Hand | None = None  # a second hand reaching in
        self.before_frame: list[Callable[[], None]] = []
        self.covered_marker = -1  # an ArUco id that something lies on (a fault to rehearse)

    def __call__(self) -> Scene:
        for hook in list(self.before_frame):
            hook()
        scene = scene_of(self.world, self.board, self.hand)
        if self.other_hand is not None:
            scene = dataclasses.replace(scene, other_hand=self.other_hand)
        cover = self._marker_cover()
        if cover is not None:
            scene = dataclasses.replace(scene, covers=(*scene.covers, cover))
        return scene

    def _marker_cover(self) -> Cover | None:
        """A dark disc over the covered marker (on the cloud, it travels with it)."""
        markers = self.board.markers
        if self.covered_marker == markers.cloud_id:
            if not self.world.cloud_on_board:
                return None
            x_mm, y_mm = self.world.cloud_mm
            return Cover(x_mm, y_mm, markers.cloud_size_mm * 0.8, height_mm=CLOUD_HEIGHT_MM + 2)
        for marker in markers.corners:
            if marker.id == self.covered_marker:
                return Cover(marker.x_mm, marker.y_mm, marker.size_mm * 0.8, height_mm=2.0)
        return None


def scene_of(world: World, board: Board, hand: Hand | None = None) -> Scene:
    """The renderer's scene for the world's state now."""
    carried = set(world.carried)
    tokens = []
    for ship, (x_mm, y_mm) in world.ship_positions().items():  # the last put down on top
        if ship in carried:
            continue
        color = split_ship_id(ship)[0]
        heading_deg = world.heading_of(ship)
        if heading_deg is None:
            heading_deg = _heading(board, x_mm, y_mm)
        tokens.append(ShipToken(color, x_mm, y_mm, heading_deg))
    cloud = None
    if world.cloud_on_board:
        x_mm, y_mm = world.cloud_mm
        cloud = CloudState(x_mm, y_mm, world.cloud_heading_deg)
    return Scene(ships=tuple(tokens), cloud=cloud, hand=hand)


def _heading(board: Board, x_mm: float, y_mm: float) -> float:
    space_id, distance_mm = board.nearest_space(x_mm, y_mm)
    if distance_mm <= SNAP_MM and space_id in board.spaces and space_id not in board.ports:
        return board.spaces[space_id].heading_deg
    return 0.0
