# Every target does its own set-up, idempotently: a fresh Debian machine needs nothing else.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
EXT_SOURCES := $(wildcard src/*.pyx src/includes/*.pxd src/includes/*.h) confluent_binding/_core.pxd setup.py
STAMP_EXT := build/.ext-stamp
PYTEST_ARGS ?=
# The extension is built in place: run everything against this checkout.
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))

PHONY_SPARK := demo-spark bench-spark bench-columnar
.PHONY: $(PHONY_SPARK) all demo test lint unit integration bench bench-quick wheel librdkafka system deps jars schema-registry clean

all: $(STAMP_EXT)

# System packages: Java 17 and Maven for the test broker (librdkafka's own build deps are
# installed by librdkafka-build/build.sh).
system:
	@missing=""; command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	command -v mvn >/dev/null || missing="$$missing maven"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

librdkafka:
	bash librdkafka-build/build.sh

$(VENV)/.deps-stamp: requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

deps: $(VENV)/.deps-stamp

$(STAMP_EXT): $(EXT_SOURCES) $(VENV)/.deps-stamp | librdkafka
	$(PY) setup.py -q build_ext --inplace
	@mkdir -p build && touch $@

# Maven jars of the Apache Kafka broker the tests and the demo start.
jars: system deps
	$(PY) -c "from confluent_binding.testing import ensure_kafka_jars; print(ensure_kafka_jars())"

# A real Schema Registry (Apicurio Registry, Confluent's REST API) assembled once with Maven from
# its Maven Central jars (confluent_binding/testing/apicurio-pom.xml) into .cache/.
schema-registry: system deps
	$(PY) -c "from confluent_binding.testing import ensure_schema_registry_app; print(ensure_schema_registry_app(verbose=True))"

demo: system $(STAMP_EXT) jars
	$(PY) examples/quickstart.py

# A Spark streaming pipeline (examples/spark_pipeline.py): a topic through a windowed
# aggregation into another topic, with a checkpoint, against the local broker.
demo-spark: system $(STAMP_EXT) jars
	$(PY) examples/spark_pipeline.py

# Lint (rules in pyproject.toml): ruff for the Python, cython-lint for the Cython sources.
LINT_PY := confluent_binding tests examples setup.py bench pyspark_cbkafka.py
LINT_CY := $(wildcard src/*.pyx src/includes/*.pxd) confluent_binding/_core.pxd
lint: $(VENV)/.deps-stamp
	$(VENV)/bin/ruff check --no-cache $(LINT_PY)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/cython-lint $(LINT_CY)

test: lint system $(STAMP_EXT) jars schema-registry
	$(PY) -m pytest tests $(PYTEST_ARGS)

unit: $(STAMP_EXT)
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

integration: system $(STAMP_EXT) jars schema-registry
	$(PY) -m pytest tests/integration $(PYTEST_ARGS)

clean:
	rm -rf build dist *.egg-info confluent_binding/*.so src/_core.c src/*.html .pytest_cache

# Side-by-side benchmarks (bench/README.md). Set-up: the C ceiling (rdkafka_performance, built
# from the pinned librdkafka), the extension, the broker jars. Options: make bench ARGS="--rounds 7".
ARGS ?=
.PHONY: bench-setup
bench-setup: system $(STAMP_EXT) jars
	bash librdkafka-build/build-perf.sh

bench: bench-setup
	$(PY) bench/run.py $(ARGS)

bench-quick: bench-setup
	$(PY) bench/run.py --quick $(ARGS)

# A quick run of ours, confluent-kafka and the C tool against the committed quick run: fails on a
# ratio that fell beyond the noise measured in the rounds (bench/README.md, "Regression check").
.PHONY: bench-check
bench-check: bench-setup
	$(PY) bench/run.py --quick --check --clients confluent_binding,confluent_kafka,rdkafka_performance $(ARGS)

# C3: Consumer.consume_arrow() beside consume(1000) and rdkafka_performance (bench/columnar.py).
bench-columnar: bench-setup
	$(PY) bench/columnar.py $(ARGS)

# Spark: the cbkafka source vs Spark's built-in Kafka connector (bench/spark_kafka.py).
bench-spark: bench-setup
	$(PY) bench/spark_kafka.py $(ARGS)
