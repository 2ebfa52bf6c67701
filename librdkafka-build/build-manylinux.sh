#!/usr/bin/env bash
# Wheel builds (cibuildwheel before-all, manylinux_2_28 = AlmaLinux 8): install librdkafka's
# build dependencies with dnf, then build the pinned librdkafka like everywhere else. The source
# tarball must already be in work/ (the wheels workflow fetches and verifies it on the host) or be
# given as RDKAFKA_SOURCE_TARBALL.
set -euo pipefail
dnf install -y -q openssl openssl-devel cyrus-sasl-devel libzstd-devel lz4-devel zlib-devel \
    libcurl-devel python3 perl findutils
exec bash "$(dirname "${BASH_SOURCE[0]}")/build.sh"
