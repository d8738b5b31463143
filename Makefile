# bermuda-hw: set up, test, simulate and benchmark from a fresh checkout.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# On Raspberry Pi OS, picamera2 comes from apt (python3-picamera2): let the venv see it.
SYSTEM_SITE := $(shell $(PYTHON) -c 'import picamera2' >/dev/null 2>&1 && echo --system-site-packages)

.PHONY: test simulate bench chaos lint typecheck clean

$(STAMP): pyproject.toml
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || ./scripts/ensure-venv
	@test -x $(BIN)/python || $(PYTHON) -m venv $(SYSTEM_SITE) $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/python -m ruff check firmware_py tests benchmarks chaos

typecheck: $(STAMP)
	$(BIN)/python -m mypy --strict firmware_py/bermuda_hw

test: lint typecheck
	$(BIN)/python -m pytest

# the whole simulated table (rig, camera, players, controller), one game in a fresh state dir
# (printed, so that the game can be resumed or shown)
simulate: $(STAMP)
	$(BIN)/bermuda-hw run --simulate $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# the reliability campaign (kill -9, power cuts, faults, SIGTERM, fuzzing): one table of figures
chaos: $(STAMP)
	nice -n 10 $(BIN)/python chaos/run.py $(ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
