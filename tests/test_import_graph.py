"""The simulator stays out of the production import graph."""

from __future__ import annotations

import subprocess
import sys

PRODUCTION = (
    "bermuda_hw.backends.real",
    "bermuda_hw.clock",
    "bermuda_hw.devices",
    "bermuda_hw.motion",
    "bermuda_hw.planning",
    "bermuda_hw.rules",
    "bermuda_hw.vision",
    "bermuda_hw.controller",
    "bermuda_hw.controller.daemon",
    "bermuda_hw.web.service",
    "bermuda_hw.web.client",
    "bermuda_hw.voice",
    "bermuda_hw.rigcheck.selftest",
    "bermuda_hw.rigcheck.calibrate",
    "bermuda_hw.rigcheck.timing",
    "bermuda_hw.motion.wave",
)


def test_production_layers_never_import_the_simulator() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {PRODUCTION!r}:\n"
        "    importlib.import_module(m)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('bermuda_hw.sim'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
