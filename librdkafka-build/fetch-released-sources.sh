#!/usr/bin/env bash
# Puts into downloads/ each pinned source tarball (VERSION) that is missing there and attached to
# one of the GitHub releases of REPO (newest first), the copies the release workflow attaches; with
# the checksum VERSION pins, or not at all. Tarballs found nowhere stay missing (build.sh --fetch
# gets them from npm and Debian's archive). Needs the gh command line tool (GH_TOKEN).
#
#   ./fetch-released-sources.sh OWNER/REPO
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPO=${1:?usage: fetch-released-sources.sh OWNER/REPO}
command -v gh >/dev/null || die "the gh command line tool is needed"
mkdir -p "$DOWNLOADS"

TAGS=$(gh release list --repo "$REPO" --limit 50 --json tagName --jq '.[].tagName' 2>/dev/null || true)
[[ -n $TAGS ]] || { echo "no releases of $REPO to take sources from"; exit 0; }

# want TARBALL SHA256: fetched from the newest release that has it with this checksum.
want() {
    local tarball=$1 sha=$2 tag
    [[ -f $DOWNLOADS/$tarball ]] && return 0
    for tag in $TAGS; do
        rm -rf "$DOWNLOADS/.release"
        gh release download "$tag" --repo "$REPO" --pattern "$tarball" --dir "$DOWNLOADS/.release" \
            >/dev/null 2>&1 || continue
        if [[ $(digest sha256 "$DOWNLOADS/.release/$tarball") == "$sha" ]]; then
            mv "$DOWNLOADS/.release/$tarball" "$DOWNLOADS/$tarball"
            echo "$tarball: from release $tag (checksum OK)"
            break
        fi
        echo "$tarball in release $tag has another checksum; not used" >&2
    done
    rm -rf "$DOWNLOADS/.release"
    [[ -f $DOWNLOADS/$tarball ]] || echo "$tarball: in no release"
}

want "$NPM_TARBALL" "$NPM_TARBALL_SHA256"
for d in ZLIB ZSTD OPENSSL CURL; do
    tarball=${d}_TARBALL
    sha=${d}_SHA256
    want "${!tarball}" "${!sha}"
done
