#!/usr/bin/env bash
# A sanitizer build, apart from the normal one: librdkafka's own sources from the pinned,
# configured tree recompiled with -fsanitize=KIND (its dependency archives - OpenSSL, curl,
# zstd, zlib - are the pinned build's, uninstrumented), then the extension compiled with the same
# flags against it in a copy of the checkout, so the normal build is not touched.
#
#   build-sanitized.sh KIND OUT   KIND: address (make asan) or thread (make tsan, with PY a
#                          ThreadSanitizer build of free-threaded CPython). OUT/prefix: headers +
#                          the instrumented librdkafka.a (+ the dependency archives); OUT/tree:
#                          the checkout copy, its confluent_binding/_core*.so instrumented. Run
#                          the tests in OUT/tree (with libasan preloaded for address).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
KIND=${1:?usage: build-sanitized.sh address|thread OUT}
case $KIND in address|thread) ;; *) die "unknown sanitizer: $KIND (address or thread)" ;; esac
OUT=$(mkdir -p "${2:?usage: build-sanitized.sh address|thread OUT}" && cd "$2" && pwd)
CHECKOUT=$(cd "$HERE/.." && pwd)
PY=${PY:-$CHECKOUT/.venv/bin/python}
SAN="-O1 -g -fno-omit-frame-pointer -fsanitize=$KIND"
{ [[ -f $PREFIX/.pinned-build ]] && cmp -s "$PREFIX/.pinned-build" "$HERE/VERSION"; } ||
    die "no pinned librdkafka build in librdkafka-build/static (make librdkafka)"

# ---- librdkafka, instrumented (once per pin and sanitizer) ----------------------------------------------------
AP=$OUT/prefix
if ! cmp -s "$AP/.pinned-build" "$HERE/VERSION" 2>/dev/null; then
    rm -rf "$OUT/librdkafka" "$AP"
    mkdir -p "$OUT/librdkafka" "$AP/lib"
    (cd "$TREE" && tar --exclude='*.o' --exclude='*.d' --exclude='*.a' --exclude='*.so*' -cf - .) |
        tar -xf - -C "$OUT/librdkafka"
    echo "CFLAGS+= $SAN" >>"$OUT/librdkafka/Makefile.config"
    if [[ $KIND == thread ]]; then
        # librdkafka's own thread layer over pthreads rather than C11 threads: glibc's
        # thrd_create() starts a thread ThreadSanitizer does not see (it then crashes in it)
        sed -i '/^#define WITH_C11THREADS /d' "$OUT/librdkafka/config.h"
        sed -i '/^WITH_C11THREADS=/d' "$OUT/librdkafka/Makefile.config"
    fi
    echo "building librdkafka with -fsanitize=$KIND (log: $OUT/librdkafka.log)"
    make -C "$OUT/librdkafka/src" -j"$JOBS" librdkafka.a >"$OUT/librdkafka.log" 2>&1 ||
        { tail -30 "$OUT/librdkafka.log"; die "librdkafka (-fsanitize=$KIND) failed to build"; }
    cp -a "$PREFIX/include" "$AP/include"
    cp "$OUT/librdkafka/src/librdkafka.a" "$AP/lib/librdkafka.a"
    for a in libcurl.a libssl.a libcrypto.a libzstd.a libz.a; do
        [[ -f $PREFIX/lib/$a ]] && ln -sf "$PREFIX/lib/$a" "$AP/lib/$a"
    done
    cp "$HERE/VERSION" "$AP/.pinned-build"
fi

# ---- the extension, instrumented, in a copy of the checkout -------------------------------------
T=$OUT/tree
mkdir -p "$T/librdkafka-build/build"
for d in confluent_binding src tests; do
    rm -rf "${T:?}/$d" && cp -a "$CHECKOUT/$d" "$T/$d"
done
find "$T" \( -name '*.so' -o -name '__pycache__' \) -prune -exec rm -rf {} +
cp "$CHECKOUT/setup.py" "$CHECKOUT/pyproject.toml" "$CHECKOUT/README.md" "$T/"
cp "$HERE/VERSION" "$T/librdkafka-build/VERSION"
# setup.py finds "the pinned build" (with librdkafka's internal headers) in these places
ln -sfn "$AP" "$T/librdkafka-build/static"
ln -sfn "$OUT/librdkafka" "$T/librdkafka-build/build/librdkafka"
echo "building the extension with -fsanitize=$KIND (log: $OUT/ext.log)"
(cd "$T" && CFLAGS="$SAN" LDFLAGS="-fsanitize=$KIND" \
    "$PY" setup.py build_ext --inplace --build-temp "$OUT/ext-tmp" >"$OUT/ext.log" 2>&1) ||
    { tail -30 "$OUT/ext.log"; die "the extension (-fsanitize=$KIND) failed to build"; }
grep -o 'confluent_binding: librdkafka from.*' "$OUT/ext.log"
ls "$T"/confluent_binding/_core*.so
