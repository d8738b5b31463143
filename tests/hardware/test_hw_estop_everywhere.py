"""The e-stop stops every command that moves the cloud: cloud, selftest, calibrate, the daemon.

Each command builds its mover through `motion.build`; here the simulated rig's e-stop
is pressed (and at once released) when the gantry has made some steps, in the step
thread itself, so the press lands mid-move whatever the machine's speed. No step may be
accepted after the press, and the drivers must stay disabled after the release.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.cli import EXIT_CONFIG, main
from bermuda_hw.config import Config, load_config
from bermuda_hw.errors import ConfigError
from bermuda_hw.motion.build import build_motion
from bermuda_hw.rules.boardfile import load_board


@dataclasses.dataclass
class Press:
    """Presses the e-stop once `after` gantry steps have been accepted, then releases it."""

    after: int
    backends: list[SimBackend] = dataclasses.field(default_factory=list)
    at_press: int | None = None

    def steps(self, backend: SimBackend) -> int:
        return sum(model.accepted_steps for model in backend.rig.axes.values())

    def arm(self, backend: SimBackend) -> None:
        self.backends.append(backend)
        rig = backend.rig
        step_edge = rig._step_edge

        def watched(axis_name: str, t: float, level: bool) -> None:
            step_edge(axis_name, t, level)
            if self.at_press is None and self.steps(backend) >= self.after:
                self.at_press = self.steps(backend)
                rig.press_estop(True)
                rig.press_estop(False)  # released at once: nothing may start again

        rig._step_edge = watched  # type: ignore[method-assign]

    @property
    def backend(self) -> SimBackend:
        assert len(self.backends) == 1
        return self.backends[0]

    def check(self) -> None:
        assert self.at_press is not None, "the e-stop was never pressed: no move ran"
        assert self.steps(self.backend) == self.at_press  # not one step after the press
        assert not self.backend.rig.enabled


@pytest.fixture
def press(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[types.ModuleType], Press]]:
    def make(module: types.ModuleType, after: int = 200) -> Press:
        presser = Press(after)
        real = module.create_backend

        def create(config: Config, simulate: bool, **kwargs: Any) -> Any:
            backend = real(config, simulate, **kwargs)
            presser.arm(backend)
            return backend

        monkeypatch.setattr(module, "create_backend", create)
        return presser

    yield make


def test_cloud(press: Callable[..., Press], capsys: pytest.CaptureFixture[str]) -> None:
    from bermuda_hw.cli import cloud

    presser = press(cloud)
    assert main(["cloud", "--simulate"]) == 1
    presser.check()
    assert "e-stop" in capsys.readouterr().err


def test_selftest(press: Callable[..., Press], capsys: pytest.CaptureFixture[str]) -> None:
    from bermuda_hw.cli import selftest

    presser = press(selftest)
    assert main(["selftest", "--simulate"]) == 1
    presser.check()
    out = capsys.readouterr().out
    assert any(line.startswith("FAIL  homing") and "e-stop" in line for line in out.splitlines()), (
        out
    )


def test_calibrate(
    press: Callable[..., Press], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bermuda_hw.cli import calibrate

    config = tmp_path / "config.toml"
    config.write_text("[camera]\nheight_mm = 760.0\n")
    before = config.read_text()
    presser = press(calibrate, after=2000)  # past homing: during the calibration's moves
    assert main(["calibrate", "gantry", "--simulate", "--config", str(config), "--yes"]) == 1
    presser.check()
    assert "e-stop" in capsys.readouterr().err
    assert config.read_text() == before  # nothing written


def test_the_daemon(tmp_path: Path) -> None:
    from bermuda_hw.controller.status import Mode
    from bermuda_hw.sim.table import SimTable

    config, board = load_config(), load_board()
    presser = Press(after=200)
    backend = SimBackend(config, board=board)
    presser.arm(backend)
    with SimTable.build(config, board, tmp_path, backend=backend, with_players=False) as table:
        table.controller.start()  # homing is pressed
        presser.check()
        assert table.mode() is Mode.FAULT
        assert "e-stop" in table.controller.status.message


def test_a_rig_without_an_estop_input_is_refused_before_anything_moves(
    make_backend: Callable[..., SimBackend],
) -> None:
    config = load_config()
    config = config.model_copy(
        update={"controls": config.controls.model_copy(update={"estop_pin": None})}
    )
    backend = make_backend(config)
    with pytest.raises(ConfigError, match=r"controls\.estop_pin") as caught:
        build_motion(config, backend, load_board())
    assert "e-stop" in str(caught.value)
    assert all(model.accepted_steps == 0 for model in backend.rig.axes.values())


@pytest.mark.parametrize(("command", "code"), [("run", EXIT_CONFIG), ("cloud", 1)])
def test_the_commands_that_move_refuse_a_rig_without_an_estop_input(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
    code: int,
) -> None:
    import importlib

    module = importlib.import_module(f"bermuda_hw.cli.{command}")
    config = load_config()
    without = config.model_copy(
        update={"controls": config.controls.model_copy(update={"estop_pin": None})}
    )
    monkeypatch.setattr(module, "load_config", lambda path: without)
    monkeypatch.setattr(module, "DEFAULT_CONFIG_PATH", tmp_path / "none.toml")
    argv = [command, "--simulate"] + (["--state-dir", str(tmp_path)] if command == "run" else [])
    assert main(argv) == code  # the service's `run` exits 78: no restart mends it
    assert "controls.estop_pin" in capsys.readouterr().err


def test_every_shipped_configuration_has_an_estop_input() -> None:
    root = Path(__file__).parents[2]
    assert load_config().controls.estop_pin is not None
    assert load_config(root / "hardware" / "config.example.toml").controls.estop_pin is not None


def test_the_supply_relay_closes_for_homing_and_opens_on_the_estop_and_at_exit(
    make_backend: Callable[..., SimBackend],
    tweak: Callable[..., Config],
    fast_config: Config,
) -> None:
    config = tweak(fast_config, "controls", supply_relay_pin=17, supply_relay_active_high=False)
    backend = make_backend(config)
    relay = backend.pin(17)
    with build_motion(config, backend, load_board()) as motion:
        assert motion.supply is not None and not motion.supply.is_closed
        assert relay.state is True  # an active-low relay board: high is open
        motion.mover.home()
        assert motion.supply.is_closed and relay.state is False
        backend.rig.press_estop(True)
        assert not motion.supply.is_closed and relay.state is True
        assert not backend.rig.enabled
        backend.rig.press_estop(False)
        motion.mover.home()
        assert motion.supply.is_closed
    assert relay.state is True  # left open when the program lets go


def test_a_line_the_running_service_holds_is_named_with_what_to_do(
    make_backend: Callable[..., SimBackend],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bermuda_hw.errors import HardwareError
    from bermuda_hw.motion import build

    def busy(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("'GPIO busy'")  # lgpio.error's text for a line already claimed

    monkeypatch.setattr(build, "CloudMover", busy)
    with pytest.raises(HardwareError, match="systemctl stop bermuda-hw"):
        build_motion(load_config(), make_backend(load_config()), load_board())


def test_calibrate_writes_a_relative_config_where_it_was_named(
    monkeypatch: pytest.MonkeyPatch,
    table_dir: Path,
) -> None:
    from bermuda_hw.cli import calibrate

    here, elsewhere = table_dir / "here", table_dir / "lg_wd"
    here.mkdir()
    elsewhere.mkdir()
    # quarter microsteps: the same calibration with fewer steps to simulate
    (here / "rig.toml").write_text(
        "[camera]\nheight_mm = 760.0\n[gantry.x]\nmicrosteps = 4\n[gantry.y]\nmicrosteps = 4\n"
    )
    real = calibrate.create_backend

    def create(config: Config, simulate: bool, **kwargs: Any) -> Any:
        monkeypatch.chdir(elsewhere)  # as importing lgpio does ($LG_WD)
        return real(config, simulate, **kwargs)

    monkeypatch.setattr(calibrate, "create_backend", create)
    monkeypatch.chdir(here)
    assert main(["calibrate", "gantry", "--simulate", "--config", "rig.toml", "--yes"]) == 0
    assert "steps_per_mm" in (here / "rig.toml").read_text()
    assert not (elsewhere / "rig.toml").exists()
