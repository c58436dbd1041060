# truegreen's developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test install dev lint typecheck unit quick bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Installed once per change of pyproject.toml.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[dev]"
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed

dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/truegreen demo

lint: dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports

typecheck: dev
	$(BIN)/mypy

# The tests are independent: one pytest-xdist worker per core (PYTEST_WORKERS=0 runs them
# in one process, for debugging).
PYTEST_WORKERS ?= auto
PYTEST_XDIST = -n $(PYTEST_WORKERS)
unit: dev
	$(BIN)/python -m pytest $(PYTEST_XDIST)

test: lint typecheck unit

# The tests marked slow (more than about 3 s each: most of the suite's time) left out, for
# a quick loop while working; `make test` runs every test.
quick: dev
	$(BIN)/python -m pytest $(PYTEST_XDIST) -m "not slow"

bench: dev
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
