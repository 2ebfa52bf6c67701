#!/usr/bin/env bash
# cibuildwheel's before-all: the build tools of the wheel images, then the pinned static build
# (librdkafka-build/static), which every wheel of the run links. The source tarballs must already
# be in librdkafka-build/downloads/ (the wheels workflow fetches and verifies them first).
set -euo pipefail
if command -v dnf >/dev/null; then          # manylinux_2_28 (AlmaLinux 8)
    dnf install -y -q perl perl-IPC-Cmd perl-Time-Piece make gcc pkgconf-pkg-config python3 patch
elif command -v apk >/dev/null; then        # musllinux (Alpine)
    apk add --no-cache bash perl make gcc musl-dev linux-headers pkgconf python3 xz patch
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/build.sh"
