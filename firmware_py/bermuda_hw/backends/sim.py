"""The simulated backend: gpiozero's MockFactory, an emulated PCA9685 and a virtual clock."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import Backend
from bermuda_hw.sim.clock import VirtualClock
from bermuda_hw.sim.pca9685 import FakeI2C, PCA9685Emulator
from bermuda_hw.sim.rig import ObservedPin, SimRig, make_mock_factory

if TYPE_CHECKING:
    from bermuda_hw.config import Config
    from bermuda_hw.sim.world import World


class SimBackend(Backend):
    """The simulated table: the rig model watches the pins and the PCA9685's outputs."""

    name = "sim"

    def __init__(self, config: Config, world: World | None = None) -> None:
        clock = VirtualClock(real_time_factor=config.sim.real_time_factor)
        super().__init__(clock)
        self.config = config
        self.virtual_clock = clock
        self.bus = FakeI2C()
        self.pca = PCA9685Emulator(config.rotation.i2c_address, clock=clock)
        self.bus.attach(self.pca)
        self.rig = SimRig(config, clock, world=world)
        self._factory = make_mock_factory(self.rig.on_pin_change, clock)
        self.rig.attach(self._factory, self.pca)

    @property
    def pin_factory(self) -> Any:
        return self._factory

    def i2c(self) -> FakeI2C:
        return self.bus

    def pin(self, bcm: int) -> ObservedPin:
        """The mock pin for a BCM number (test-side access)."""
        pin: ObservedPin = self._factory.pin(bcm)
        return pin

    def close(self) -> None:
        if not self.closed:
            self._factory.reset()
            self._factory.close()
        super().close()
