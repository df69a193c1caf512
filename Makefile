SHELL := /bin/bash
# Two entry points do all the set-up: `make run` and `make test` install whatever is missing first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.install-stamp
PIP    := $(BIN)/pip install --quiet --progress-bar off

.PHONY: install system-deps run test lint bench clean

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing Python dependencies into $(VENV) (torch 2.13.0 CPU first)..."
	@$(PIP) torch==2.13.0 2> >(grep -v '^WARNING: Location' >&2)
	@$(PIP) -r requirements-dev.txt 2> >(grep -v '^WARNING: Location' >&2)
	@$(PIP) --no-deps -e . 2> >(grep -v '^WARNING: Location' >&2)
	@touch $(STAMP)

system-deps:
	@bash infra/install-system-deps.sh

install: system-deps $(STAMP)

run: install
	$(BIN)/secplat run

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS) || [ $$? -eq 5 ]

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python -m bench.crawl
	$(BIN)/python -m bench.convert
	$(BIN)/python -m bench.segment

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
