# bermuda-hw: set up, test, simulate and benchmark from a fresh checkout.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# On Raspberry Pi OS, picamera2 comes from apt (python3-picamera2): let the venv see it.
SYSTEM_SITE := $(shell $(PYTHON) -c 'import picamera2' >/dev/null 2>&1 && echo --system-site-packages)

.PHONY: test check layers simulate bench chaos mutation lint typecheck clean install-pi apt docs

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import ensurepip' >/dev/null 2>&1 || ./scripts/ensure-venv
	@test -x $(BIN)/python || $(PYTHON) -m venv $(SYSTEM_SITE) $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/python -m ruff check firmware_py tests benchmarks chaos scripts/mutation.py
	$(BIN)/python -m ruff format --check firmware_py tests benchmarks chaos scripts/mutation.py

typecheck: $(STAMP)
	$(BIN)/python -m mypy --strict firmware_py/bermuda_hw

# the layers' contracts (pyproject.toml, [tool.importlinter]): who may import whom
layers: $(STAMP)
	$(BIN)/lint-imports --no-logo

# the documentation site (docs/, mkdocs.yml) into site/; --strict: a broken link or a page
# left out of the navigation fails it
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# the fast tier, between two edits: lint, types, layers and every test that builds no whole
# simulated table, draws no camera frame and opens no browser (the markers follow the
# fixtures and the renderers a test uses: tests/conftest.py)
check: lint typecheck layers docs
	$(BIN)/python -m pytest -n 2 -m "not table and not browser and not frames" --durations=15

# Debian packages for the browser tests and the voice: chromium, espeak-ng
apt:
	@./scripts/ensure-apt

# the tests are handed out two at a time, longest first (tests/conftest.py), so that the
# whole games do not queue behind each other on one worker
test: lint typecheck layers docs apt
	$(BIN)/python -m pytest -n 2 --maxschedchunk 2 --durations=25

# the whole simulated table (rig, camera, players, controller) in a fresh state dir (printed,
# so that the game can be resumed or shown), with the table's page: it prints the URL to watch
# and play from (Ctrl-C ends it)
SPEED ?= 4
simulate: $(STAMP)
	$(BIN)/bermuda-hw run --simulate --speed $(SPEED) --stay $(ARGS)

bench: $(STAMP) apt
	$(BIN)/python benchmarks/run.py

# on the Pi: apt packages, I2C, the service's user, /opt/bermuda-hw with the pinned set,
# the configuration and the unit (safe to run twice)
install-pi:
	sudo ./scripts/install-pi

# a Pi-like machine: an arm64 Debian root (bookworm, trixie; RELEASES=bookworm for one) run
# under qemu-user-static, with install-pi, every import, --help, motors-off and
# selftest --simulate under Blinka forced to a Pi 4 and a Pi 5 (docs/pi-image.md; not in test)
.PHONY: pi-image-check
pi-image-check:
	@if [ "$$(id -u)" = 0 ]; then ./scripts/pi-image-check $(RELEASES); \
	else sudo ./scripts/pi-image-check $(RELEASES); fi

# the reliability campaign (kill -9, power cuts, faults, SIGTERM, fuzzing): one table of figures
chaos: $(STAMP)
	nice -n 10 $(BIN)/python chaos/run.py $(ARGS)

# mutation scores (mutmut) of the rules, planning, referee and vision suites: caught/tested per
# file, one file at a time against the tests that cover it (ARGS: some of moves cloud profile
# identify ships; --survivors, --sample N, --keep, --report: see scripts/mutation.py)
mutation: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,mutation]'
	nice -n 19 $(BIN)/python scripts/mutation.py $(ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache mutants .import_linter_cache .grimp_cache site
