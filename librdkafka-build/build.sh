#!/usr/bin/env bash
# Build the librdkafka pinned in VERSION into ./prefix (headers, librdkafka.so/.a, pkg-config files).
#
#   ./build.sh            build, or print one line and exit if prefix/ already holds the pinned build
#   ./build.sh --force    rebuild from scratch
#
# Source: the npm package NPM_PACKAGE (cached in work/, checked against NPM_TARBALL_SHA256 and
# NPM_INTEGRITY), or an upstream librdkafka tarball given as RDKAFKA_SOURCE_TARBALL=<path>.
# The configured source tree stays in work/librdkafka (build-perf.sh compiles against it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/VERSION
source "$HERE/VERSION"
PREFIX=$HERE/prefix
WORK=$HERE/work
TREE=$WORK/librdkafka
STAMP=$PREFIX/.pinned-build
REQUIRED_FEATURES=(gzip snappy ssl sasl_plain sasl_scram sasl_gssapi sasl_oauthbearer zstd lz4)
BUILD_DEPS=(build-essential pkg-config python3 openssl libssl-dev libsasl2-dev libzstd-dev
            liblz4-dev zlib1g-dev libcurl4-openssl-dev)

die() { echo "build.sh: ERROR: $*" >&2; exit 1; }
T_START=$EPOCHREALTIME
T_PHASE=$T_START
phase_done() {  # print the time since the previous phase
    awk -v a="$T_PHASE" -v b="$EPOCHREALTIME" -v n="$1" 'BEGIN { printf "== %-10s %6.1f s\n", n, b - a }'
    T_PHASE=$EPOCHREALTIME
}

# Compile and run a probe against prefix/ (via pkg-config); prints "<version> <hex> <features>".
probe() {
    mkdir -p "$WORK"
    cat >"$WORK/probe.c" <<'EOF'
#include <stdio.h>
#include <librdkafka/rdkafka.h>
int main(void) {
    char buf[512];
    size_t sz = sizeof(buf);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_get(conf, "builtin.features", buf, &sz) != RD_KAFKA_CONF_OK)
        return 1;
    printf("%s 0x%08x %s\n", rd_kafka_version_str(), rd_kafka_version(), buf);
    rd_kafka_conf_destroy(conf);
    return 0;
}
EOF
    # shellcheck disable=SC2046
    gcc -o "$WORK/probe" "$WORK/probe.c" \
        $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs rdkafka) \
        -Wl,-rpath,"$PREFIX/lib" && "$WORK/probe"
}

# Succeeds if the probe reports the pinned version and every required feature.
check_features() {
    local out version hex features f missing=()
    out=$(probe) || return 1
    read -r version hex features <<<"$out"
    [[ $hex == "$LIBRDKAFKA_VERSION_INT" ]] || { echo "version $version ($hex), want $LIBRDKAFKA_VERSION ($LIBRDKAFKA_VERSION_INT)" >&2; return 1; }
    for f in "${REQUIRED_FEATURES[@]}"; do
        [[ ",$features," == *",$f,"* ]] || missing+=("$f")
    done
    echo "librdkafka $version ($hex) builtin.features: $features"
    [[ ${#missing[@]} -eq 0 ]] || { echo "MISSING builtin.features: ${missing[*]}" >&2; return 1; }
}

# ---- fast path: already built --------------------------------------------------------------
if [[ ${1:-} != --force && -f $STAMP ]] && cmp -s "$STAMP" "$HERE/VERSION" &&
    grep -q "^#define RD_KAFKA_VERSION  *$LIBRDKAFKA_VERSION_INT\b" "$PREFIX/include/librdkafka/rdkafka.h" 2>/dev/null &&
    out=$(check_features 2>/dev/null); then
    echo "librdkafka $LIBRDKAFKA_VERSION already built in prefix/ (${out#*builtin.features: }); --force rebuilds"
    exit 0
fi

# ---- build dependencies ----------------------------------------------------------------------
missing=()
command -v dpkg-query >/dev/null || BUILD_DEPS=()   # not Debian: the caller installed the deps
for p in "${BUILD_DEPS[@]}"; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "installing: ${missing[*]}"
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "not root and no sudo; install these packages first: ${missing[*]}"
        SUDO=(sudo)
    fi
    mkdir -p "$WORK"
    { "${SUDO[@]}" apt-get update &&
      "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    } >"$WORK/apt.log" 2>&1 || { tail -20 "$WORK/apt.log"; die "apt-get failed (work/apt.log)"; }
fi
phase_done deps

# ---- source ---------------------------------------------------------------------------------
mkdir -p "$WORK"
rm -rf "$TREE" && mkdir -p "$TREE"
if [[ -n ${RDKAFKA_SOURCE_TARBALL:-} ]]; then
    [[ -f $RDKAFKA_SOURCE_TARBALL ]] || die "RDKAFKA_SOURCE_TARBALL=$RDKAFKA_SOURCE_TARBALL: no such file"
    echo "source: $RDKAFKA_SOURCE_TARBALL"
    tar -xf "$RDKAFKA_SOURCE_TARBALL" -C "$TREE" --strip-components=1
else
    tgz=$WORK/$NPM_TARBALL
    if [[ ! -f $tgz ]]; then
        command -v npm >/dev/null || die "npm not found (or set RDKAFKA_SOURCE_TARBALL=<librdkafka tarball>)"
        (cd "$WORK" && npm pack --silent "$NPM_PACKAGE" >/dev/null)
        [[ -f $tgz ]] || die "npm pack $NPM_PACKAGE did not produce $NPM_TARBALL"
    fi
    sha256=$(sha256sum "$tgz" | cut -d' ' -f1)
    integrity=sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
    [[ $sha256 == "$NPM_TARBALL_SHA256" ]] ||
        die "sha256 of work/$NPM_TARBALL is $sha256, expected $NPM_TARBALL_SHA256 (delete it to refetch)"
    [[ $integrity == "$NPM_INTEGRITY" ]] ||
        die "integrity of work/$NPM_TARBALL is $integrity, expected $NPM_INTEGRITY (delete it to refetch)"
    echo "source: $NPM_PACKAGE ($NPM_TARBALL, sha256 and sha512 integrity OK)"
    strip=$(($(tr -cd / <<<"$SOURCE_SUBDIR" | wc -c) + 1))
    tar -xzf "$tgz" -C "$TREE" --strip-components="$strip" "$SOURCE_SUBDIR"
fi
grep -q "^#define RD_KAFKA_VERSION  *$LIBRDKAFKA_VERSION_INT\b" "$TREE/src/rdkafka.h" ||
    die "src/rdkafka.h: $(grep '^#define RD_KAFKA_VERSION ' "$TREE/src/rdkafka.h" || echo 'no RD_KAFKA_VERSION'), expected $LIBRDKAFKA_VERSION_INT"
phase_done fetch

# ---- configure, build, install (the C library only; src-cpp is not needed) ---------------------
cd "$TREE"
./configure --prefix="$PREFIX" >"$WORK/configure.log" 2>&1 || { tail -40 "$WORK/configure.log"; die "configure failed (work/configure.log)"; }
grep -E '^ *BUILT_WITH' "$WORK/configure.log" || true
phase_done configure

make -C src -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -40 "$WORK/make.log"; die "make failed (work/make.log)"; }
phase_done make

rm -rf "$PREFIX"
make -C src install >"$WORK/install.log" 2>&1 || { tail -20 "$WORK/install.log"; die "make install failed (work/install.log)"; }
phase_done install

# ---- verify -------------------------------------------------------------------------------
check_features || die "the built librdkafka in prefix/ lacks required features (see above); not marking it as built"
cp "$HERE/VERSION" "$STAMP"
phase_done check
awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "== total      %6.1f s\n", b - a }'
