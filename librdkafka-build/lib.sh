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
PREFIX=$(real_dir "$HERE/static$VARIANT")  # headers, librdkafka.a and the static libraries it needs
WORK=$(real_dir "$HERE/build$VARIANT")     # unpacked, configured source trees
DEFAULT_PREFIX=$(real_dir "$HERE/static")  # the default build (the GSSAPI one reuses its libraries)
DOWNLOADS=$(real_dir "$HERE/downloads")  # verified source tarballs
TREE=$WORK/librdkafka          # the configured librdkafka tree (its internal headers)
JOBS=${JOBS:-$( (nproc || sysctl -n hw.ncpu) 2>/dev/null || echo 2)}
OS=$(uname -s)

T_START=$EPOCHREALTIME
T_PHASE=$T_START
phase_done() {  # print the time since the previous phase
    awk -v a="$T_PHASE" -v b="$EPOCHREALTIME" -v n="$1" 'BEGIN { printf "== %-10s %6.1f s\n", n, b - a }'
    T_PHASE=$EPOCHREALTIME
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
