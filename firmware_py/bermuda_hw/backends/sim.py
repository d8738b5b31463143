"""The simulated backend: gpiozero's MockFactory, an emulated PCA9685 and a virtual clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import Backend, RigMeasurement
from bermuda_hw.config import sim_rig_config
from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C, PCA9685Emulator
from bermuda_hw.sim.rig import ObservedPin, SimRig, make_mock_factory
from bermuda_hw.sim.world import World

if TYPE_CHECKING:
    from bermuda_hw.camera_config import CameraConfig
    from bermuda_hw.config import Config
    from bermuda_hw.rules.board import Board
    from bermuda_hw.sim.camera import SimulatedCamera
    from bermuda_hw.sim.render import Scene
    from bermuda_hw.sim.scene import WorldScene
    from bermuda_hw.sim.sensor import Room
    from bermuda_hw.sim.world import World

REFERENCE_WIDTH_PX = 1280  # the renderer's default camera: focal length scales with the width
REFERENCE_FOCAL_PX = 1150.0


class SimBackend(Backend):
    """The simulated table: the rig model watches the pins and the PCA9685's outputs."""

    name = "sim"

    def __init__(
        self,
        config: Config,
        world: World | None = None,
        truth: Config | None = None,
        *,
        board: Board | None = None,
    ) -> None:
        """`world`: the simulated table (default: a new one of `board`); `truth`: the
        simulated rig's real mechanics (default: `[sim] rig`, else `config`).

        The faults of `[sim]` are injected where the hardware would show them:
        a dead endstop at its pin, a missing PCA9685 on the bus (nothing
        answers at its address), a covered marker in the frames.
        """
        clock = VirtualClock(real_time_factor=config.sim.real_time_factor)
        super().__init__(clock)
        self.config = config
        self.virtual_clock = clock
        self.bus = FakeI2C()
        self.pca = PCA9685Emulator(config.rotation.i2c_address, clock=clock)
        if not config.sim.missing_pca9685:
            self.bus.attach(self.pca)
        if truth is None:
            truth = sim_rig_config(config)
        if world is None:
            world = World(board)
        self.rig = SimRig(config, clock, world=world, truth=truth)
        self._factory = make_mock_factory(self.rig.on_pin_change, clock)
        self.rig.attach(self._factory, self.pca)
        self.scene: WorldScene | None = None
        self.camera: SimulatedCamera | None = None
        # faults to rehearse: a camera that is not there, or that stalls after n frames
        self.camera_missing = False
        self.camera_stall_after: int | None = None
        # what the camera renders may be altered (bermuda_hw.sim.faults.SceneFaults.wrap)
        self.scene_wrapper: Callable[[Callable[[], Scene]], Callable[[], Scene]] | None = None
        # the light over the table (bermuda_hw.sim.sensor.Room): None, the rendered look
        self.room: Room | None = None

    @property
    def pin_factory(self) -> Any:
        return self._factory

    def i2c(self) -> FakeI2C:
        return self.bus

    def open_camera(self, board: Board, camera: CameraConfig | None = None) -> SimulatedCamera:
        """A camera that renders the simulated world; each frame advances the clock by a frame.

        The world learns the board (for the cloud's magnets) if it was made without one.
        """
        from bermuda_hw.sim.camera import SimulatedCamera
        from bermuda_hw.sim.render import CameraModel
        from bermuda_hw.sim.scene import WorldScene
        from bermuda_hw.sim.sensor import SimulatedSensor

        if camera is None:
            camera = self.config.camera
        world = self.rig.world
        if world.board is None:
            world.board = board
        self.scene = WorldScene(world, board)
        self.scene.covered_marker = self.config.sim.covered_marker
        model = CameraModel(
            width_px=camera.width_px,
            height_px=camera.height_px,
            focal_px=REFERENCE_FOCAL_PX * camera.width_px / REFERENCE_WIDTH_PX,
        )
        clock = self.virtual_clock
        frame_s = 1.0 / camera.replay_fps

        def frame_time() -> float:
            clock.advance(frame_s)
            return clock.monotonic()

        scene: Callable[[], Scene] = self.scene
        if self.scene_wrapper is not None:
            scene = self.scene_wrapper(scene)
        sensor = SimulatedSensor(self.room)
        sensor.set_controls(camera.picamera2_controls())  # the [camera] keys, as on the Pi
        self.camera = SimulatedCamera(
            board,
            scene,
            model,
            clock=frame_time,
            missing=self.camera_missing,
            stall_after=self.camera_stall_after,
            timeout_s=camera.timeout_s,
            sensor=sensor,
            frame_s=frame_s,
        )
        return self.camera

    def measure(self, since_s: float = 0.0) -> RigMeasurement:
        """Where the simulated cloud truly is, and the carriage's peaks from its step trace."""
        peak_speed, peak_accel = self.rig.peaks(since_s=since_s)
        x_mm, y_mm = self.rig.world.cloud_mm
        return RigMeasurement(
            x_mm,
            y_mm,
            self.rig.world.cloud_heading_deg,
            peak_speed,
            peak_accel,
            self.rig.lost_steps,
        )

    def pin(self, bcm: int) -> ObservedPin:
        """The mock pin for a BCM number (test-side access)."""
        pin: ObservedPin = self._factory.pin(bcm)
        return pin

    def close(self) -> None:
        if not self.closed:
            self._factory.reset()
            self._factory.close()
        super().close()
