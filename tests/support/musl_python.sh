#!/usr/bin/env bash
# A CPython linked with musl, to run the musllinux wheels on this (glibc) machine: Debian's
# python3.11 source (its upstream tarball, from the system's Debian mirror, checked against the
# sha256 below) compiled with Debian's musl-gcc (package musl-tools) into a prefix outside the
# checkout. Only what the release smoke test needs is built: no OpenSSL, sqlite, Tk or readline
# modules. Prints the interpreter's path, for release.sh's CB_MUSL_PYTHON:
#
#   CB_MUSL_PYTHON=$(bash tests/support/musl_python.sh) bash tests/support/release.sh --no-aarch64
#
# Installing musl-tools puts musl's loader at /lib/ld-musl-x86_64.so.1, from which snappy-java
# (Spark's parquet and shuffle codec) concludes it runs on musl and loads its musl build, which
# fails on this glibc machine: Spark's snappy is unusable here until the package is removed (the
# project's Spark tests write uncompressed parquet, so they are not affected).
#
# Debian's musl-gcc has musl's headers only; the kernel's (linux/, asm/, asm-generic/ of
# linux-libc-dev) are added the way musl distributions install them, beside libc's.
set -euo pipefail
VERSION=3.11.2
TARBALL=python3.11_$VERSION.orig.tar.gz
POOL=pool/main/p/python3.11
SHA256=2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/confluent_binding
PREFIX=${CB_MUSL_PYTHON_PREFIX:-$CACHE/musl-python-$VERSION}
PY=$PREFIX/bin/python3.11

if [ -x "$PY" ] && "$PY" -c 'import json, subprocess, venv, zipfile' 2>/dev/null; then
  echo "$PY"; exit 0
fi
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
command -v musl-gcc >/dev/null ||
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    musl-tools linux-libc-dev >&2

# shellcheck source=tests/support/debian_orig.sh
. "$(dirname "$0")/debian_orig.sh"
debian_orig "$CACHE" "$POOL" "$TARBALL" "$SHA256"

work=$(mktemp -d "${TMPDIR:-/tmp}/cb-musl-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xzf "$src" -C "$work" --strip-components=1
kinc=$work/kernel-headers
mkdir -p "$kinc"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ln -s /usr/include/linux "$kinc/linux"
ln -s /usr/include/asm-generic "$kinc/asm-generic"
ln -s "/usr/include/$multiarch/asm" "$kinc/asm"
# musl-gcc wraps the system's gcc, whose --print-multiarch names glibc's triplet; CPython's
# configure refuses a multiarch that is not the compiler's triplet (x86_64-linux-musl).
cat >"$work/musl-cc" <<'EOF_CC'
#!/bin/sh
case $1 in -print-multiarch|--print-multiarch) exit 0 ;; esac
exec musl-gcc "$@"
EOF_CC
chmod +x "$work/musl-cc"
# PKG_CONFIG=false: pkg-config would offer the system's (glibc) zlib, libffi, lzma to the build.
# CPython 3.11's setup.py adds the system's multiarch include directory (glibc's headers), which
# it asks dpkg-architecture for when the compiler does not say: here nobody says.
mkdir -p "$work/no-multiarch"
printf '#!/bin/sh\nexit 1\n' >"$work/no-multiarch/dpkg-architecture"
chmod +x "$work/no-multiarch/dpkg-architecture"
export PATH=$work/no-multiarch:$PATH
cd "$work"
{
  CC=$work/musl-cc CFLAGS="-O2 -idirafter $kinc" PKG_CONFIG=false ./configure --prefix="$PREFIX" --without-ensurepip \
    --disable-test-modules
  nice -n 10 make -j"${JOBS:-2}"
  make altinstall
} >"$CACHE/musl-python-build.log" 2>&1 ||
  { tail -30 "$CACHE/musl-python-build.log" >&2; exit 1; }
"$PY" -c 'import json, subprocess, venv, zipfile' >&2
echo "$PY"
