"""scripts/install-pi: each step checks before it changes anything, so a second run is safe."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install-pi"


def _dry_run(
    tmp_path: Path, *, i2c_on: bool, user: str, installed: bool, codename: str = "bookworm"
) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    raspi = bin_dir / "raspi-config"  # `raspi-config nonint get_i2c` prints 0 when I2C is on
    raspi.write_text(f"#!/bin/sh\necho {0 if i2c_on else 1}\n")
    raspi.chmod(0o755)
    (tmp_path / "os-release").write_text(f"ID=debian\nVERSION_CODENAME={codename}\n")
    prefix = tmp_path / "opt"
    config_dir = tmp_path / "etc"
    if installed:
        (prefix / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
        python = prefix / ".venv" / "bin" / "python"
        python.write_text("#!/bin/sh\n")
        python.chmod(0o755)
        config_dir.mkdir(exist_ok=True)
        (config_dir / "config.toml").write_text("# the owner's\n")
    env = {
        **os.environ,
        "DRY_RUN": "1",
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PREFIX": str(prefix),
        "CONFIG_DIR": str(config_dir),
        "UNIT_DIR": str(tmp_path),
        "SERVICE_USER": user,
        "OS_RELEASE": str(tmp_path / "os-release"),
    }
    return subprocess.run(
        ["sh", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_a_fresh_pi_gets_every_step(tmp_path: Path) -> None:
    result = _dry_run(tmp_path, i2c_on=False, user="no-such-user-bermuda", installed=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "+ apt-get install -y -q python3-venv python3-picamera2 python3-lgpio i2c-tools" in out
    assert "+ raspi-config nonint do_i2c 0" in out
    assert "+ useradd --system" in out and "+ usermod -aG gpio,i2c,video" in out
    assert "-m venv --system-site-packages" in out
    assert "scripts/constraints/bookworm.txt" in out and "[pi]" in out
    assert "config.toml" in out.split("+ install -m 644", 1)[1]
    assert "+ systemctl enable bermuda-hw.service" in out


def test_a_second_run_changes_nothing_it_need_not(tmp_path: Path) -> None:
    result = _dry_run(tmp_path, i2c_on=True, user="root", installed=True, codename="trixie")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for step in ("do_i2c", "useradd", "-m venv", "default-config.toml"):
        assert step not in out
    assert "scripts/constraints/trixie.txt" in out


def test_an_unknown_release_is_refused(tmp_path: Path) -> None:
    result = _dry_run(tmp_path, i2c_on=True, user="root", installed=True, codename="bullseye")
    assert result.returncode == 1
    assert "release 'bullseye' is not supported" in result.stderr


def test_the_makefile_checks_for_ensurepip() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "import ensurepip" in makefile and "venv --help" not in makefile
    assert "install-pi:" in makefile


@pytest.mark.parametrize("script", ["install-pi", "ensure-venv"])
def test_scripts_are_valid_sh(script: str) -> None:
    subprocess.run(["sh", "-n", str(ROOT / "scripts" / script)], check=True)
