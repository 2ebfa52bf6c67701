#!/usr/bin/env bash
# Windows (Git Bash on a GitHub runner with Visual Studio and vcpkg): the pinned librdkafka as
# rdkafka.dll into librdkafka-build/windows (include/, lib/rdkafka.lib, bin/*.dll), built with its
# own CMake project. Its dependencies (OpenSSL, curl, zstd, zlib) come from vcpkg at the versions
# of the vcpkg.json manifest inside the pinned librdkafka source (its builtin-baseline), not from
# VERSION; delvewheel bundles the DLLs into the wheel.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=$HERE/windows
VCPKG_ROOT=${VCPKG_INSTALLATION_ROOT:?vcpkg not found (VCPKG_INSTALLATION_ROOT)}

fetch_librdkafka
rm -rf "$OUT"
unpack_librdkafka "$TREE"
cd "$TREE"
# The manifest's builtin-baseline must be in vcpkg's history.
git -C "$VCPKG_ROOT" fetch -q --unshallow 2>/dev/null || git -C "$VCPKG_ROOT" fetch -q || true
cmake -S . -B _cmake -A x64 \
    -DCMAKE_TOOLCHAIN_FILE="$VCPKG_ROOT/scripts/buildsystems/vcpkg.cmake" \
    -DVCPKG_TARGET_TRIPLET=x64-windows \
    -DWITH_SSL=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_CURL=ON -DENABLE_LZ4_EXT=OFF \
    -DRDKAFKA_BUILD_EXAMPLES=OFF -DRDKAFKA_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$OUT"
cmake --build _cmake --config Release --target install
mkdir -p "$OUT/bin"
cp _cmake/vcpkg_installed/x64-windows/bin/*.dll "$OUT/bin/"
grep -q "^#define RD_KAFKA_VERSION  *$LIBRDKAFKA_VERSION_INT\b" "$OUT/include/librdkafka/rdkafka.h" ||
    die "installed rdkafka.h is not $LIBRDKAFKA_VERSION"
ls -l "$OUT/bin" "$OUT/lib"
