#!/usr/bin/env bash
# Build the librdkafka pinned in VERSION, statically, with the libraries it needs built from their
# pinned sources too (zlib, zstd, OpenSSL, curl), into ./static: headers, librdkafka.a and one .a
# per dependency, nothing dynamic beyond libc. The extension links these archives, so a wheel
# needs nothing from the system it is installed on.
#
#   ./build.sh            build, or print one line and exit if static/ already holds this pin
#   ./build.sh --force    rebuild from scratch
#   ./build.sh --fetch    only download and verify the source tarballs into downloads/
#   CB_GSSAPI=1 ./build.sh [--force]   the Kerberos variant into ./static-gssapi (see SASL below)
#   CB_TARGET=x86_64-linux-gnu.2.28 ./build.sh   with zig for that target (arch, oldest glibc) into
#                         ./static-<target>: the libraries of manylinux_2_28 wheels, without Docker
#
# Sources (all checked against VERSION): librdkafka from the npm package NPM_PACKAGE; the
# dependencies are the upstream tarballs kept by Debian's archive, fetched with apt's downloader.
# Without apt (other systems, build containers) place the tarballs in downloads/ first.
# SASL: librdkafka's builtin PLAIN, SCRAM and OAUTHBEARER. GSSAPI (Kerberos) needs Cyrus SASL, which
# loads its mechanism plugins and the Kerberos configuration from the system at run time, so it
# cannot be bundled and the default build has none. CB_GSSAPI=1 builds the variant with it into
# static-gssapi/ (tree in build-gssapi/): libsasl2 linked dynamically (build: libsasl2-dev, installed
# here on Debian; run: libsasl2-2 and libsasl2-modules-gssapi-mit), all else static as above. When
# static/ already holds this pin, its zlib, zstd, OpenSSL and curl are copied from there and only
# librdkafka is compiled (a few minutes); otherwise they are built too. static/ is only read.
# The configured librdkafka tree stays in build/librdkafka (build-gssapi/librdkafka): setup.py and
# build-perf.sh use its internal headers.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
STAMP=$PREFIX/.pinned-build
REQUIRED_FEATURES=(gzip snappy ssl sasl_plain sasl_scram sasl_oauthbearer zstd lz4 http oidc)
# Libraries the built librdkafka must not need at run time (all are linked in statically).
BUNDLED_SONAMES='libssl|libcrypto|libcurl|libz\.|libzstd|liblz4|libsasl2'
if [[ $GSSAPI == 1 ]]; then
    REQUIRED_FEATURES+=(sasl_gssapi)
    BUNDLED_SONAMES='libssl|libcrypto|libcurl|libz\.|libzstd|liblz4'
fi
NAME=static$VARIANT

# Compile and run a probe against static/ (via pkg-config); prints "<version> <hex> <features>".
PROBE_DIR=$(mktemp -d)
trap 'rm -rf "$PROBE_DIR"' EXIT
probe() {
    cat >"$PROBE_DIR/probe.c" <<'EOF'
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
    ${CC:-cc} -o "$PROBE_DIR/probe" "$PROBE_DIR/probe.c" \
        $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs --static rdkafka-static) ||
        return 1
    if [[ $CROSS == 1 ]]; then  # linked for another architecture: the features are checked where it runs
        local IFS=,
        echo "$LIBRDKAFKA_VERSION $LIBRDKAFKA_VERSION_INT ${REQUIRED_FEATURES[*]}"
        return 0
    fi
    "$PROBE_DIR/probe"
}

# Succeeds if the probe reports the pinned version and every required feature, and (where ldd
# exists) links none of the bundled libraries dynamically.
check_features() {
    local out version hex features f missing=()
    out=$(probe) || return 1
    read -r version hex features <<<"$out"
    [[ $hex == "$LIBRDKAFKA_VERSION_INT" ]] || { echo "version $version ($hex), want $LIBRDKAFKA_VERSION ($LIBRDKAFKA_VERSION_INT)" >&2; return 1; }
    for f in "${REQUIRED_FEATURES[@]}"; do
        [[ ",$features," == *",$f,"* ]] || missing+=("$f")
    done
    [[ $CROSS == 1 ]] && echo "(cross build for $CB_TARGET: the probe links; it was not run here)"
    echo "librdkafka $version ($hex) builtin.features: $features"
    [[ ${#missing[@]} -eq 0 ]] || { echo "MISSING builtin.features: ${missing[*]}" >&2; return 1; }
    if [[ $CROSS == 0 ]] && command -v ldd >/dev/null && ldd "$PROBE_DIR/probe" 2>/dev/null | grep -E "$BUNDLED_SONAMES"; then
        echo "the probe links the libraries above dynamically; they should be static" >&2
        return 1
    fi
    # (ldd's whole output first: with pipefail, grep -q closing the pipe early can fail ldd)
    if [[ $GSSAPI == 1 ]] && command -v ldd >/dev/null && [[ $(ldd "$PROBE_DIR/probe") != *libsasl2* ]]; then
        echo "the probe does not link the system's libsasl2 dynamically" >&2
        return 1
    fi
}

if [[ ${1:-} == --fetch ]]; then
    fetch_all
    echo "all source tarballs present and verified in downloads/"
    exit 0
fi

# One build at a time per checkout (parallel make targets, concurrent pip builds).
mkdir -p "$WORK"
if command -v flock >/dev/null; then
    exec 9>"$WORK/.lock"
    flock 9
fi
use_zig "$WORK/zig-bin"

# ---- fast path: already built --------------------------------------------------------------
if [[ ${1:-} != --force && -f $STAMP ]] && cmp -s "$STAMP" "$HERE/VERSION" &&
    out=$(check_features 2>/dev/null); then
    echo "librdkafka $LIBRDKAFKA_VERSION already built in $NAME/ (${out#*builtin.features: }); --force rebuilds"
    exit 0
fi

# ---- build tools (Debian; elsewhere the caller installs a C toolchain, make, perl, pkg-config) --
BUILD_DEPS=(build-essential pkg-config perl python3 xz-utils patch)
[[ $GSSAPI == 1 ]] && BUILD_DEPS+=(libsasl2-dev)
if [[ ! -f $DOWNLOADS/$NPM_TARBALL ]] && ! command -v npm >/dev/null; then BUILD_DEPS+=(npm); fi
missing=()
command -v dpkg-query >/dev/null || BUILD_DEPS=()
# (${a[@]+"${a[@]}"}: an empty array under set -u, which bash 3.2 (macOS) calls unbound)
for p in ${BUILD_DEPS[@]+"${BUILD_DEPS[@]}"}; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "installing: ${missing[*]}"
    { as_root apt-get update &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    } >"$WORK/apt.log" 2>&1 || { tail -20 "$WORK/apt.log"; die "apt-get failed (build/apt.log)"; }
fi
phase_done tools

# The GSSAPI variant takes the dependencies from a complete default build of this pin.
REUSE_DEPS=0
if [[ $GSSAPI == 1 && -f $DEFAULT_PREFIX/.pinned-build ]] &&
    cmp -s "$DEFAULT_PREFIX/.pinned-build" "$HERE/VERSION"; then
    REUSE_DEPS=1
fi

# ---- sources --------------------------------------------------------------------------------
if [[ $REUSE_DEPS == 1 ]]; then
    fetch_librdkafka
    echo "sources: $NPM_PACKAGE (checksum OK); zlib, zstd, OpenSSL, curl from static/"
else
    fetch_all
    echo "sources: $NPM_PACKAGE, zlib $ZLIB_VERSION, zstd $ZSTD_VERSION, OpenSSL $OPENSSL_VERSION, curl $CURL_VERSION (checksums OK)"
fi
unpack() {  # unpack NAME DIR: the tarball of dependency NAME into build/DIR
    local tarball=${1}_TARBALL
    rm -rf "${WORK:?}/$2" && mkdir -p "$WORK/$2"
    tar -xf "$DOWNLOADS/${!tarball}" -C "$WORK/$2" --strip-components=1
}
# The bundled libraries' licences ship with the package (licenses/); they must be this pin's.
check_license() {  # check_license NAME DIR DEST
    local lic=${1}_LICENSE
    cmp -s "$WORK/$2/${!lic}" "$HERE/../licenses/$3" ||
        die "licenses/$3 differs from $2's ${!lic}: copy the pinned version's file there"
}
phase_done fetch

# A dependency already in $PREFIX, built for this pin, target and every dependency before it
# (its stamp .dep-NAME), is kept: an interrupted build resumes at the first one missing; --force
# builds them all again. librdkafka itself is always rebuilt here.
[[ ${1:-} == --force ]] && rm -rf "$PREFIX"
rm -rf "$PREFIX/include/librdkafka" "$PREFIX"/lib/librdkafka* "$PREFIX"/lib/pkgconfig/rdkafka* "$STAMP"
mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/include"
DEP_CHAIN="target=${CB_TARGET:-native}"
dep_current() {  # dep_current NAME: the stamp of NAME matches (extends DEP_CHAIN either way)
    local version=${1}_VERSION sha=${1}_SHA256
    DEP_CHAIN="$DEP_CHAIN $1=${!version}:${!sha}"
    [[ -f $PREFIX/.dep-$1 && $(cat "$PREFIX/.dep-$1") == "$DEP_CHAIN" ]] &&
        echo "$1: kept from an earlier build" | tr '[:upper:]' '[:lower:]'
}
dep_done() { echo "$DEP_CHAIN" >"$PREFIX/.dep-$1"; }
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
export CFLAGS="${CFLAGS:-} -O2 -fPIC"
export CPPFLAGS="-I$PREFIX/include"
export LDFLAGS="-L$PREFIX/lib"
LIBS_SYS=""
[[ $OS == Linux ]] && LIBS_SYS="-ldl -lpthread"
log() { echo "$WORK/$1.log"; }
run_logged() {  # run_logged NAME cmd...: output to build/NAME.log, its tail on failure
    "${@:2}" >>"$(log "$1")" 2>&1 || { tail -40 "$(log "$1")"; die "$1 failed: ${*:2} (build/$1.log)"; }
}

build_dependencies() {
# ---- zlib ---------------------------------------------------------------------------------
if ! dep_current ZLIB; then
unpack ZLIB zlib
check_license ZLIB zlib zlib-LICENSE
(cd "$WORK/zlib" && : >"$(log zlib)" &&
 run_logged zlib ./configure --static --prefix="$PREFIX" &&
 run_logged zlib make -j"$JOBS" libz.a && run_logged zlib make install)
phase_done zlib
dep_done ZLIB
fi

# ---- zstd ---------------------------------------------------------------------------------
if ! dep_current ZSTD; then
unpack ZSTD zstd
check_license ZSTD zstd zstd-LICENSE
(cd "$WORK/zstd/lib" && : >"$(log zstd)" &&
 run_logged zstd make -j"$JOBS" libzstd.a &&
 run_logged zstd make install-static install-includes install-pc PREFIX="$PREFIX" LIBDIR="$PREFIX/lib")
phase_done zstd
dep_done ZSTD
fi

# ---- OpenSSL (libraries only; the system's CA locations, which librdkafka probes) ------------
if ! dep_current OPENSSL; then
unpack OPENSSL openssl
check_license OPENSSL openssl openssl-LICENSE.txt
# config guesses this machine's target; with zig the target is named (linux-x86_64, linux-aarch64).
OPENSSL_CONFIG=(./config)
[[ -n $CB_TARGET ]] && OPENSSL_CONFIG=(./Configure "linux-$TARGET_ARCH")
(cd "$WORK/openssl" && : >"$(log openssl)" &&
 run_logged openssl "${OPENSSL_CONFIG[@]}" --prefix="$PREFIX" --libdir=lib --openssldir=/usr/lib/ssl \
     no-shared no-module no-tests no-docs no-apps no-zlib &&
 run_logged openssl make -j"$JOBS" build_libs && run_logged openssl make install_dev)
phase_done openssl
dep_done OPENSSL
fi

# ---- curl (HTTPS for OAUTHBEARER OIDC; everything else off) ---------------------------------
CURL_HOST=()
[[ $CROSS == 1 ]] && CURL_HOST=(--host="$TARGET_ARCH-linux-gnu")
if ! dep_current CURL; then
unpack CURL curl
check_license CURL curl curl-COPYING
(cd "$WORK/curl" && : >"$(log curl)" &&
 run_logged curl env LIBS="$LIBS_SYS" ./configure ${CURL_HOST[@]+"${CURL_HOST[@]}"} --prefix="$PREFIX" --enable-static --disable-shared \
     --with-openssl="$PREFIX" --with-zlib="$PREFIX" --disable-ntlm --disable-dict --disable-ftp \
     --disable-file --disable-gopher --disable-imap --disable-mqtt --disable-pop3 --disable-rtsp \
     --disable-smb --disable-smtp --disable-telnet --disable-tftp --disable-ldap --disable-ldaps \
     --disable-manual --disable-docs --disable-libcurl-option --without-librtmp --without-libidn2 \
     --without-nghttp2 --without-nghttp3 --without-ngtcp2 --without-brotli --without-zstd \
     --without-libpsl --without-libssh2 --without-libgsasl &&
 run_logged curl make -j"$JOBS" -C lib && run_logged curl make -C lib install &&
 run_logged curl make -C include install && run_logged curl make install-pkgconfigDATA)
phase_done curl
dep_done CURL
fi
}

# The dependencies' headers, archives and pkg-config files of the default build (not its
# librdkafka), with the .pc files pointing here.
copy_dependencies() {
    local f
    (cd "$DEFAULT_PREFIX/include" && for f in *; do
        [[ $f == librdkafka ]] || cp -R "$f" "$PREFIX/include/"
    done)
    for f in "$DEFAULT_PREFIX"/lib/*.a; do
        [[ ${f##*/} == librdkafka* ]] || cp "$f" "$PREFIX/lib/"
    done
    for f in "$DEFAULT_PREFIX"/lib/pkgconfig/*.pc; do
        [[ ${f##*/} == rdkafka* ]] ||
            sed "s|$DEFAULT_PREFIX|$PREFIX|g" "$f" >"$PREFIX/lib/pkgconfig/${f##*/}"
    done
}

if [[ $REUSE_DEPS == 1 ]]; then
    copy_dependencies
    phase_done deps
else
    build_dependencies
fi

# ---- librdkafka (the C library only; src-cpp is not needed) ----------------------------------
unpack_librdkafka "$TREE"
grep -Eq "^#define RD_KAFKA_VERSION +$LIBRDKAFKA_VERSION_INT([^0-9a-fA-Fx]|$)" "$TREE/src/rdkafka.h" ||
    die "src/rdkafka.h: $(grep '^#define RD_KAFKA_VERSION ' "$TREE/src/rdkafka.h" || echo 'no RD_KAFKA_VERSION'), expected $LIBRDKAFKA_VERSION_INT"
cmp -s "$TREE/LICENSES.txt" "$HERE/../licenses/librdkafka-LICENSES.txt" ||
    die "licenses/librdkafka-LICENSES.txt differs from the pinned librdkafka's LICENSES.txt"
cd "$TREE"
: >"$(log librdkafka)"
GSSAPI_OPTION=--disable-gssapi
[[ $GSSAPI == 1 ]] && GSSAPI_OPTION=--enable-gssapi
# mklove links a dependency statically when STATIC_LIB_<name> names its archive.
run_logged librdkafka env LIBS="$LIBS_SYS" \
    STATIC_LIB_zlib="$PREFIX/lib/libz.a" STATIC_LIB_libzstd="$PREFIX/lib/libzstd.a" \
    STATIC_LIB_libcrypto="$PREFIX/lib/libcrypto.a" STATIC_LIB_libssl="$PREFIX/lib/libssl.a" \
    STATIC_LIB_libcurl="$PREFIX/lib/libcurl.a" \
    ./configure --prefix="$PREFIX" --enable-static "$GSSAPI_OPTION" --disable-lz4-ext \
    --enable-ssl --enable-zstd --enable-zlib --enable-curl --pkg-config-path="$PREFIX/lib/pkgconfig"
grep -E '^ *BUILT_WITH' "$(log librdkafka)" || true
run_logged librdkafka make -C src -j"$JOBS"
run_logged librdkafka make -C src install
phase_done librdkafka

# ---- verify -------------------------------------------------------------------------------
check_features || die "the built librdkafka in $NAME/ is not the pinned, self-contained one (see above); not marking it as built"
cp "$HERE/VERSION" "$STAMP"
phase_done check
awk -v a="$T_START" -v b="$(now)" 'BEGIN { printf "== total      %6.1f s\n", b - a }'
