#!/usr/bin/env bash
# make matrix: the `matrix` legs of tests/legs.txt (a CPython and a build of the extension) that
# this machine has a CPython for, each proven on its own: a venv in .matrix/X.Y with
# requirements-dev.txt (and requirements-nodeps.txt), the extension built as a wheel against the
# pinned static librdkafka (librdkafka-build/static) and installed into that venv, then
# tests/unit and a broker round trip (tests/integration/test_roundtrip.py; on free-threaded legs
# with the thread-stress suite, tests/integration/test_thread_stress.py) run against the installed
# package. A table at the end; the exit status is 1 if any leg failed.
#
# The legs the CI workflow runs (`ci` in tests/legs.txt) get a dry check of what their CI job
# runs (make test): `make lint` with that venv (the leg's lint tools, from the checkout), and the
# collection of the whole suite against the installed wheel (every file of the leg's areas
# imports on that CPython; the areas the leg leaves out are not collected; a skip at collection
# that tests/skips-allowed.txt does not allow there fails it).
#
# The development build is left alone: the wheels are built from a copy of the sources
# (build/matrix/src; the pinned librdkafka is linked in through symbolic links, not copied), and
# the tests run from another copy without the package's sources (build/matrix/run), so nothing
# shadows the installed package. Logs: build/matrix/X.Y/.
#
# Usage: tests/support/matrix.sh [LEG | X.Y | X.Yt ...]   (default: every `matrix` leg; a python
# names its internal build's leg). A `public` leg's wheel is built with CB_PUBLIC_API_ONLY=1.
# Interpreter of X.Y: pyenv's newest X.Y.Z (PYENV_ROOT, default ~/.pyenv), else pythonX.Y on the
# PATH, with the GIL. Of X.Yt, a free-threaded build: pythonX.Yt on the PATH, else for 3.13t the
# one tests/support/freethreaded_python.sh builds from Debian's source (once, a few minutes).
#
# Free-threaded legs: the venv gets requirements-dev.txt without the packages that do not install
# there (tests/support/freethreaded-excluded.txt; pip prefers older wheels to newer sources for
# their dependencies), the wheel is built with CB_FREETHREADING=1 (setup.py: the module is marked
# as not needing the GIL), and the GIL column says whether the GIL stayed off after
# `import confluent_binding` and at the end of the unit run (another extension may turn it on).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/matrix

# "name python build ci|-" per leg (tests/support/legs.py reads tests/legs.txt)
LEGS=$(python3 tests/support/legs.py matrix "$@") || exit 2

# shellcheck source=tests/support/pythons.sh
source "$ROOT/tests/support/pythons.sh"   # find_python X.Y, find_freethreaded_python X.Y

# A requirements file without the packages of tests/support/freethreaded-excluded.txt.
without_excluded() {
  local excluded line name
  excluded=$(sed -e 's/#.*//' "$ROOT/tests/support/freethreaded-excluded.txt" \
    | awk 'NF { print tolower($1) }')
  while IFS= read -r line; do
    name=$(printf '%s\n' "$line" | sed -E -e 's/#.*//' -e 's/^[[:space:]]*([A-Za-z0-9._-]*).*/\1/' \
      | tr 'A-Z_.' 'a-z--')
    if [ -n "$name" ] && grep -qxF "$name" <<<"$excluded"; then continue; fi
    printf '%s\n' "$line"
  done <"$1"
}

# pytest's JUnit report -> "P passed, F failed, S skipped"
summarise() {
  "$venv/bin/python" - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("no report")
    sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
n = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
failed = n["failures"] + n["errors"]
print("%d passed, %d failed, %d skipped" % (n["tests"] - failed - n["skipped"], failed,
                                             n["skipped"]))
EOF
}

run_tests() {  # name, paths...: pytest in build/matrix/run with $venv; prints the summary
  local name=$1 rc=0; shift
  # matrix_gil (written below) notes whether the GIL is on when the run ends, in $logs/NAME.gil.
  (cd "$OUT/run" && MATRIX_GIL_FILE=$logs/$name.gil "$venv/bin/python" -m pytest "$@" -q \
     -p no:cacheprovider -p matrix_gil --junitxml="$logs/$name.xml") >"$logs/$name.log" 2>&1 || rc=$?
  local counts; counts=$(summarise "$logs/$name.xml")
  if [ "$rc" -ne 0 ]; then
    tail -25 "$logs/$name.log" >&2
    counts="$counts (exit $rc)"
  fi
  echo "$counts"
  return "$rc"
}

[ -e librdkafka-build/static/.pinned-build ] \
  || { echo "librdkafka-build/static is not built: make librdkafka" >&2; exit 1; }

# The sources as they are in the working tree: the files git tracks or would track (src/_core.c
# too if it is there: Cython's output does not depend on the Python version, so it is generated at
# most once for all of them), mtimes kept.
rm -rf "$OUT/src" "$OUT/run"
mkdir -p "$OUT/src" "$OUT/run"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  { git ls-files -z --cached --others --exclude-standard; [ ! -e src/_core.c ] || printf 'src/_core.c\0'; } \
    | while IFS= read -r -d '' f; do [ ! -e "$f" ] || printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$OUT/src"
else  # an unpacked sdist
  tar --exclude=./.matrix --exclude=./.venv --exclude=./.cache --exclude=./build --exclude=./dist \
    --exclude=./librdkafka-build/static --exclude=./librdkafka-build/build -cf - . \
    | tar -xf - -C "$OUT/src"
fi
find "$OUT/src" \( -name '*.so' -o -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
# The pinned librdkafka, linked in where setup.py looks for it, and its configured tree (setup.py
# takes librdkafka's internal headers from there, as for .venv).
ln -s "$ROOT/librdkafka-build/static" "$OUT/src/librdkafka-build/static"
[ ! -d librdkafka-build/build ] || ln -s "$ROOT/librdkafka-build/build" "$OUT/src/librdkafka-build/build"
# The tests run from a copy without the package's sources (tests read files of the checkout), so
# nothing there shadows the installed package.
cp -a "$OUT/src/." "$OUT/run/"
rm -rf "$OUT/run/confluent_binding" "$OUT/run/pyspark_cbkafka.py"
# A pytest plugin of the run directory (python -m puts it on sys.path), loaded with -p.
cat >"$OUT/run/matrix_gil.py" <<'EOF'
import os
import sys


def pytest_sessionfinish(session):
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    with open(os.environ["MATRIX_GIL_FILE"], "w") as f:
        f.write("on\n" if gil else "off\n")
EOF
# The tests' brokers use the checkout's cache of Kafka jars (make jars).
export CONFLUENT_BINDING_CACHE=$ROOT/.cache

declare -a ROWS
status=0
while read -r leg v want_api ci <&3; do
  freethreaded=""
  case $v in
    *t) freethreaded=1; py=$(find_freethreaded_python "${v%t}") ;;
    *) py=$(find_python "$v") ;;
  esac
  if [ -z "$py" ]; then
    ROWS+=("$leg|not here|-|-|-|-")
    continue
  fi
  full=$("$py" -c 'import platform; print(platform.python_version())')
  venv=$ROOT/.matrix/$v
  logs=$OUT/$leg
  # the build (setup.py) and the tests (tests/unit/test_wheel.py) read it
  CB_PUBLIC_API_ONLY=$([ "$want_api" = public ] && echo 1 || echo 0)
  export CB_PUBLIC_API_ONLY
  rm -rf "$logs" && mkdir -p "$logs"
  echo "== CPython $full ($py): logs in ${logs#"$ROOT"/}"

  # The venv, remade when the interpreter changed; its dependencies, when the pins changed.
  reqs=$logs/requirements-dev.txt nodeps=$logs/requirements-nodeps.txt pip_args=()
  if [ -n "$freethreaded" ]; then
    without_excluded requirements-dev.txt >"$reqs"
    without_excluded requirements-nodeps.txt >"$nodeps"
    pip_args=(--prefer-binary)
  else
    cp requirements-dev.txt "$reqs"
    cp requirements-nodeps.txt "$nodeps"
  fi
  want_stamp=$(cat "$reqs" "$nodeps" <("$py" -c 'import sys; print(sys.version)') \
    | sha256sum | cut -c1-16)
  if [ "$(cat "$venv/.matrix-stamp" 2>/dev/null)" != "$want_stamp" ]; then
    if [ "$(cat "$venv/.python" 2>/dev/null)" != "$full $py" ]; then
      rm -rf "$venv" && "$py" -m venv "$venv" && echo "$full $py" >"$venv/.python"
    fi
    if ! { "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pip_args[@]}" \
             -r "$reqs" \
           && "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
                -r "$nodeps"; } >"$logs/deps.log" 2>&1; then
      tail -20 "$logs/deps.log"
      ROWS+=("$leg|$full: dependencies FAILED|-|-|-|-"); status=1
      continue
    fi
    echo "$want_stamp" >"$venv/.matrix-stamp"
  fi

  # The wheel, built from the copy, installed into the venv.
  build="ok"
  rm -rf "$OUT/src/build"   # no objects of another leg's build (same CPython, other API)
  if ! { CB_FREETHREADING=${freethreaded:-0} "$venv/bin/python" -m pip wheel -v \
           --disable-pip-version-check --no-deps \
           --no-build-isolation -w "$logs/wheel" "$OUT/src" \
         && "$venv/bin/python" -m pip install --disable-pip-version-check --no-deps \
              --force-reinstall "$logs"/wheel/*.whl; } >"$logs/build.log" 2>&1; then
    tail -30 "$logs/build.log"
    ROWS+=("$leg|$full|FAILED|-|-|-"); status=1
    continue
  fi
  grep -o 'confluent_binding: \(librdkafka from\|marked\).*' "$logs/build.log" || true
  api=$(cd "$OUT/run" && "$venv/bin/python" -c \
    'import confluent_binding as c; print(c.build_info()["librdkafka_api"])' 2>/dev/null) || api="?"
  if [ "$api" != "$want_api" ]; then
    echo "the wheel's librdkafka API is $api, not the leg's $want_api" >&2; build="wrong API"
    status=1
  fi
  # The package the tests import must be the installed one.
  where=$(cd "$OUT/run" && "$venv/bin/python" -c \
    'import confluent_binding._core as c; print(c.__file__)')
  case $where in
    "$venv"/*) echo "imports $where" ;;
    *) echo "imports $where, not the installed wheel" >&2; build="wrong package"; status=1 ;;
  esac

  # The GIL after the import (a module not marked as free-threading compatible turns it on).
  gil=-
  if [ -n "$freethreaded" ]; then
    gil=$(cd "$OUT/run" && "$venv/bin/python" -c \
      'import sys, confluent_binding; print("on" if sys._is_gil_enabled() else "off")' 2>/dev/null) \
      || gil="?"
  fi

  unit=$(run_tests unit tests/unit) || status=1
  echo "unit: $unit"
  [ -z "$freethreaded" ] || gil="$gil/$(cat "$logs/unit.gil" 2>/dev/null || echo '?')"
  # Free-threaded legs: the thread-stress suite too (a shared Producer fed and polled by several
  # threads, a Consumer per thread, close() racing reads, one AdminClient for many threads).
  trip_tests=(tests/integration/test_roundtrip.py)
  [ -z "$freethreaded" ] || trip_tests+=(tests/integration/test_thread_stress.py)
  trip=$(run_tests roundtrip "${trip_tests[@]}") || status=1
  echo "round trip: $trip"
  # CI legs: make test's lint and the collection of every area the leg runs (see the top).
  dry=-
  if [ "$ci" = ci ]; then
    dry=ok
    make --no-print-directory lint VENV="${venv#"$ROOT"/}" >"$logs/lint.log" 2>&1 \
      || { tail -20 "$logs/lint.log" >&2; dry="lint FAILED"; status=1; }
    if (cd "$OUT/run" && "$venv/bin/python" -m pytest tests --collect-only -q \
          -p no:cacheprovider) >"$logs/collect.log" 2>&1; then
      dry="$dry, $(grep -o '[0-9]* tests collected' "$logs/collect.log" || echo '? collected')"
    else
      tail -20 "$logs/collect.log" >&2; dry="$dry, collection FAILED"; status=1
    fi
    grep -h '^lint: .* does not run' "$logs/lint.log" || true
    grep -h '^leg (tests/legs.txt)' "$logs/collect.log" || true
  fi
  ROWS+=("$leg|$full|$build ($want_api)|$gil|$unit|$trip|$dry")
done 3<<<"$LEGS"

echo
# GIL (free-threaded legs): after `import confluent_binding` / at the end of the unit run.
printf '%-12s  %-9s  %-15s  %-7s  %-36s  %-30s  %s\n' leg CPython build GIL \
  "unit (tests/unit)" "round trip (test_roundtrip.py)" "CI job, dry (lint, collection)"
for row in "${ROWS[@]}"; do
  IFS='|' read -r leg full build gil unit trip dry <<<"$row"
  printf '%-12s  %-9s  %-15s  %-7s  %-36s  %-30s  %s\n' "$leg" "$full" "$build" "$gil" "$unit" \
    "$trip" "${dry:--}"
done
if grep -q 't internal\|t public' <<<"$LEGS"; then
  echo "GIL (free-threaded only): after \`import confluent_binding\` / at the end of tests/unit"
  echo "round trip of free-threaded legs: test_roundtrip.py and test_thread_stress.py"
fi
exit "$status"
