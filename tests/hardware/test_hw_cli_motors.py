"""`bermuda-hw motors-off` (the service's ExecStopPost=) and the service's exit codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from adafruit_pca9685 import PCA9685

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.cli import EXIT_CONFIG, main
from bermuda_hw.cli.motors import motors_off
from bermuda_hw.config import load_config


def test_motors_off_disables_the_drivers_and_the_coils_without_moving(
    make_backend: Callable[..., SimBackend],
) -> None:
    config = load_config()
    backend = make_backend(config)
    # a crashed daemon left the drivers enabled and a coil on
    enable = backend.pin(config.gantry.enable_pin)
    enable.function = "output"
    enable.state = False
    assert backend.rig.enabled
    bus = backend.i2c()
    pca = PCA9685(bus, address=config.rotation.i2c_address)
    pca.frequency = 1600
    pca.channels[2].duty_cycle = 0xFFFF
    assert backend.pca.output(2).duty == 1.0
    enable.close()
    done = motors_off(config, backend)
    assert not backend.rig.enabled
    assert enable.state is True  # left at the disabled level
    assert all(backend.pca.output(c).duty == 0.0 for c in range(16))
    assert len(done) == 2 and "disabled" in done[0] and "outputs off" in done[1]
    assert all(model.accepted_steps == 0 for model in backend.rig.axes.values())


def test_motors_off_without_the_pca9685_still_disables_the_drivers(
    make_backend: Callable[..., SimBackend],
) -> None:
    config = load_config()
    backend = make_backend(config)
    backend.bus.remove(config.rotation.i2c_address)
    done = motors_off(config, backend)
    assert not backend.rig.enabled
    assert "not reached" in done[1]


def test_motors_off_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["motors-off", "--simulate"]) == 0
    assert "gantry drivers disabled" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["run", "--simulate"], ["motors-off", "--simulate"]])
def test_the_service_commands_exit_78_on_a_configuration_error(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("[gantry.x]\nendstop_active_low = true\n")
    code = main(
        [*command, "--config", str(bad), "--state-dir", str(tmp_path)]
        if command[0] == "run"
        else [*command, "--config", str(bad)]
    )
    assert code == EXIT_CONFIG == 78
    assert "endstop_contact" in capsys.readouterr().err


def test_a_mistake_outside_the_motors_tables_does_not_keep_the_motors_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The service runs `motors-off` after every stop: a typo in the page's table (edited
    while the daemon ran) must not leave the drivers enabled. The motors are cut with the
    file's own motor settings, and the mistake is said; `run` still refuses the file."""
    conf = tmp_path / "config.toml"
    conf.write_text("[web]\npublc_view = true\n[gantry]\nenable_pin = 6\n")
    assert main(["motors-off", "--simulate", "--config", str(conf)]) == 0
    out, err = capsys.readouterr()
    assert "gantry drivers disabled (ENABLE, BCM 6)" in out  # the file's pin, not the default
    assert "web.publc_view: unknown key" in err and "mend the file" in err
    assert main(["run", "--simulate", "--config", str(conf), "--state-dir", str(tmp_path)]) == 78
    # a misspelt table may hold the motors' pins: nothing is driven, the mistake is said
    conf.write_text("[web]\npublc_view = true\n[Gantry]\nenable_pin = 6\n")
    assert main(["motors-off", "--simulate", "--config", str(conf)]) == 78
    out, err = capsys.readouterr()
    assert "Gantry" in err and "gantry drivers disabled" not in out
