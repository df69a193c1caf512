SHELL := /bin/bash
# Two entry points do all the set-up: `make run` and `make test` install whatever is missing first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.install-stamp
PIP    := $(BIN)/pip install --quiet --progress-bar off

.PHONY: install system-deps run run-opensearch opensearch-start opensearch-stop airflow-init airflow-ui test test-unit \
	test-acceptance lint bench clean

# Airflow (3.x) for `make run` and `make airflow-ui`: sqlite metadata DB under .airflow/, this repo's dags/,
# everything bound to 127.0.0.1, parallelism for 2 cores. RUN_FROM: the first filing date `make run` covers
# (a first run fills the lake; later runs skip what is already there).
AIRFLOW_PORT ?= 8080
RUN_FROM ?= 2018-01-01
RUN_DATE ?= $(shell date -u +%Y-%m-%d)
export AIRFLOW_HOME ?= $(CURDIR)/.airflow
export AIRFLOW__CORE__DAGS_FOLDER := $(CURDIR)/dags
export AIRFLOW__CORE__LOAD_EXAMPLES := False
export AIRFLOW__CORE__PARALLELISM := 2
export AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG := 2
export AIRFLOW__API__HOST := 127.0.0.1
export AIRFLOW__API__PORT := $(AIRFLOW_PORT)
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL := http://127.0.0.1:$(AIRFLOW_PORT)/execution/

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing Python dependencies into $(VENV) (torch 2.13.0 CPU first)..."
	@$(PIP) torch==2.13.0 2> >(grep -v '^WARNING: Location' >&2)
	@$(PIP) -r requirements-dev.txt 2> >(grep -v '^WARNING: Location' >&2)
	@$(PIP) --no-deps -e . 2> >(grep -v '^WARNING: Location' >&2)
	@touch $(STAMP)

system-deps:
	@bash infra/install-system-deps.sh

# The OpenSearch node (infra/opensearch): Maven resolves the server, its modules and the k-NN plugin from Maven
# Central once; nothing is downloaded when nodes start.
OPENSEARCH_JAR := infra/opensearch/target/secplat-opensearch-node-1.0.jar
$(OPENSEARCH_JAR): infra/opensearch/pom.xml $(shell find infra/opensearch/src -type f)
	@infra/opensearch/cluster build

install: system-deps $(STAMP) $(OPENSEARCH_JAR)

airflow-init: install
	@mkdir -p $(AIRFLOW_HOME) && $(BIN)/airflow db migrate > $(AIRFLOW_HOME)/migrate.log 2>&1 || { tail -20 $(AIRFLOW_HOME)/migrate.log; exit 1; }

# The nightly DAG end to end (crawl -> convert -> segment -> index), then the publish DAG its index task
# triggers; `airflow dags test` runs each in this process, no scheduler needed.
# The terminal gets one line per stage, the release and two questions to try (`secplat runs`); Airflow's,
# Spark's and the models' own output goes to the log file it names.
run: airflow-init
	@since=$$(date -u +%Y%m%dT%H%M%S); log="$(AIRFLOW_HOME)/make-run-$$since.log"; \
	echo "make run: the nightly DAG, then the publish DAG (full logs: $$log)"; \
	{ $(BIN)/airflow dags test secplat_nightly $(RUN_DATE) -c '{"filed_from": "$(RUN_FROM)"}' && \
	  $(BIN)/airflow dags test secplat_publish; } > "$$log" 2>&1; rc=$$?; \
	$(BIN)/secplat runs --since "$$since" 2>> "$$log"; \
	if [ $$rc -ne 0 ]; then echo "make run FAILED (exit $$rc); the end of $$log:"; tail -15 "$$log"; fi; exit $$rc

# The same run publishing to OpenSearch nodes the project starts (infra/opensearch/cluster; OPENSEARCH_NODES,
# OPENSEARCH_PORT, OPENSEARCH_DATA): the nightly's publish and the query commands use OPENSEARCH_URL.
opensearch-start: install
	@infra/opensearch/cluster start

opensearch-stop:
	@infra/opensearch/cluster stop

run-opensearch: airflow-init
	@export OPENSEARCH_URL="$$(infra/opensearch/cluster start | tail -1)" && echo "OPENSEARCH_URL=$$OPENSEARCH_URL" && \
	$(BIN)/airflow dags test secplat_nightly $(RUN_DATE) -c '{"filed_from": "$(RUN_FROM)"}' && \
	$(BIN)/airflow dags test secplat_publish && \
	$(BIN)/secplat list-versions

# The Airflow UI and scheduler (api-server, scheduler, dag-processor, triggerer) on http://127.0.0.1:8080.
airflow-ui: airflow-init
	$(BIN)/airflow standalone

# Both tiers (CI). test-unit: the fast tier for every change (no ../shared, no Airflow run, < 3 min);
# test-acceptance: real data from ../shared and whole-system runs (skipped with a message without ../shared).
# TEST_WORKERS: tests run at once (pytest-xdist; tests sharing a fixture that takes minutes run on one worker).
TEST_WORKERS ?= 2
PYTEST = $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup
test: install
	$(PYTEST) $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-unit: install
	$(PYTEST) -m "not acceptance" $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-acceptance: install
	$(PYTEST) -m acceptance $(PYTEST_ARGS) || [ $$? -eq 5 ]

lint: install
	$(BIN)/ruff check .

# BENCH_LAKE: a segmented and indexed mirror lake (secplat segment + index) for the embedding, memory and
# publish benchmarks; BENCH_FB_LAKE: the FinanceBench PDFs converted and segmented, for embedding quality.
SHARED ?= $(or $(SECPLAT_SHARED),../shared)

bench: install
	$(BIN)/python -m bench.crawl
	$(BIN)/python -m bench.discovery
	$(BIN)/python -m bench.convert
	$(BIN)/python -m bench.segment $(if $(BENCH_LAKE),--lake $(BENCH_LAKE))
	@if [ -n "$(BENCH_LAKE)" ]; then \
	  $(BIN)/python -m bench.embed --lake $(BENCH_LAKE) && \
	  $(BIN)/python -m bench.embed_memory --lake $(BENCH_LAKE) && \
	  $(BIN)/python -m bench.publish --lake $(BENCH_LAKE); \
	else echo "BENCH_LAKE not set: skipping the embedding, memory and publish benchmarks"; fi
	@if [ -n "$(BENCH_FB_LAKE)" ]; then \
	  $(BIN)/python -m bench.embed_quality --lake $(BENCH_FB_LAKE) --financebench $(SHARED)/eval/financebench && \
	  $(BIN)/python -m bench.query --lake $(BENCH_FB_LAKE) --questions $(SHARED)/eval/financebench/questions_dev.jsonl \
	    --scale $(or $(BENCH_SCALES),1,5,25) --follow && \
	  $(BIN)/python -m bench.cold_query --lake $(BENCH_FB_LAKE) --questions $(SHARED)/eval/financebench/questions_dev.jsonl && \
	  $(BIN)/python -m bench.opensearch --lake $(BENCH_FB_LAKE) --questions $(SHARED)/eval/financebench/questions_dev.jsonl --n 69; \
	else echo "BENCH_FB_LAKE not set: skipping the int8-vs-fp32 quality, query-at-scale and first-query benchmarks"; fi
	$(BIN)/python -m bench.capacity

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
