#!/usr/bin/env bash
# Build librdkafka's C benchmark tool into static/bin/rdkafka_performance (the C ceiling for our
# benchmarks), statically linked against the pinned librdkafka that build.sh puts in static/.
#
# examples/ is not in the pinned npm tarball, so rdkafka_performance.c comes from Debian sid's
# librdkafka source package (whatever version sid has; it compiles against the pinned src/).
# apt runs with a private, deb-src-only configuration under work/apt; the system's apt sources are
# not changed. The mirror is the first .../debian URI of the system's apt sources, or DEBIAN_MIRROR.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PERF=$WORK/perf
BIN=$PREFIX/bin/rdkafka_performance
WANT="librdkafka version $LIBRDKAFKA_VERSION ($LIBRDKAFKA_VERSION_INT)"

perf_version() { "$1" -h 2>&1 | grep -o 'librdkafka version .*' || true; }

"$HERE/build.sh"
# rdkafka_performance includes private headers (rd.h -> ../config.h) of the configured tree.
[[ -f $TREE/config.h ]] || "$HERE/build.sh" --force

if [[ -x $BIN && $(perf_version "$BIN") == "$WANT" ]]; then
    echo "rdkafka_performance already built in static/bin ($WANT)"
    exit 0
fi
T_PHASE=$EPOCHREALTIME

# ---- fetch examples/rdkafka_performance.c from Debian's source package ------------------------
debian_mirror() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] && grep -hE '^[[:space:]]*(URIs:|deb(-src)?[[:space:]])' "$f"
    done | grep -oE '(https?|ftp)://[^][:space:]]+' | grep -E '/debian/?$' | sed -n 1p || true
}
src=$PERF/rdkafka_performance.c
if [[ ! -f $src ]]; then
    mirror=${DEBIAN_MIRROR:-$(debian_mirror)}
    [[ -n $mirror ]] || die "no Debian mirror (.../debian) found in the apt sources; set DEBIAN_MIRROR"
    apt_dir=$WORK/apt
    rm -rf "$apt_dir" "$PERF" && mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,parts} "$PERF/dl"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$apt_dir/sid-src.list"
    apt=(apt-get -o Dir::Etc::SourceList="$apt_dir/sid-src.list" -o Dir::Etc::SourceParts="$apt_dir/parts"
         -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User=root)
    { "${apt[@]}" update && (cd "$PERF/dl" && "${apt[@]}" source --download-only librdkafka); } >"$PERF/apt.log" 2>&1 ||
        { tail -20 "$PERF/apt.log"; die "apt-get source librdkafka (sid) failed (build/perf/apt.log)"; }
    orig=$(echo "$PERF"/dl/librdkafka_*.orig.tar.*)
    [[ -f $orig ]] || die "no single librdkafka orig tarball in build/perf/dl"
    echo "source: ${orig##*/} (Debian sid)"
    tar -xf "$orig" -C "$PERF" --wildcards --strip-components=2 '*/examples/rdkafka_performance.c'
    [[ -f $src ]] || die "examples/rdkafka_performance.c not found in ${orig##*/}"
    rm -rf "$apt_dir"
fi
phase_done fetch

# ---- compile against the pinned tree's src/ and the static librdkafka.a ------------------------
# shellcheck disable=SC2046
gcc -O2 -o "$PERF/rdkafka_performance" "$src" -I"$TREE/src" \
    $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --libs --static rdkafka-static)
phase_done compile

# ---- verify: version, then a short produce run against a mock cluster --------------------------
got=$(perf_version "$PERF/rdkafka_performance")
[[ $got == "$WANT" ]] || die "rdkafka_performance reports '$got', expected '$WANT'"
out=$(timeout 120 "$PERF/rdkafka_performance" -P -t bench -s 100 -c 100000 -X test.mock.num.brokers=1 2>&1) ||
    { echo "$out" | tail -20; die "rdkafka_performance mock run failed"; }
rate=$(grep -E '^% [0-9]+ messages produced' <<<"$out" | tail -1)
[[ -n $rate ]] || { echo "$out" | tail -20; die "no rate line in rdkafka_performance output"; }
echo "$got; mock run: $rate"
install -D -m 0755 "$PERF/rdkafka_performance" "$BIN"
phase_done verify
