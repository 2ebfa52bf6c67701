#!/usr/bin/env bash
# make matrix: every CPython the package claims (pyproject.toml's classifiers) that this machine
# has, each proven on its own: a venv in .matrix/X.Y with requirements-dev.txt (and
# requirements-nodeps.txt), the extension built as a wheel against the pinned static librdkafka
# (librdkafka-build/static) and installed into that venv, then tests/unit and a broker round trip
# (tests/integration/test_roundtrip.py) run against the installed package. A table at the end;
# the exit status is 1 if any leg failed.
#
# The development build is left alone: the wheels are built from a copy of the sources
# (build/matrix/src; the pinned librdkafka is linked in through symbolic links, not copied), and
# the tests run from another copy without the package's sources (build/matrix/run), so nothing
# shadows the installed package. Logs: build/matrix/X.Y/.
#
# Usage: tests/support/matrix.sh [X.Y ...]   (default: every claimed version)
# Interpreter of X.Y: pyenv's newest X.Y.Z (PYENV_ROOT, default ~/.pyenv), else pythonX.Y on the
# PATH; free-threaded builds are not used (the package declares no free-threading support).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/matrix

mapfile -t CLAIMED < <(grep -o 'Programming Language :: Python :: 3\.[0-9]*"' pyproject.toml \
  | grep -o '3\.[0-9]*')
WANTED=("$@")
[ ${#WANTED[@]} -gt 0 ] || WANTED=("${CLAIMED[@]}")

# shellcheck source=tests/support/pythons.sh
source "$ROOT/tests/support/pythons.sh"   # find_python X.Y

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
  (cd "$OUT/run" && "$venv/bin/python" -m pytest "$@" -q -p no:cacheprovider \
     --junitxml="$logs/$name.xml") >"$logs/$name.log" 2>&1 || rc=$?
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
# The tests' brokers use the checkout's cache of Kafka jars (make jars).
export CONFLUENT_BINDING_CACHE=$ROOT/.cache

declare -a ROWS
status=0
for v in "${WANTED[@]}"; do
  py=$(find_python "$v")
  if [ -z "$py" ]; then
    ROWS+=("$v|not here|-|-|-")
    continue
  fi
  full=$("$py" -c 'import platform; print(platform.python_version())')
  venv=$ROOT/.matrix/$v
  logs=$OUT/$v
  rm -rf "$logs" && mkdir -p "$logs"
  echo "== CPython $full ($py): logs in ${logs#"$ROOT"/}"

  # The venv, remade when the interpreter changed; its dependencies, when the pins changed.
  want_stamp=$(cat requirements-dev.txt requirements-nodeps.txt <("$py" -c 'import sys; print(sys.version)') \
    | sha256sum | cut -c1-16)
  if [ "$(cat "$venv/.matrix-stamp" 2>/dev/null)" != "$want_stamp" ]; then
    if [ "$(cat "$venv/.python" 2>/dev/null)" != "$full $py" ]; then
      rm -rf "$venv" && "$py" -m venv "$venv" && echo "$full $py" >"$venv/.python"
    fi
    if ! { "$venv/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt \
           && "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
                -r requirements-nodeps.txt; } >"$logs/deps.log" 2>&1; then
      tail -20 "$logs/deps.log"
      ROWS+=("$v|$full: dependencies FAILED|-|-|-"); status=1
      continue
    fi
    echo "$want_stamp" >"$venv/.matrix-stamp"
  fi

  # The wheel, built from the copy, installed into the venv.
  build="ok"
  if ! { "$venv/bin/python" -m pip wheel -v --disable-pip-version-check --no-deps \
           --no-build-isolation -w "$logs/wheel" "$OUT/src" \
         && "$venv/bin/python" -m pip install --disable-pip-version-check --no-deps \
              --force-reinstall "$logs"/wheel/*.whl; } >"$logs/build.log" 2>&1; then
    tail -30 "$logs/build.log"
    ROWS+=("$v|$full|FAILED|-|-"); status=1
    continue
  fi
  grep -o 'confluent_binding: librdkafka from.*' "$logs/build.log" || true
  # The package the tests import must be the installed one.
  where=$(cd "$OUT/run" && "$venv/bin/python" -c \
    'import confluent_binding._core as c; print(c.__file__)')
  case $where in
    "$venv"/*) echo "imports $where" ;;
    *) echo "imports $where, not the installed wheel" >&2; build="wrong package"; status=1 ;;
  esac

  unit=$(run_tests unit tests/unit) || status=1
  echo "unit: $unit"
  trip=$(run_tests roundtrip tests/integration/test_roundtrip.py) || status=1
  echo "round trip: $trip"
  ROWS+=("$v|$full|$build|$unit|$trip")
done

echo
printf '%-6s  %-9s  %-6s  %-40s  %s\n' Python version build "unit (tests/unit)" \
  "round trip (test_roundtrip.py)"
for row in "${ROWS[@]}"; do
  IFS='|' read -r v full build unit trip <<<"$row"
  printf '%-6s  %-9s  %-6s  %-40s  %s\n' "$v" "$full" "$build" "$unit" "$trip"
done
exit "$status"
