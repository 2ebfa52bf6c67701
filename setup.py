"""Builds the one compiled module, confluent_binding._core, against librdkafka.

librdkafka is looked up in $RDKAFKA_PREFIX, else librdkafka-build/prefix (made by
librdkafka-build/build.sh), else pkg-config. A static librdkafka.a is linked in when the prefix
has one, so the module needs no LD_LIBRARY_PATH; otherwise the shared library is linked with an
rpath to its directory.
"""
import os
import shlex
import subprocess
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
# Libraries librdkafka itself links (the Debian -dev packages build.sh installs).
RDKAFKA_DEPS = ["ssl", "crypto", "sasl2", "zstd", "lz4", "curl", "z", "m", "dl", "pthread", "rt"]


def librdkafka_flags():
    prefix = os.environ.get("RDKAFKA_PREFIX") or str(HERE / "librdkafka-build" / "prefix")
    include, lib = Path(prefix, "include"), Path(prefix, "lib")
    if (include / "librdkafka" / "rdkafka.h").exists():
        static = lib / "librdkafka.a"
        if static.exists() and os.environ.get("RDKAFKA_DYNAMIC") != "1":
            flags = dict(include_dirs=[str(include), "src/includes"], extra_objects=[str(static)],
                         libraries=RDKAFKA_DEPS, extra_link_args=["-Wl,--exclude-libs,ALL"])
            # The source tree build.sh configured and built this very archive from: its
            # internal headers let src/includes/rdkafka_fast.h skip slow public calls on hot paths.
            tree = HERE / "librdkafka-build" / "work" / "librdkafka" / "src"
            own = Path(prefix).resolve() == (HERE / "librdkafka-build" / "prefix").resolve()
            if own and (tree / "rdkafka_msg.h").exists():
                flags["include_dirs"].append(str(tree))
                flags["define_macros"] = [("CB_RDKAFKA_INTERNALS", "1")]
            return flags
        return dict(include_dirs=[str(include), "src/includes"], library_dirs=[str(lib)],
                    libraries=["rdkafka"], runtime_library_dirs=[str(lib)])
    try:
        cflags = subprocess.check_output(["pkg-config", "--cflags", "rdkafka"], text=True)
        libs = subprocess.check_output(["pkg-config", "--libs", "rdkafka"], text=True)
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit(
            "librdkafka not found: run librdkafka-build/build.sh or set RDKAFKA_PREFIX")
    return dict(include_dirs=["src/includes"], extra_compile_args=shlex.split(cflags),
                extra_link_args=shlex.split(libs))


directives = {}
if os.environ.get("CB_LINETRACE") == "1":
    directives["linetrace"] = True

flags = librdkafka_flags()
flags.setdefault("define_macros", []).extend([("CYTHON_TRACE_NOGIL", "1")] if directives else [])
ext = Extension("confluent_binding._core", sources=["src/_core.pyx"], **flags)

setup(
    ext_modules=cythonize(
        [ext],
        # src: the included implementation files and includes/; the checkout root: the package,
        # whose confluent_binding/_core.pxd declares the module's C-level shape.
        include_path=["src", str(HERE)],
        compiler_directives=directives,
        annotate=os.environ.get("CB_ANNOTATE") == "1",
    ),
)
