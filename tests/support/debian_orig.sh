# shellcheck shell=bash
# Sourced by the scripts that build from a Debian source package's upstream tarball
# (musl_python.sh, freethreaded_python.sh).
#
# debian_orig CACHE POOL TARBALL SHA256: downloads POOL/TARBALL once into CACHE from the Debian
# mirrors apt is configured with (not the security mirror), checks it against SHA256 every time,
# and sets $src to its path. Exits on a failed download or checksum.
debian_orig() {
  local cache=$1 pool=$2 tarball=$3 sha256=$4 uri
  mkdir -p "$cache"
  src=$cache/$tarball
  if [ ! -f "$src" ]; then
    # shellcheck disable=SC2016  # $(REPO_URI) is apt's placeholder
    for uri in $(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -v security | sort -u); do
      /usr/lib/apt/apt-helper download-file "$uri$pool/$tarball" "$src.part" "SHA256:$sha256" \
        >/dev/null 2>&1 && mv "$src.part" "$src" && break
      rm -f "$src.part"
    done
    [ -f "$src" ] || { echo "could not fetch $pool/$tarball from apt's sources" >&2; exit 1; }
  fi
  echo "$sha256  $src" | sha256sum -c --quiet - >&2
}
