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

# BENCH_LAKE: a segmented and indexed mirror lake (secplat segment + index) for the embedding, memory and
# publish benchmarks; BENCH_FB_LAKE: the FinanceBench PDFs converted and segmented, for embedding quality.
SHARED ?= $(or $(SECPLAT_SHARED),../shared)

bench: install
	$(BIN)/python -m bench.crawl
	$(BIN)/python -m bench.convert
	$(BIN)/python -m bench.segment $(if $(BENCH_LAKE),--lake $(BENCH_LAKE))
	@if [ -n "$(BENCH_LAKE)" ]; then \
	  $(BIN)/python -m bench.embed --lake $(BENCH_LAKE) && \
	  $(BIN)/python -m bench.embed_memory --lake $(BENCH_LAKE) && \
	  $(BIN)/python -m bench.publish --lake $(BENCH_LAKE); \
	else echo "BENCH_LAKE not set: skipping the embedding, memory and publish benchmarks"; fi
	@if [ -n "$(BENCH_FB_LAKE)" ]; then \
	  $(BIN)/python -m bench.embed_quality --lake $(BENCH_FB_LAKE) --financebench $(SHARED)/eval/financebench; \
	else echo "BENCH_FB_LAKE not set: skipping the int8-vs-fp32 retrieval-quality benchmark"; fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
