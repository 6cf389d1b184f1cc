# The front door: `make test` runs every test, `make lab` opens the lab.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kslab-installed

.PHONY: test lint lab bench bench-idiomatic bench-spark bench-spark-streaming clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check kslab tests bench conftest.py

# Four workers on two cores: most slow tests wait (a broker's group join, a Spark job, a kernel),
# so workers beyond the cores overlap the waiting; the Spark and export tests keep to their
# groups (conftest.py), which with the longest single tests start first (conftest.py's FIRST;
# --no-loadscope-reorder keeps that order). Six (2026-11-29) ran three Spark JVMs beside the
# rest and Spark's Python workers then missed its fixed 10 s to connect back: no faster, and red.
# TEST_ARGS adds pytest options, e.g. TEST_ARGS="-p tests.timeline" records where time goes.
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: without it every Python process
# of the run (each xdist worker, Spark's Python workers, kernels, apps: hundreds) compiled kslab
# from source (0.4-0.5 CPU-s each) and each worker rewrote every test module's asserts again.
# A tree never collected (a clean clone: no tests/__pycache__) is collected once first, so the
# workers find the rewritten test modules cached instead of each rewriting them (28 CPU-s per
# worker cold, 8-13 warm; the one collection 32).
TEST_WORKERS ?= 4
test: $(STAMP) lint
	test -d tests/__pycache__ || env -u PYTHONDONTWRITEBYTECODE \
	$(BIN)/python -m pytest -qq --collect-only -p no:cacheprovider > /dev/null || true
	env -u PYTHONDONTWRITEBYTECODE \
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(TEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/run.py

# Issue 19's workloads written as a user would, beside a plain loop, polars and Bytewax (2-4
# minutes; Bytewax's rows need `$(BIN)/pip install bytewax==0.21.1`)
bench-idiomatic: $(STAMP)
	$(BIN)/python bench/idiomatic.py --runs 3

# The same workloads live on a LocalBroker, at least once and exactly once: kslab KafkaStreams
# beside a raw confluent-kafka loop and Quix Streams 3.28.1 (10-12 minutes). Quix runs from its
# own venv (`python3 -m venv /tmp/quixvenv && /tmp/quixvenv/bin/pip install
# quixstreams==3.28.1`, or QUIX_PYTHON=...); without it its column is n/a
.PHONY: bench-live
bench-live: $(STAMP)
	QUIX_PYTHON=$${QUIX_PYTHON:-$$(test -x /tmp/quixvenv/bin/python && echo /tmp/quixvenv/bin/python)} \
	$(BIN)/python bench/idiomatic_live.py --records 100000 --lines 20000 --runs 3

# Spark batch replay of 1M records on local[1] and local[2] beside the driver (a few minutes)
bench-spark: $(STAMP)
	$(BIN)/python bench/spark.py --records 1000000

# Spark streaming word count (issue 21 item 6): 10k/50k/100k-word micro-batches, the stateless
# floor after each, KafkaStreams on the same lines first and last (tens of minutes under load)
bench-spark-streaming: $(STAMP)
	$(BIN)/python bench/spark.py --streaming --records 120000 --words 150000 --floor --live

# JupyterLab on notebooks/ with the kslab kernel (and a local broker when the runtime has one);
# Ctrl-C twice (or `.venv/bin/jupyter lab stop`) stops both. LAB_ARGS go to `jupyter lab`.
lab: $(STAMP)
	$(BIN)/python extensions/lab.py $(LAB_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
