# The two commands: `make run` and `make test` (see README.md).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)

.PHONY: run prepare test lint types test-rules test-fast translations messages clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip==25.3"

$(VENV)/.runtime: $(BIN)/python requirements.txt
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

translations: $(VENV)/.runtime
	$(BIN)/pybabel -q compile -d locale -D django
	$(BIN)/pybabel -q compile -d locale -D djangojs

prepare: $(VENV)/.runtime translations
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python -m vipgame.devredis run $(BIN)/python manage.py demo_data

run: prepare
	@echo "Starting Daphne, Celery (worker + beat) and Redis on http://127.0.0.1:8000 (Ctrl-C stops all)"
	$(BIN)/honcho start

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

types: $(VENV)/.dev
	$(BIN)/mypy --config-file= --strict --python-version 3.11 games/rules
	$(BIN)/mypy .

# pytest-xdist: each worker has its own test database and Redis keys.
PYTEST_WORKERS ?= 2

test: lint types translations
	$(BIN)/pytest -n $(PYTEST_WORKERS)

# Everything but the browser tests and the slow drills / real-process tests.
test-fast: lint types translations
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m "not e2e and not slow"

test-rules: $(VENV)/.dev
	$(BIN)/ruff check games/rules tests/rules
	$(BIN)/mypy --config-file= --strict --python-version 3.11 games/rules
	$(BIN)/pytest -p no:django -o addopts="" -q tests/rules

# Refresh the .po files after changing translatable strings (needs GNU gettext).
messages: $(VENV)/.dev
	$(BIN)/python manage.py makemessages -l vi -l en --no-obsolete -i ".venv/*" -i "var/*"
	$(BIN)/python manage.py makemessages -d djangojs -l vi -l en --no-obsolete -i ".venv/*" -i "var/*" -i "static/vendor/*"

clean:
	rm -rf $(VENV) var
