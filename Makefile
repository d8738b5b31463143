# bermuda-hw: set up, test, simulate and benchmark from a fresh checkout.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# On Raspberry Pi OS, picamera2 comes from apt (python3-picamera2): let the venv see it.
SYSTEM_SITE := $(shell $(PYTHON) -c 'import picamera2' >/dev/null 2>&1 && echo --system-site-packages)

.PHONY: test simulate bench lint typecheck clean install-pi

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import ensurepip' >/dev/null 2>&1 || ./scripts/ensure-venv
	@test -x $(BIN)/python || $(PYTHON) -m venv $(SYSTEM_SITE) $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/python -m ruff check firmware_py tests benchmarks

typecheck: $(STAMP)
	$(BIN)/python -m mypy --strict firmware_py/bermuda_hw

test: lint typecheck
	$(BIN)/python -m pytest

# the whole simulated table (rig, camera, players, controller), one game in a fresh state dir
simulate: $(STAMP)
	$(BIN)/bermuda-hw run --simulate --state-dir "$$(mktemp -d)" $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# on the Pi: apt packages, I2C, the service's user, /opt/bermuda-hw with the pinned set,
# the configuration and the unit (safe to run twice)
install-pi:
	sudo ./scripts/install-pi

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
