"""Builds the one compiled module, confluent_binding._core, against librdkafka.

Metadata (sdist, egg_info, wheel names) never needs librdkafka: it is looked up only when the
extension is compiled, in this order:

1. ``RDKAFKA_PREFIX``: a prefix with ``include/librdkafka/rdkafka.h``. If it has
   ``lib/librdkafka.a`` that archive is linked in, with whichever dependency archives sit next to
   it (``libcurl.a``, ``libssl.a``, ``libcrypto.a``, ``libzstd.a``, ``libz.a``); dependencies
   without an archive are linked dynamically. Otherwise the shared library is linked with an rpath.
2. ``librdkafka-build/static``, the pinned self-contained build of ``librdkafka-build/build.sh``,
   when it is complete (its stamp matches ``librdkafka-build/VERSION``).
3. pkg-config's ``rdkafka`` if it is at least the pinned version (skipped with
   ``CB_BUNDLED_LIBRDKAFKA=1``).
4. Otherwise ``librdkafka-build/build.sh`` runs (a few minutes: it builds librdkafka and its
   dependencies from pinned, checksum-verified sources) and step 2 applies.

``CB_GSSAPI=1`` (Kerberos) replaces steps 2-4: the pinned build with SASL GSSAPI in
``librdkafka-build/static-gssapi`` is used, made first by ``CB_GSSAPI=1 librdkafka-build/build.sh``
if needed. It links the system's Cyrus SASL (``libsasl2``) dynamically, so the extension needs
libsasl2 and its GSSAPI plugin (Debian: ``libsasl2-modules-gssapi-mit``) where it runs.

With the pinned build, librdkafka's internal headers from the very tree the archive was built
from let ``src/includes/rdkafka_fast.h`` skip slow public calls on hot paths
(``CB_RDKAFKA_INTERNALS``); ``CB_PUBLIC_API_ONLY=1`` turns that off.

``CB_FREETHREADING=1`` marks the module as not needing the GIL (Cython's
``CYTHON_FREETHREADING_COMPATIBLE``), so a free-threaded CPython (3.13t) keeps the GIL off when it
imports it. Without it such an interpreter re-enables the GIL on import, with a RuntimeWarning:
the compiled core has not been made safe without the GIL, so only ``make matrix`` sets it, to run
the tests on 3.13t as the module would run there. Interpreters with the GIL ignore the mark.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUILD_DIR = HERE / "librdkafka-build"
# Dependency archives of a static prefix, in link order; the dynamic fallback for each.
STATIC_DEPS = [("libcurl.a", ["curl"]), ("libssl.a", ["ssl"]), ("libcrypto.a", ["crypto"]),
               ("libzstd.a", ["zstd"]), ("libz.a", ["z"])]
# Linked dynamically by a librdkafka built against system packages (Cyrus SASL, external lz4).
SYSTEM_ONLY_DEPS = ["sasl2", "lz4"]


def freethreading_requested():
    value = os.environ.get("CB_FREETHREADING", "0")
    if value not in ("0", "1"):
        raise SystemExit(f"CB_FREETHREADING={value}: set it to 1 (mark the module as not needing "
                         "the GIL) or 0 (the default)")
    return value == "1"


def gssapi_requested():
    value = os.environ.get("CB_GSSAPI", "0")
    if value not in ("0", "1"):
        raise SystemExit(f"CB_GSSAPI={value}: set it to 1 (build with GSSAPI) or 0 (the default)")
    return value == "1"


# The pinned build this checkout links: (its prefix, its configured librdkafka tree).
VARIANT = "-gssapi" if gssapi_requested() else ""
PINNED_PREFIX = BUILD_DIR / f"static{VARIANT}"
PINNED_TREE = BUILD_DIR / f"build{VARIANT}" / "librdkafka" / "src"


def pin():
    """librdkafka-build/VERSION as a dict."""
    values = {}
    for line in (BUILD_DIR / "VERSION").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def system_libraries():
    if sys.platform.startswith("linux"):
        return ["m", "dl", "pthread", "rt"]
    return ["m"] if os.name != "nt" else []


def system_only_deps_of(prefix):
    """The SYSTEM_ONLY_DEPS a prefix's librdkafka was built with (its rdkafka.pc requires them)."""
    pc = prefix / "lib" / "pkgconfig" / "rdkafka.pc"
    required = set()
    if pc.exists():
        for line in pc.read_text().splitlines():
            if line.startswith("Requires.private:"):
                required.update(line.partition(":")[2].replace(",", " ").split())
    return [dep for dep in SYSTEM_ONLY_DEPS if "lib" + dep in required]


def static_prefix_flags(prefix, internals_tree=None):
    """Link flags for a prefix holding librdkafka.a (and maybe its dependencies' archives)."""
    include, lib = prefix / "include", prefix / "lib"
    objects, libraries = [str(lib / "librdkafka.a")], []
    bundled = (lib / "libcrypto.a").exists()
    for archive, dynamic in STATIC_DEPS:
        if (lib / archive).exists():
            objects.append(str(lib / archive))
        else:
            libraries += dynamic
    # A self-contained prefix may still need Cyrus SASL from the system (the GSSAPI build).
    libraries += system_only_deps_of(prefix) if bundled else SYSTEM_ONLY_DEPS
    flags = dict(include_dirs=[str(include)], extra_objects=objects,
                 libraries=libraries + system_libraries(), extra_link_args=[], define_macros=[])
    if sys.platform.startswith("linux"):
        # Keep the archives' symbols (OpenSSL's above all) private to the extension.
        flags["extra_link_args"].append("-Wl,--exclude-libs,ALL")
    elif sys.platform == "darwin":
        flags["extra_link_args"] += ["-framework", "CoreFoundation", "-framework",
                                     "SystemConfiguration", "-framework", "Security"]
    if internals_tree is not None and os.environ.get("CB_PUBLIC_API_ONLY") != "1":
        flags["include_dirs"].append(str(internals_tree))
        flags["define_macros"].append(("CB_RDKAFKA_INTERNALS", "1"))
    return flags


def dynamic_prefix_flags(prefix):
    include, lib = prefix / "include", prefix / "lib"
    flags = dict(include_dirs=[str(include)], library_dirs=[str(lib)], libraries=["rdkafka"])
    if os.name != "nt":
        flags["runtime_library_dirs"] = [str(lib)]
    return flags


def pinned_build_complete():
    stamp = PINNED_PREFIX / ".pinned-build"
    return stamp.exists() and stamp.read_bytes() == (BUILD_DIR / "VERSION").read_bytes()


def pinned_build_flags():
    return static_prefix_flags(PINNED_PREFIX,
                               PINNED_TREE if (PINNED_TREE / "rdkafka_msg.h").exists() else None)


def pkg_config_flags(version):
    try:
        subprocess.check_call(["pkg-config", "--atleast-version", version, "rdkafka"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cflags = subprocess.check_output(["pkg-config", "--cflags", "rdkafka"], text=True)
        libs = subprocess.check_output(["pkg-config", "--libs", "rdkafka"], text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return dict(extra_compile_args=shlex.split(cflags), extra_link_args=shlex.split(libs))


def librdkafka_flags():
    """Where librdkafka comes from (see the module docstring) and how to link it."""
    given = os.environ.get("RDKAFKA_PREFIX")
    if given:
        prefix = Path(given).resolve()
        if not (prefix / "include" / "librdkafka" / "rdkafka.h").exists():
            raise SystemExit(f"RDKAFKA_PREFIX={given}: no include/librdkafka/rdkafka.h there")
        if (prefix / "lib" / "librdkafka.a").exists() and os.environ.get("RDKAFKA_DYNAMIC") != "1":
            internals = None
            if prefix == PINNED_PREFIX.resolve() and pinned_build_complete():
                internals = PINNED_TREE
            return "RDKAFKA_PREFIX (static)", static_prefix_flags(prefix, internals)
        return "RDKAFKA_PREFIX (shared)", dynamic_prefix_flags(prefix)
    pinned = f"the pinned build in librdkafka-build/{PINNED_PREFIX.name}"
    if pinned_build_complete():
        return pinned, pinned_build_flags()
    version = pin()["LIBRDKAFKA_VERSION"]
    if not VARIANT and os.environ.get("CB_BUNDLED_LIBRDKAFKA") != "1":
        flags = pkg_config_flags(version)
        if flags is not None:
            return f"pkg-config rdkafka >= {version}", flags
    if not (BUILD_DIR / "build.sh").exists():
        raise SystemExit("librdkafka not found: set RDKAFKA_PREFIX or install librdkafka "
                         f">= {version} with pkg-config")
    print(f"{pinned} not found: building it (librdkafka-build/build.sh)", flush=True)
    subprocess.check_call(["bash", str(BUILD_DIR / "build.sh")])  # CB_GSSAPI passes through
    if not pinned_build_complete():
        raise SystemExit("librdkafka-build/build.sh finished without a complete build")
    return pinned, pinned_build_flags()


class BuildExt(build_ext):
    """Finds librdkafka and cythonizes only when the extension is really built."""

    def finalize_options(self):
        super().finalize_options()
        self._configured = False

    def run(self):
        if not self._configured:
            self._configure()
        super().run()

    def _configure(self):
        from Cython.Build import cythonize

        origin, flags = librdkafka_flags()
        macros = list(flags.pop("define_macros", []))
        api = "internal" if ("CB_RDKAFKA_INTERNALS", "1") in macros else "public"
        print(f"confluent_binding: librdkafka from {origin}; librdkafka API: {api}", flush=True)
        directives = {}
        if freethreading_requested():
            # A C macro rather than Cython's freethreading_compatible directive: the generated C
            # file (shared by every build of the checkout) stays the same.
            macros.append(("CYTHON_FREETHREADING_COMPATIBLE", "1"))
            print("confluent_binding: marked as not needing the GIL (CB_FREETHREADING=1)",
                  flush=True)
        if os.environ.get("CB_LINETRACE") == "1":
            directives["linetrace"] = True
            macros.append(("CYTHON_TRACE_NOGIL", "1"))
        flags["include_dirs"] = ["src/includes"] + flags.get("include_dirs", [])
        flags["define_macros"] = macros
        # Fill in the extension setuptools already prepared (it keeps per-extension state), and
        # compile the C file Cython generates from it.
        (ext,) = self.extensions
        for key, value in flags.items():
            setattr(ext, key, getattr(ext, key, []) + list(value))
        # A rebuilt librdkafka (or dependency) archive makes the extension out of date too.
        ext.depends = list(ext.depends) + list(flags.get("extra_objects", []))
        # Cython's dependency tracking misses the module's own .pxd (it looks for one next to
        # src/_core.pyx, not in the package) and the C headers: either newer than the generated
        # C file forces cythonize, and is a dependency of the compiled extension.
        untracked = [HERE / "confluent_binding" / "_core.pxd",
                     *sorted((HERE / "src" / "includes").glob("*.h"))]
        generated = HERE / "src" / "_core.c"
        force = not generated.exists() or any(
            dep.stat().st_mtime > generated.stat().st_mtime for dep in untracked)
        ext.depends += [str(dep) for dep in untracked]
        # include_path: src for the included implementation files and includes/; the checkout
        # root for the package, whose confluent_binding/_core.pxd declares the module's C shape.
        (cythonized,) = cythonize([ext], include_path=["src", str(HERE)], force=force,
                                  compiler_directives=directives,
                                  annotate=os.environ.get("CB_ANNOTATE") == "1")
        ext.sources = cythonized.sources
        self._configured = True


# Read by the interpreter at start-up from site-packages: with CONFLUENT_BINDING_AS set, it
# installs the import aliases it names (confluent_binding/_alias.py); without, it imports nothing.
ALIAS_PTH = "confluent_binding_alias.pth"


class BuildPy(build_py):
    """Also puts confluent_binding_alias.pth at the top of the build, so the wheel installs it
    into site-packages itself (an editable install does without it)."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            self.copy_file(str(HERE / ALIAS_PTH), os.path.join(self.build_lib, ALIAS_PTH),
                           preserve_mode=False)

    def get_outputs(self, include_bytecode=1):
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            outputs.append(os.path.join(self.build_lib, ALIAS_PTH))
        return outputs


def long_description():
    """The README for a package index, which shows it away from the repository: its links to
    files of the repository made absolute (to the Source URL of pyproject.toml's
    ``[project.urls]``, the one home of that address)."""
    source = re.search(r'^Source = "([^"]+)"', Path("pyproject.toml").read_text(), re.M).group(1)
    return re.sub(r"\]\((?![a-z]+:|#)([^)\s]+)\)",
                  lambda m: "](%s/blob/main/%s)" % (source, m.group(1)),
                  Path("README.md").read_text())


setup(
    ext_modules=[Extension("confluent_binding._core", sources=["src/_core.pyx"])],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
    long_description=long_description(),
    long_description_content_type="text/markdown",
)
