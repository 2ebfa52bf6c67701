# Shared by the librdkafka-build scripts (sourced, not run).
# shellcheck shell=bash
# shellcheck disable=SC2034  # variables used by the scripts that source this file
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/VERSION
source "$HERE/VERSION"
# A directory may be a symlink to another checkout's (a shared build): work in its real place.
real_dir() { if [[ -d $1 ]]; then (cd -P "$1" && pwd); else echo "$1"; fi; }
die() { echo "${0##*/}: ERROR: $*" >&2; exit 1; }
# CB_GSSAPI=1 selects the Kerberos variant: the same pinned librdkafka, also with SASL GSSAPI
# through Cyrus SASL (libsasl2, linked dynamically from the system), in its own directories
# static-gssapi/ and build-gssapi/. The default build (static/, build/) is never touched by it.
case ${CB_GSSAPI:-0} in
    0) GSSAPI=0; VARIANT="" ;;
    1) GSSAPI=1; VARIANT=-gssapi ;;
    *) die "CB_GSSAPI=${CB_GSSAPI}: set it to 1 (build with GSSAPI) or 0 (the default)" ;;
esac
# CB_TARGET=<arch>-linux-gnu.<glibc> (e.g. x86_64-linux-gnu.2.28, aarch64-linux-gnu.2.28) builds
# with zig as the C compiler for that architecture and oldest glibc (manylinux_2_28 wheels without
# a manylinux image), into its own static-<target>/ and build-<target>/. ZIG names the zig binary;
# by default the one of the ziglang package of $PYTHON.
CB_TARGET=${CB_TARGET:-}
TARGET_ARCH=""
if [[ -n $CB_TARGET ]]; then
    [[ $GSSAPI == 0 ]] || die "CB_TARGET and CB_GSSAPI=1 do not combine"
    [[ $CB_TARGET =~ ^(x86_64|aarch64)-linux-(gnu|musl)(\.[0-9]+\.[0-9]+)?$ ]] ||
        die "CB_TARGET=$CB_TARGET: expected x86_64|aarch64-linux-gnu.<glibc> or -linux-musl"
    TARGET_ARCH=${CB_TARGET%%-*}
    VARIANT=-$CB_TARGET
fi
PREFIX=$(real_dir "$HERE/static$VARIANT")  # headers, librdkafka.a and the static libraries it needs
WORK=$(real_dir "$HERE/build$VARIANT")     # unpacked, configured source trees
DEFAULT_PREFIX=$(real_dir "$HERE/static")  # the default build (the GSSAPI one reuses its libraries)
# verified source tarballs (CB_DOWNLOADS: elsewhere, e.g. for a build inside pip from the sdist)
DOWNLOADS=$(real_dir "${CB_DOWNLOADS:-$HERE/downloads}")
TREE=$WORK/librdkafka          # the configured librdkafka tree (its internal headers)
JOBS=${JOBS:-$( (nproc || sysctl -n hw.ncpu) 2>/dev/null || echo 2)}
OS=$(uname -s)

# EPOCHREALTIME is bash 5's; macOS's bash 3.2 has whole seconds from date only.
now() { echo "${EPOCHREALTIME:-$(date +%s)}"; }
T_START=$(now)
T_PHASE=$T_START
phase_done() {  # print the time since the previous phase
    awk -v a="$T_PHASE" -v b="$(now)" -v n="$1" 'BEGIN { printf "== %-10s %6.1f s\n", n, b - a }'
    T_PHASE=$(now)
}

PYTHON=${PYTHON:-$(command -v python3 || command -v python)}
# digest ALG FILE [b64]: hex (or base64) digest of FILE.
digest() {
    "$PYTHON" -c 'import base64, hashlib, sys
h = hashlib.new(sys.argv[1], open(sys.argv[2], "rb").read())
print(base64.b64encode(h.digest()).decode() if len(sys.argv) > 3 else h.hexdigest())' "$@"
}

# Run a command as root (apt-get); sudo when not root.
as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"
    else
        command -v sudo >/dev/null || die "not root and no sudo; run as root: $*"
        sudo "$@"
    fi
}

# The repository URIs of the system's apt sources (Debian-like systems), one a line.
apt_repo_uris() {
    command -v apt-get >/dev/null || return 0
    # shellcheck disable=SC2016  # $(REPO_URI) is apt's placeholder, not a shell expansion
    apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | sort -u
}

# fetch_dep NAME: make downloads/$NAME_TARBALL exist and match $NAME_SHA256. A missing tarball is
# fetched from the system's Debian mirrors (<uri><pool>/<tarball>, pool/updates/... on security
# mirrors) with apt's own downloader; elsewhere put the verified tarballs into downloads/ first.
fetch_dep() {
    local name=$1 tarball pool sha file uri
    tarball=${name}_TARBALL; tarball=${!tarball}
    pool=${name}_POOL; pool=${!pool}
    sha=${name}_SHA256; sha=${!sha}
    file=$DOWNLOADS/$tarball
    mkdir -p "$DOWNLOADS"
    if [[ ! -f $file ]]; then
        [[ -x /usr/lib/apt/apt-helper ]] ||
            die "downloads/$tarball missing and no apt to fetch it; put it there (sha256 $sha)"
        for uri in $(apt_repo_uris); do
            for path in "$pool" "${pool/#pool\//pool/updates/}"; do
                /usr/lib/apt/apt-helper download-file "$uri$path/$tarball" "$file.part" "SHA256:$sha" \
                    >/dev/null 2>&1 && mv "$file.part" "$file" && break 2
                rm -f "$file.part"
            done
        done
        [[ -f $file ]] || die "could not fetch $pool/$tarball from any apt source ($(apt_repo_uris | tr '\n' ' '))"
    fi
    local got
    got=$(digest sha256 "$file")
    [[ $got == "$sha" ]] || die "sha256 of downloads/$tarball is $got, expected $sha (delete it to refetch)"
}

# fetch_librdkafka: downloads/$NPM_TARBALL, checked against its sha256 and npm integrity.
fetch_librdkafka() {
    local tgz=$DOWNLOADS/$NPM_TARBALL
    mkdir -p "$DOWNLOADS"
    if [[ ! -f $tgz ]]; then
        command -v npm >/dev/null || die "npm not found; put $NPM_TARBALL into downloads/"
        (cd "$DOWNLOADS" && npm pack --silent "$NPM_PACKAGE" >/dev/null)
        [[ -f $tgz ]] || die "npm pack $NPM_PACKAGE did not produce $NPM_TARBALL"
    fi
    local sha256 integrity
    sha256=$(digest sha256 "$tgz")
    integrity=sha512-$(digest sha512 "$tgz" b64)
    [[ $sha256 == "$NPM_TARBALL_SHA256" ]] ||
        die "sha256 of downloads/$NPM_TARBALL is $sha256, expected $NPM_TARBALL_SHA256 (delete it to refetch)"
    [[ $integrity == "$NPM_INTEGRITY" ]] ||
        die "integrity of downloads/$NPM_TARBALL is $integrity, expected $NPM_INTEGRITY (delete it to refetch)"
}

# Every source tarball, fetched and verified.
fetch_all() {
    fetch_librdkafka
    local d
    for d in ZLIB ZSTD OPENSSL CURL; do fetch_dep "$d"; done
}

# unpack_librdkafka DIR: the pinned librdkafka source into DIR (emptied first), with the fixes in
# patches/ applied, after checking them against LIBRDKAFKA_PATCHES_SHA256.
unpack_librdkafka() {
    local dir=$1 strip p got
    got=$(cat "$HERE"/patches/*.patch | "$PYTHON" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')
    [[ $got == "$LIBRDKAFKA_PATCHES_SHA256" ]] ||
        die "patches/*.patch: sha256 $got, VERSION pins $LIBRDKAFKA_PATCHES_SHA256"
    command -v patch >/dev/null || die "the patch tool is needed to apply patches/"
    rm -rf "$dir" && mkdir -p "$dir"
    strip=$(($(tr -cd / <<<"$SOURCE_SUBDIR" | wc -c) + 1))
    tar -xzf "$DOWNLOADS/$NPM_TARBALL" -C "$dir" --strip-components="$strip" "$SOURCE_SUBDIR"
    for p in "$HERE"/patches/*.patch; do
        patch -p1 -d "$dir" --batch --forward --quiet <"$p" || die "${p##*/} does not apply"
    done
}

# use_zig DIR: with CB_TARGET set, export CC, AR and RANLIB as wrappers (written to DIR) of zig for
# that target, and CROSS=1 when the target's architecture is not this machine's (its programs do
# not run here). Without CB_TARGET nothing changes (CROSS=0).
# The zig it was proven with (PyPI's ziglang; not in VERSION, whose every change rebuilds static/).
ZIGLANG_VERSION=0.17.0
CROSS=0
use_zig() {
    [[ -n $CB_TARGET ]] || return 0
    local dir=$1 zig=${ZIG:-} tool
    if [[ -z $zig ]]; then
        zig=$("$PYTHON" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))' 2>/dev/null) ||
            die "CB_TARGET needs zig: pip install ziglang==$ZIGLANG_VERSION into $PYTHON, or set ZIG"
    fi
    [[ -x $zig ]] || die "zig not found at $zig"
    mkdir -p "$dir"
    # -fno-sanitize=undefined: zig cc would otherwise trap on UB checks in unoptimised code.
    # zig's linker has no --exclude-libs (setup.py's way to keep the static archives' symbols,
    # OpenSSL's above all, private to the extension): a version script exporting only Python's
    # module init functions does the same. Its linker also refuses a version script naming a symbol
    # that is not defined (librdkafka's lists test-only ones) unless told, as GNU ld is not.
    printf '{ global: PyInit_*; local: *; };\n' >"$dir/python-extension.map"
    cat >"$dir/cc.new" <<EOF_CC
#!/bin/sh
for a; do
    shift
    case \$a in
        -Wl,--exclude-libs,ALL) set -- "\$@" "-Wl,--version-script,$dir/python-extension.map" ;;
        -shared) set -- "\$@" -shared -Wl,--undefined-version ;;
        *) set -- "\$@" "\$a" ;;
    esac
done
exec "$zig" cc -target $CB_TARGET -fno-sanitize=undefined "\$@"
EOF_CC
    chmod +x "$dir/cc.new" && mv -f "$dir/cc.new" "$dir/cc"
    for tool in ar ranlib; do
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$tool" >"$dir/$tool"
    done
    chmod +x "$dir"/ar "$dir"/ranlib
    export CC=$dir/cc AR=$dir/ar RANLIB=$dir/ranlib
    [[ $TARGET_ARCH == "$(uname -m)" ]] || CROSS=1
    echo "compiler: zig $("$zig" version) for $CB_TARGET$([[ $CROSS == 1 ]] && echo ' (cross)')"
}
