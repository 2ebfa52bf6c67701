#!/usr/bin/env bash
# A free-threaded CPython 3.13 (3.13t: configured with --disable-gil), for make matrix's 3.13t leg:
# Debian's python3.13 source (its upstream tarball, from the system's Debian mirror, checked
# against the sha256 below) built without PGO into a prefix outside the checkout, with the
# modules the development requirements need (ssl, sqlite3, zlib, lzma, bz2, ctypes; readline when
# its headers are there). Reused once built. Prints the interpreter's path:
#
#   py=$(bash tests/support/freethreaded_python.sh)      # .../bin/python3.13t
#
# With CB_FREETHREADED_TSAN=1: the same interpreter built with ThreadSanitizer
# (--with-thread-sanitizer) into a prefix of its own, for make tsan; CPython's own suppressions
# for its known free-threading reports are kept as share/tsan-suppressions.txt in that prefix.
#
# The -dev packages the modules need are installed with apt-get when missing, as make system
# does for the project's other system packages.
set -euo pipefail
VERSION=3.13.5
TARBALL=python3.13_$VERSION.orig.tar.xz
POOL=pool/main/p/python3.13
SHA256=93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/confluent_binding
TSAN=${CB_FREETHREADED_TSAN:-0}
SUFFIX=""; CONFIGURE_TSAN=(); INSTALL_TSAN=()
if [ "$TSAN" = 1 ]; then
  SUFFIX=-tsan; CONFIGURE_TSAN=(--with-thread-sanitizer --disable-test-modules)
  # the install's byte-compiling in worker processes did not end under the sanitizer: one process
  INSTALL_TSAN=(COMPILEALL_OPTS=-j1)
  # the interpreter runs during its own build and install (ensurepip): not what is checked
  export TSAN_OPTIONS=report_bugs=0
fi
PREFIX=${CB_FREETHREADED_PYTHON_PREFIX:-$CACHE/freethreaded-python-$VERSION$SUFFIX}
PY=$PREFIX/bin/python3.13t
# What the interpreter must have: the GIL off, and the modules pip and the dev requirements use.
CHECK='import sys, ssl, sqlite3, zlib, lzma, bz2, ctypes, json, venv, ensurepip
sys.exit(sys._is_gil_enabled())'

if [ -x "$PY" ] && "$PY" -c "$CHECK" 2>/dev/null; then
  echo "$PY"; exit 0
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# header -> the Debian package that has it
missing=()
for pair in openssl/ssl.h:libssl-dev sqlite3.h:libsqlite3-dev zlib.h:zlib1g-dev lzma.h:liblzma-dev \
            bzlib.h:libbz2-dev ffi.h:libffi-dev readline/readline.h:libreadline-dev \
            uuid/uuid.h:uuid-dev ncurses.h:libncurses-dev; do
  header=${pair%%:*}
  echo "#include <$header>" | cpp -x c - >/dev/null 2>&1 || missing+=("${pair#*:}")
done
command -v pkg-config >/dev/null || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

# shellcheck source=tests/support/debian_orig.sh
. "$(dirname "$0")/debian_orig.sh"
debian_orig "$CACHE" "$POOL" "$TARBALL" "$SHA256"

work=$(mktemp -d "${TMPDIR:-/tmp}/cb-freethreaded-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xJf "$src" -C "$work" --strip-components=1
log=$CACHE/freethreaded-python$SUFFIX-build.log
echo "building CPython $VERSION (free-threaded) into $PREFIX: log in $log" >&2
# The prefix is remade whole: a half-installed one from an interrupted run is not kept.
rm -rf "$PREFIX"
cd "$work"
{
  ./configure --prefix="$PREFIX" --disable-gil --with-ensurepip=install "${CONFIGURE_TSAN[@]}"
  nice -n 10 make -j"${JOBS:-2}"
  make altinstall "${INSTALL_TSAN[@]}"
  if [ "$TSAN" = 1 ]; then
    mkdir -p "$PREFIX/share"
    cp Tools/tsan/suppressions_free_threading.txt "$PREFIX/share/tsan-suppressions.txt"
  fi
} >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
# Modules that configure found no library for are only listed by the build, not fatal to it.
grep -m1 -A1 'necessary bits to build these optional modules were not found' "$log" >&2 || true
gil=$("$PY" -c 'import sys, ssl, sqlite3, zlib, lzma, bz2, ctypes; print(sys._is_gil_enabled())')
[ "$gil" = False ] || { echo "$PY: the GIL is enabled ($gil)" >&2; exit 1; }
"$PY" -c "$CHECK" >&2
echo "$PY"
