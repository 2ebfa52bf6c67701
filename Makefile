# Every target does its own set-up, idempotently: a fresh Debian machine needs nothing else.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
EXT_SOURCES := $(wildcard src/*.pyx src/includes/*.pxd src/includes/*.h) confluent_binding/_core.pxd setup.py
STAMP_EXT := build/.ext-stamp
# librdkafka and its dependencies, static, from the pins in librdkafka-build/VERSION.
RDKAFKA_STAMP := librdkafka-build/static/.pinned-build
# pytest's arguments for the test targets. test, unit, integration, test-gssapi, reliability-long
# and soak run their own folder (file), or only the tests PYTEST_ARGS names:
#   make unit PYTEST_ARGS=tests/unit/test_config.py            that file only
#   make integration PYTEST_ARGS="tests/integration/test_aio.py::test_poll_timeout_is_a_loop_timer"
#   make integration PYTEST_ARGS="-k aio -x"                   the whole folder, filtered
# A word of PYTEST_ARGS that starts with tests/ (or ./tests/) names what to run; give an option
# whose value is a test path with '=' (--deselect=tests/..., --ignore=tests/...). asan and valgrind
# run ASAN_TESTS and VALGRIND_TESTS (PYTEST_ARGS adds to them).
PYTEST_ARGS ?=
test_paths = $(if $(filter tests/% ./tests/%,$(PYTEST_ARGS)),,$(1))

PHONY_SPARK := demo-spark bench-spark bench-columnar
.PHONY: $(PHONY_SPARK) all demo test lint unit integration bench bench-quick wheel librdkafka system deps jars schema-registry clean install
.PHONY: system-kerberos librdkafka-gssapi test-gssapi

all: $(STAMP_EXT)

# System packages: Java 17 and Maven for the test broker (librdkafka's own build deps are
# installed by librdkafka-build/build.sh).
system:
	@missing=""; command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	command -v mvn >/dev/null || missing="$$missing maven"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	command -v prometheus >/dev/null || missing="$$missing prometheus"; \
	command -v prometheus-pushgateway >/dev/null || missing="$$missing prometheus-pushgateway"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

librdkafka: $(RDKAFKA_STAMP)

# Kerberos (SASL GSSAPI): wheels cannot carry it (Cyrus SASL loads plugins from the system), so
# it is a from-source build on request: CB_GSSAPI=1 builds the pinned librdkafka with the system's
# libsasl2 into librdkafka-build/static-gssapi, reusing static/'s OpenSSL, curl, zstd and zlib.
# Its test (tests/gssapi: a real MIT KDC, a broker with a GSSAPI listener) is part of `make test`.
KERBEROS_PACKAGES := krb5-kdc krb5-admin-server krb5-user libsasl2-dev libsasl2-modules-gssapi-mit
GSSAPI_STAMP := librdkafka-build/static-gssapi/.pinned-build
system-kerberos:
	@missing=""; for p in $(KERBEROS_PACKAGES); do \
	  [ "$$(dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null)" = installed ] || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(GSSAPI_STAMP): librdkafka-build/VERSION librdkafka-build/build.sh librdkafka-build/lib.sh $(RDKAFKA_STAMP) | system-kerberos
	CB_GSSAPI=1 bash librdkafka-build/build.sh

librdkafka-gssapi: $(GSSAPI_STAMP)

# The extension against it is built by the test itself, into build/gssapi.
test-gssapi: system system-kerberos $(STAMP_EXT) jars $(GSSAPI_STAMP)
	$(PY) -m pytest $(call test_paths,tests/gssapi) $(PYTEST_ARGS)

# build.sh rewrites the stamp only when it really builds, so the extension is rebuilt only then.
$(RDKAFKA_STAMP): librdkafka-build/VERSION librdkafka-build/build.sh librdkafka-build/lib.sh $(wildcard librdkafka-build/patches/*.patch)
	bash librdkafka-build/build.sh

$(VENV)/.deps-stamp: requirements-dev.txt requirements-nodeps.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	touch $@

deps: $(VENV)/.deps-stamp

# The package is installed editable into the venv, so .venv/bin/python imports it from any
# directory; the compiled extension lands next to the Python sources. Build output:
# build/ext-build.log (its first line: where librdkafka came from).
$(STAMP_EXT): $(EXT_SOURCES) pyproject.toml $(VENV)/.deps-stamp $(RDKAFKA_STAMP)
	@mkdir -p build
	$(PY) -m pip install -v --disable-pip-version-check --no-deps --no-build-isolation -e . \
	  >build/ext-build.log 2>&1 || { tail -40 build/ext-build.log; exit 1; }
	@grep -o 'confluent_binding: librdkafka from.*' build/ext-build.log
	touch $@

install: $(STAMP_EXT)

# The release artifacts for this machine: dist/*.whl (repaired by auditwheel: a manylinux tag, no
# library from outside the wheel beyond the policy's) and dist/*.tar.gz (the sdist).
WHEEL_STAMP := dist/.stamp
$(WHEEL_STAMP): $(EXT_SOURCES) pyproject.toml setup.py README.md MANIFEST.in $(wildcard confluent_binding/*.py confluent_binding/*/*.py) $(VENV)/.deps-stamp $(RDKAFKA_STAMP)
	rm -rf dist build/wheel
	$(PY) -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w build/wheel .
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m auditwheel repair --strip -w dist build/wheel/*.whl
	$(PY) -m auditwheel show dist/*.whl
	$(PY) -m build --sdist --no-isolation --outdir dist . >build/sdist.log 2>&1 || { tail -20 build/sdist.log; exit 1; }
	ls -l dist
	touch $@

wheel: $(WHEEL_STAMP)

# Maven jars of the Apache Kafka broker the tests and the demo start.
jars: system deps
	$(PY) -c "from confluent_binding.testing import ensure_kafka_jars; print(ensure_kafka_jars())"

# A real Schema Registry (Apicurio Registry, Confluent's REST API) assembled once with Maven from
# its Maven Central jars (tests/support/apicurio-pom.xml) into .cache/.
schema-registry: system deps
	$(PY) -c "from tests.support.schema_registry import ensure_schema_registry_app; print(ensure_schema_registry_app(verbose=True))"

demo: system $(STAMP_EXT) jars
	$(PY) examples/quickstart.py

# A Spark streaming pipeline (examples/spark_pipeline.py): a topic through a windowed
# aggregation into another topic, with a checkpoint, against the local broker.
demo-spark: system $(STAMP_EXT) jars
	$(PY) examples/spark_pipeline.py

# The documentation site (docs/: Sphinx with autodoc and MyST; the API reference is generated from
# the docstrings at each build, docs/apigen.py) into build/docs: every page read afresh (-E), so
# every warning shows; warnings are errors, and every internal reference (a page, a section, a
# name of the package) must resolve (-n). tests/package/test_docs.py runs the same build.
.PHONY: docs
# The compiled module's docstrings (their one home: src/*.pyx) copied into its stub
# confluent_binding/_core.pyi, which IDEs and type checkers read; tests/package/test_docs.py
# fails while they differ.
.PHONY: stubs
stubs: $(STAMP_EXT)
	$(PY) docs/apigen.py --sync-stub

docs: $(STAMP_EXT)
	$(PY) -m sphinx -b html -n -W --keep-going -q -E -j auto docs build/docs
	@echo "docs: build/docs/index.html"

# Lint (rules in pyproject.toml): ruff for the Python, cython-lint for the Cython sources,
# import-linter for the package's layers and import cycles, a source check that the compiled
# core (src/) imports no module of the package, mypy over the package, and the public API's type
# completeness (pyright --verifytypes) held to its floor (tests/typing/type_completeness.py).
# Each tool runs where the venv's CPython's leg in tests/legs.txt lists it (import-linter needs
# Python 3.11+); the ones left out are named.
LINT_PY := confluent_binding tests examples docs setup.py bench pyspark_cbkafka.py
LINT_CY := $(wildcard src/*.pyx src/includes/*.pxd) confluent_binding/_core.pxd
LINT_TOOLS = $(shell $(PY) tests/support/legs.py lint)
lint_with = $(if $(filter $(1),$(LINT_TOOLS)),$(2),@echo "lint: $(1) does not run on this leg (tests/legs.txt)")
lint: $(VENV)/.deps-stamp
	@test -n "$(LINT_TOOLS)" || { echo "lint: tests/legs.txt could not be read"; exit 1; }
	$(call lint_with,ruff,$(VENV)/bin/ruff check --no-cache $(LINT_PY))
	$(call lint_with,cython-lint,PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/cython-lint $(LINT_CY))
	$(call lint_with,import-linter,$(VENV)/bin/lint-imports --no-cache)
	$(call lint_with,layering,$(PY) tests/unit/test_core_layering.py)
	$(call lint_with,mypy,$(VENV)/bin/mypy)
	$(call lint_with,types,$(PY) tests/typing/type_completeness.py)

# One pytest run over tests/ (tests/conftest.py) on TEST_WORKERS pytest-xdist workers, each with
# its own broker and other session-scoped servers: the timing-sensitive tests first, alone on one
# worker, then whole files (or groups of files sharing a server: all Spark tests on one worker),
# the longest-running areas first (tests/support/parallel.py); a skip or xfail that
# tests/skips-allowed.txt does not allow fails the run; the time per area and each worker's busy
# time are printed at the end. TEST_WORKERS=0 runs it in this one process (unit tests first,
# Spark last). Three workers on two cores: they wait on their brokers much of the time
# (docs/development.md).
TEST_WORKERS ?= 3
test: lint system system-kerberos $(STAMP_EXT) jars schema-registry spark-connector-jars $(WHEEL_STAMP) $(GSSAPI_STAMP)
	$(PY) -m pytest $(call test_paths,tests) $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile) --durations=30 $(PYTEST_ARGS)

unit: $(STAMP_EXT)
	$(PY) -m pytest $(call test_paths,tests/unit) $(PYTEST_ARGS)

integration: system $(STAMP_EXT) jars schema-registry spark-connector-jars
	$(PY) -m pytest $(call test_paths,tests/integration) $(PYTEST_ARGS)

# confluent-kafka-python's own tests, run against this package through the confluent_kafka
# import alias (tests/conformance/conformance_plugin.py, which also asserts that no module of the
# real confluent-kafka is imported). Not part of `make test`: the tests live in
# confluent-kafka-python's public repository (confluentinc/confluent-kafka-python), at the tag of
# the confluent-kafka that requirements-dev.txt pins, and PyPI's sdist does not carry them:
#   make conformance CONFLUENT_KAFKA_SRC=DIR      DIR: a checkout (or `git archive` of tests/)
# Two parts, each held to its allow-list: a failure it does not list fails the run, a listed test
# that passes is reported as stale.
# 1. The broker-less tests, held to tests/conformance/allowed.txt; the tally "passed / allowed /
#    total" at the end. DIR/tests/test_*.py (the asyncio tests test_AIO*.py among them),
#    tests/schema_registry/ and tests/avro/ (CONFORMANCE_PATHS).
# 2. The broker-backed tests/integration/ (CONFORMANCE_INTEGRATION_PATHS): admin, consumer,
#    producer, serialization, schema_registry (sync and asyncio), share consumer. The driver
#    tests/conformance/run_integration.py starts a Kafka 4.2 broker of our harness with the broker
#    settings confluent's tests ask for and a Schema Registry (Apicurio's, Confluent's API), hands
#    them to confluent's fixtures as BROKERS and SR_URL, runs the tests against this package
#    (held to tests/conformance/allowed-integration.txt: what needs a trivup-built cluster, a
#    Confluent registry at a pinned version, or fails alike on the real confluent-kafka), then the
#    real confluent-kafka over the same tests as the control (fresh broker and registry each),
#    and prints both tallies per file and the tests that fail on ours only.
# Left out:
#   tests/soak/, system/, ducktape/                weeks-long soak clients against Confluent Cloud,
#                                                  CI scripts, ducktape benchmarks (docker)
#   tests/integration/integration_test.py          a script, not a pytest module
#   tests/docker/, tests/trivup/                   that cluster's tooling, no tests
#   tests/_util/, tests/oauthbearer/               confluent's private modules (its config-string
#                                                  parser, its AWS token provider, which needs AWS)
#   tests/test_unasync.py                          confluent's code generator (tools/), not the API
#   tests/test_buffer_timeout_manager.py, test_kafka_batch_executor.py,
#   test_producer_batch_processor.py               the private thread-pool batching inside
#                                                  confluent's AIOProducer, which ours does without
# The test-only packages those tests import are installed first (CONFORMANCE_DEPS; hvac for the
# HashiCorp Vault driver's tests). The broker-less run hides httpx2 (conformance_plugin.py): the
# tests mock httpx with respx, and confluent-kafka's transport, as ours, takes httpx2 when it can.
# Async test functions run without a marker (asyncio_mode=auto), as in confluent's own setup.
# CONFORMANCE_PATHS and CONFORMANCE_INTEGRATION_PATHS narrow the runs (paths relative to DIR,
# e.g. "tests/test_*.py tests/avro"; empty: that part is not run); PYTEST_ARGS goes to each pytest.
CONFORMANCE_DEPS := respx==0.23.1 pyflakes==4.1.0 hvac==2.4.0
CONFORMANCE_PATHS ?= tests/test_*.py tests/schema_registry tests/avro
CONFORMANCE_INTEGRATION_PATHS ?= tests/integration
CONFORMANCE_LEFT_OUT := tests/test_unasync.py tests/test_buffer_timeout_manager.py \
  tests/test_kafka_batch_executor.py tests/test_producer_batch_processor.py
.PHONY: conformance
conformance: system $(STAMP_EXT) jars schema-registry
	@if [ -z "$(CONFLUENT_KAFKA_SRC)" ] || [ ! -d "$(CONFLUENT_KAFKA_SRC)/tests" ]; then \
	  echo "make conformance needs CONFLUENT_KAFKA_SRC=DIR: confluent-kafka-python's tests at" \
	    "v$$(sed -n 's/^confluent-kafka==//p' requirements-dev.txt), e.g." >&2; \
	  echo "  git clone --depth 1 --branch v$$(sed -n 's/^confluent-kafka==//p' requirements-dev.txt)" \
	    "<confluentinc/confluent-kafka-python's repository> DIR" >&2; \
	  exit 2; fi
	$(PY) -m pip install -q --disable-pip-version-check $(CONFORMANCE_DEPS)
	@status=0; \
	if [ -n "$(strip $(CONFORMANCE_PATHS))" ]; then \
	  (cd "$(CONFLUENT_KAFKA_SRC)" && PYTHONPATH="$(CURDIR)/tests/conformance" "$(CURDIR)/$(PY)" -m pytest \
	    -p conformance_plugin -p no:cacheprovider -p no:randomly --rootdir=. -q --timeout=300 \
	    --continue-on-collection-errors -o asyncio_mode=auto -o asyncio_default_fixture_loop_scope=function \
	    $(addprefix --ignore=,$(CONFORMANCE_LEFT_OUT)) \
	    $(filter-out $(CONFORMANCE_LEFT_OUT),$(patsubst \
	      $(CONFLUENT_KAFKA_SRC)/%,%,$(wildcard $(addprefix $(CONFLUENT_KAFKA_SRC)/,$(CONFORMANCE_PATHS))))) \
	    $(PYTEST_ARGS)) || status=$$?; \
	fi; \
	if [ -n "$(strip $(CONFORMANCE_INTEGRATION_PATHS))" ]; then \
	  $(PY) tests/conformance/run_integration.py "$(CONFLUENT_KAFKA_SRC)" $(CONFORMANCE_INTEGRATION_PATHS) \
	    -- $(PYTEST_ARGS) || status=$$?; \
	fi; \
	exit $$status

# aiokafka's own API-level tests, run against this package's aiokafka face through the aiokafka
# import alias, with the real aiokafka over the same tests as the control. Not part of `make
# test`: the tests live in aiokafka's public repository (aio-libs/aiokafka), at the tag of the
# aiokafka that requirements-dev.txt pins:
#   make conformance-aiokafka AIOKAFKA_SRC=DIR    DIR: a checkout (or `git archive` of tests/)
# The driver tests/conformance/run_aiokafka.py starts a Kafka 4.2 broker of our harness with the
# listeners of aiokafka's Docker image (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL), runs
# DIR/tests/test_producer.py, test_consumer.py, test_pep492.py, test_transactional_producer.py,
# test_transactional_consumer.py, test_admin.py, test_partitioner.py and test_helpers.py (those
# that exist; AIOKAFKA_FILES narrows them) with tests/conformance/aiokafka_plugin.py in place of
# aiokafka's Docker-based conftest (its ACL, SCRAM-user and Kerberos helpers, which run commands
# in that container, fail the test using them), held to tests/conformance/allowed-aiokafka.txt
# (tests that read aiokafka's internals), then the same files on the real aiokafka (fresh broker),
# and prints both tallies per file and the tests that fail on ours only.
# Left out: the tests of aiokafka's internals (test_protocol*.py, test_codec.py, test_conn.py,
# test_client.py, test_cluster.py, test_coordinator.py, test_fetcher.py, test_sender.py,
# test_message_accumulator.py, test_transaction_manager.py, test_subscription_state.py,
# test_requests.py, test_rack_awareness.py, coordinator/, record/) and test_sasl.py (ACLs and
# SCRAM users made with ZooKeeper-era tools inside aiokafka's container, and a Kerberos realm).
AIOKAFKA_FILES ?=
.PHONY: conformance-aiokafka
conformance-aiokafka: system $(STAMP_EXT) jars
	@if [ -z "$(AIOKAFKA_SRC)" ] || [ ! -d "$(AIOKAFKA_SRC)/tests" ]; then \
	  echo "make conformance-aiokafka needs AIOKAFKA_SRC=DIR: aiokafka's tests at" \
	    "v$$(sed -n 's/^aiokafka==\([^ ;]*\) *; python_version >= "3.10"/\1/p' requirements-dev.txt)," \
	    "e.g. a clone of aio-libs/aiokafka's repository at that tag" >&2; \
	  exit 2; fi
	$(PY) tests/conformance/run_aiokafka.py "$(AIOKAFKA_SRC)" $(AIOKAFKA_FILES) -- $(PYTEST_ARGS)

clean:
	rm -rf build dist *.egg-info confluent_binding/*.so src/*.c src/*.html .pytest_cache

# The Python matrix (not part of make test): for every `matrix` leg of tests/legs.txt whose CPython
# this machine has (pyenv's, else pythonX.Y on the PATH), a venv in .matrix/X.Y with the dev pins,
# the extension built as a wheel against the pinned librdkafka (the leg's build: internal or public
# API) and installed there, then tests/unit and a broker round trip against the installed package,
# and for the legs the CI workflow runs, make lint with that venv and the suite's collection; a
# table at the end. .venv and confluent_binding/*.so are not touched; build output in build/matrix
# (tests/support/matrix.sh). Free-threaded 3.13 (3.13t) is built once from Debian's source
# (tests/support/freethreaded_python.sh), its venv without the dev pins that do not install there
# (tests/support/freethreaded-excluded.txt).
# Some legs only: make matrix MATRIX_PYTHONS="3.9 3.12-public 3.13t" (legs of tests/legs.txt, or
# CPythons: their internal build's leg)
MATRIX_PYTHONS ?=
.PHONY: matrix
matrix: system jars $(RDKAFKA_STAMP)
	bash tests/support/matrix.sh $(MATRIX_PYTHONS)

# Every artifact this machine can build, without Docker (zig for glibc 2.28; tests/support/release.sh):
# manylinux_2_28 x86_64 wheels for each local CPython, a manylinux_2_28 aarch64 wheel for the
# CPython of an arm64 Debian root run under qemu-user, the sdist; each wheel installed alone into a
# fresh venv of its interpreter and round-tripped through a broker; dist/release/ (with SHA256SUMS)
# and a table (build/release/summary.md). Not part of make test. RELEASE_ARGS="--no-aarch64 3.12"
RELEASE_ARGS ?=
.PHONY: release
release: system deps jars
	bash tests/support/release.sh $(RELEASE_ARGS)

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

# C3: Consumer.consume_arrow() beside C2 and rdkafka_performance, ours and confluent-kafka's C2
# for scale (bench/run.py; results in bench/results/columnar/).
bench-columnar: bench-setup
	$(PY) bench/run.py --sizes 100 --no-m1 --workloads C2,C3 \
	  --clients confluent_binding,confluent_kafka,rdkafka_performance \
	  --out-dir bench/results/columnar $(ARGS)

# Spark: the cbkafka source and sink vs Spark's built-in Kafka connector, read and write, in
# local[2] and on a standalone cluster (bench/spark_kafka.py; e.g. ARGS="--rows 10000000 --local").
bench-spark: bench-setup
	$(PY) bench/spark_kafka.py $(ARGS)

# The Spark source and sink on a standalone cluster (a master and two workers from PySpark's own
# distribution) against three brokers, with executors and leaders killed mid-query: all of
# tests/integration/spark/test_spark_cluster.py (make test runs its one unmarked test), the
# option tests side by side with Spark's own connector (fetched by spark-connector-jars), and
# the Schema Registry formats on the cluster (make test runs the Avro read there).
.PHONY: test-spark-cluster spark-connector-jars
test-spark-cluster: system $(STAMP_EXT) jars schema-registry spark-connector-jars
	$(PY) -m pytest tests/integration/spark/test_spark_cluster.py tests/integration/spark/test_spark_options.py \
	  tests/integration/spark/test_spark_schema_registry.py tests/integration/spark/test_spark_sr_json_protobuf.py \
	  --slow -p no:randomly --durations=0 $(PYTEST_ARGS)

# Spark's own Kafka connector jars (as make bench-spark fetches them): the Spark tests then also
# run the option tests against it, side by side. And spark-avro (from_avro; its Avro library is
# among pyspark's jars), for the side-by-side tests of Schema Registry data.
# A CPython without PySpark (3.9: PySpark 4.2 needs 3.10+) runs no Spark tests (tests/legs.txt).
spark-connector-jars: system
	@if ! $(PY) -c "import pyspark" 2>/dev/null; then \
	  echo "spark-connector-jars: no PySpark on this CPython: its leg runs no Spark tests"; exit 0; fi; \
	$(PY) -c "import sys; sys.path.insert(0, 'bench'); import pyspark, spark_kafka; print(spark_kafka.connector_jars(pyspark.__version__))" && \
	v=$$($(PY) -c "import pyspark; print(pyspark.__version__)") && \
	d=$$($(PY) -c "from confluent_binding.testing._jars import cache_dir; print(cache_dir())")/spark-avro-$$v && \
	p=$$($(PY) -c "from confluent_binding.testing._jars import DEPENDENCY_PLUGIN as p; print(p)") && \
	if [ ! -f $$d/.complete ]; then rm -rf $$d.tmp $$d && \
	  mvn -B -q $$p:copy -Dartifact=org.apache.spark:spark-avro_2.13:$$v -DoutputDirectory=$$d.tmp \
	    </dev/null && mv $$d.tmp $$d && echo $$v > $$d/.complete; fi && ls $$d/*.jar

# Checks of the release workflows that can run here: actionlint (built from the Go module proxy;
# needs Go >= 1.24 on PATH) with shellcheck, and the wheel identifiers cibuildwheel would build.
ACTIONLINT_VERSION := v1.7.12
.PHONY: check-workflows
check-workflows: deps
	command -v shellcheck >/dev/null || { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null; }
	GOBIN=$(CURDIR)/build/tools go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	build/tools/actionlint .github/workflows/*.yml
	python3 tests/support/legs.py check
	shellcheck -x librdkafka-build/*.sh .ci/run tests/support/release.sh tests/support/musl_python.sh \
	  tests/support/debian_orig.sh \
	  tests/support/freethreaded_python.sh
	for p in "linux x86_64,aarch64" "macos arm64,x86_64" "windows AMD64"; do set -- $$p; \
	  $(PY) -m cibuildwheel --print-build-identifiers --platform $$1 --archs $$2 | tr '\n' ' '; echo; done

# ---- Reliability: long runs, sanitizers, soak (README "Reliability") ----------------------------
.PHONY: reliability-long asan tsan valgrind soak sanitizer-tools
# The fault tests at full size: 1,000,000 messages through a three-broker cluster whose partition
# leaders are SIGKILLed (the default suite runs 200,000).
reliability-long: system $(STAMP_EXT) jars
	$(PY) -m pytest $(call test_paths,tests/reliability/test_cluster_faults.py) --slow -m slow -s $(PYTEST_ARGS)

# Soak: 10 M messages produced with callbacks and consumed back (RSS slope <= 1 MB per million),
# 2,000 clients created and closed (no memory, thread or descriptor left).
soak: system $(STAMP_EXT) jars
	$(PY) -m pytest $(call test_paths,tests/soak) --slow -s $(PYTEST_ARGS)

# gcc's AddressSanitizer and ThreadSanitizer runtimes and valgrind.
sanitizer-tools:
	@missing=""; [ -e "$$(gcc -print-file-name=libasan.so)" ] || missing="$$missing libasan8"; \
	[ -e "$$(gcc -print-file-name=libtsan.so)" ] || missing="$$missing libtsan2"; \
	command -v valgrind >/dev/null || missing="$$missing valgrind"; \
	if [ -n "$$missing" ]; then \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The unit suite against an AddressSanitizer build of the extension and librdkafka (built apart,
# in build/asan/: the normal build is untouched). Fails on any sanitizer error, and on a definite
# leak with a frame in our extension or librdkafka (tests/sanitize/lsan_report.py); the reports
# stay in build/asan/reports/ (the exit status is pytest's and the report's: leaks alone do not set it).
ASAN_DIR := build/asan
ASAN_TESTS ?= tests/unit
asan: sanitizer-tools $(STAMP_EXT)
	PY=$(CURDIR)/$(PY) bash librdkafka-build/build-sanitized.sh address $(ASAN_DIR)
	rm -rf $(ASAN_DIR)/reports && mkdir -p $(ASAN_DIR)/reports
	cd $(ASAN_DIR)/tree && LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" PYTHONMALLOC=malloc LSAN_OPTIONS=exitcode=0 \
	  ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:log_path=$(CURDIR)/$(ASAN_DIR)/reports/asan:detect_stack_use_after_return=0:allocator_may_return_null=1" \
	  PYTHONPATH=$(CURDIR)/$(ASAN_DIR)/tree $(CURDIR)/$(PY) -m pytest $(ASAN_TESTS) -p no:cacheprovider -q $(PYTEST_ARGS); \
	  status=$$?; cd $(CURDIR) && $(PY) tests/sanitize/lsan_report.py $(ASAN_DIR)/reports && exit $$status

# The thread-stress suite (and any TSAN_TESTS) on free-threaded CPython 3.13 built with
# ThreadSanitizer (tests/support/freethreaded_python.sh, CB_FREETHREADED_TSAN=1; built once, outside
# the checkout), with librdkafka and the extension instrumented alike (built apart, in build/tsan/).
# Its venv has only what those tests import. Fails on a report with a frame in the extension or
# librdkafka (tests/sanitize/tsan_report.py); CPython's own suppressions for its known reports and
# tests/sanitize/tsan.supp (librdkafka's own harmless ones, each with its reason) apply; the reports
# stay in build/tsan/reports/. Slow: the interpreter runs 5-15 times slower.
TSAN_DIR := build/tsan
TSAN_TESTS ?= tests/integration/test_thread_stress.py
TSAN_REQUIREMENTS := setuptools|Cython|pytest|pytest-timeout|pytest-asyncio
tsan: sanitizer-tools system jars $(RDKAFKA_STAMP)
	mkdir -p $(TSAN_DIR)
	py=$$(CB_FREETHREADED_TSAN=1 bash tests/support/freethreaded_python.sh) && \
	  { test -x $(TSAN_DIR)/venv/bin/python || $$py -m venv $(TSAN_DIR)/venv; } && \
	  grep -E '^($(TSAN_REQUIREMENTS)) *==' requirements-dev.txt > $(TSAN_DIR)/requirements.txt && \
	  TSAN_OPTIONS=report_bugs=0 $(TSAN_DIR)/venv/bin/python -m pip install -q --disable-pip-version-check \
	    -r $(TSAN_DIR)/requirements.txt
	TSAN_OPTIONS=report_bugs=0 CB_FREETHREADING=1 PY=$(CURDIR)/$(TSAN_DIR)/venv/bin/python \
	  bash librdkafka-build/build-sanitized.sh thread $(TSAN_DIR)
	rm -rf $(TSAN_DIR)/reports && mkdir -p $(TSAN_DIR)/reports
	cat "$$(dirname "$$(readlink -f $(TSAN_DIR)/venv/bin/python)")/../share/tsan-suppressions.txt" \
	  tests/sanitize/tsan.supp > $(TSAN_DIR)/suppressions.txt
	cd $(TSAN_DIR)/tree && CONFLUENT_BINDING_CACHE=$(CURDIR)/.cache PYTHONPATH=$(CURDIR)/$(TSAN_DIR)/tree \
	  TSAN_OPTIONS="suppressions=$(CURDIR)/$(TSAN_DIR)/suppressions.txt:log_path=$(CURDIR)/$(TSAN_DIR)/reports/tsan:exitcode=0:second_deadlock_stack=1" \
	  $(CURDIR)/$(TSAN_DIR)/venv/bin/python -m pytest $(TSAN_TESTS) -p no:cacheprovider -q -o timeout=1800 $(PYTEST_ARGS); \
	  status=$$?; cd $(CURDIR) && $(PY) tests/sanitize/tsan_report.py $(TSAN_DIR)/reports && exit $$status

# The same tests under valgrind memcheck with the normal build (slow: a selection by default).
VALGRIND_TESTS ?= tests/unit/test_types.py tests/unit/test_producer_unit.py
valgrind: sanitizer-tools $(STAMP_EXT)
	rm -rf build/valgrind && mkdir -p build/valgrind
	PYTHONMALLOC=malloc valgrind --tool=memcheck --leak-check=full \
	  --show-leak-kinds=definite --errors-for-leak-kinds=none --trace-children=no \
	  --suppressions=tests/sanitize/valgrind-python.supp --num-callers=30 \
	  --log-file=build/valgrind/memcheck.%p.log \
	  $(PY) -m pytest $(VALGRIND_TESTS) -p no:cacheprovider -q -o timeout=0 $(PYTEST_ARGS); \
	  status=$$?; $(PY) tests/sanitize/valgrind_report.py build/valgrind && exit $$status
