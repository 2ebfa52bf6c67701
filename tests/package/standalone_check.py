"""Checks an installed confluent_binding the way a user gets it, with nothing but the package.

Run with the interpreter of a fresh virtualenv the wheel (or sdist) was installed into, from an
empty directory; it imports nothing from a source checkout and needs only the standard library:

    python standalone_check.py --pin-file librdkafka-build/VERSION --mock
    python standalone_check.py --expect-libversion 2.15.1 --clusters clusters.json --forbid CHECKOUT

It checks that the package comes from the environment (not from a checkout on ``sys.path``), that
the compiled extension loads only the package's own libraries and system libraries a manylinux
wheel may use, that librdkafka is the pinned version with every feature, that the licences of the
bundled libraries were installed, and then runs produce/consume round trips with delivery reports:
against librdkafka's mock cluster (``--mock``), or against each listener described in the JSON file
``--clusters`` (``{"name": {"config": {...librdkafka config...}, "topic": "t"}, ...}``).
Prints one line per check; exits non-zero on the first failure.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import time
import uuid
from importlib import metadata

# manylinux policy (PEP 600 / auditwheel): the system libraries a wheel may link without bundling.
MANYLINUX_SYSTEM_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libutil.so.1",
    "libnsl.so.1", "libresolv.so.2", "libgcc_s.so.1", "libstdc++.so.6", "libcrypt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld-linux-armhf.so.3", "ld64.so.2",
    "ld-linux.so.2", "ld64.so.1", "linux-vdso.so.1", "linux-gate.so.1", "linux-vdso64.so.1",
}
# musllinux: the musl loader/libc only.
MUSL_PREFIXES = ("ld-musl-", "libc.musl-")
BUNDLED_LICENSES = {"LICENSE", "librdkafka-LICENSES.txt", "openssl-LICENSE.txt", "curl-COPYING",
                    "zlib-LICENSE", "zstd-LICENSE"}
# One client configuration per feature the build must have (librdkafka refuses a protocol,
# mechanism or codec it was built without): SSL, SASL PLAIN/SCRAM/OAUTHBEARER with OIDC (curl),
# the four codecs.
FEATURE_CONFIGS = (
    {"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512",
     "sasl.username": "u", "sasl.password": "p"},
    {"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN",
     "sasl.username": "u", "sasl.password": "p"},
    {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER"},
    {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
     "sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": "c",
     "sasl.oauthbearer.client.secret": "s",
     "sasl.oauthbearer.token.endpoint.url": "https://127.0.0.1:1/token"},
    {"compression.codec": "zstd"}, {"compression.codec": "lz4"},
    {"compression.codec": "snappy"}, {"compression.codec": "gzip"},
)


def check(name, ok, detail=""):
    print("%-4s %s%s" % ("ok" if ok else "FAIL", name, (": " + str(detail)) if detail else ""),
          flush=True)
    if not ok:
        sys.exit(1)


def check_origin(kafka, forbid):
    pkg_dir = os.path.dirname(os.path.abspath(kafka.__file__))
    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    check("imported from the environment", os.path.realpath(pkg_dir).startswith(site + os.sep),
          pkg_dir)
    for bad in forbid:
        bad = os.path.realpath(bad)
        on_path = [p for p in sys.path if os.path.realpath(p or ".").startswith(bad)]
        check("no source tree on sys.path (%s)" % bad, not on_path, on_path)
        check("package not from the source tree", not os.path.realpath(pkg_dir).startswith(bad))
    return pkg_dir


def linked_libraries(path, ldd="ldd"):
    """(soname, resolved path or None) of each library the dynamic linker loads for path."""
    out = subprocess.run(shlex.split(ldd) + [path], capture_output=True, text=True,
                         check=True).stdout
    libs = []
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"(\S+) => (not found|\S+)", line)
        if line.startswith("("):  # a vDSO without a name (qemu-user's), nothing loaded from disk
            continue
        if m:
            libs.append((m.group(1), None if m.group(2) == "not found" else m.group(2)))
        elif line:
            libs.append((os.path.basename(line.split()[0]), line.split()[0]))
    return libs


def check_linking(core_path, pkg_dir, ldd="ldd"):
    if not sys.platform.startswith("linux"):
        print("skip ldd check (not Linux)")
        return
    own = os.path.realpath(os.path.dirname(pkg_dir))  # site-packages: package + *.libs
    libs = linked_libraries(core_path, ldd)
    print("     ldd %s:" % os.path.basename(core_path))
    for soname, resolved in libs:
        print("       %s => %s" % (soname, resolved))
    for soname, resolved in libs:
        check("%s resolves" % soname, resolved is not None or soname.startswith("linux-"))
        inside = resolved is not None and os.path.realpath(resolved).startswith(own + os.sep)
        allowed = soname in MANYLINUX_SYSTEM_LIBS or soname.startswith(MUSL_PREFIXES)
        check("%s is the wheel's own or a manylinux system library" % soname, inside or allowed,
              resolved)


def check_build(kafka, expect_version):
    version, num = kafka.libversion()
    check("libversion() is the pinned librdkafka", version == expect_version, (version, hex(num)))
    check("__version__ matches the distribution",
          kafka.__version__ == metadata.version("confluent_binding"), kafka.__version__)
    dist = metadata.distribution("confluent_binding")
    shipped = {os.path.basename(str(f)) for f in dist.files or () if "licenses" in str(f)
               or os.path.basename(str(f)) == "LICENSE"}
    check("licences of the bundled libraries installed", BUNDLED_LICENSES <= shipped,
          sorted(BUNDLED_LICENSES - shipped))
    info = kafka.build_info()
    print("build: librdkafka API %s, read-ahead %s" % (
        info["librdkafka_api"], "on" if info["read_ahead"] else "off"), flush=True)
    wanted = {"gzip", "snappy", "lz4", "zstd", "ssl", "sasl_plain", "sasl_scram",
              "sasl_oauthbearer", "oidc"}
    check("build_info() names every feature", wanted <= set(info["features"]),
          sorted(wanted - set(info["features"])))
    # librdkafka refuses a protocol, mechanism or codec it was built without.
    for conf in FEATURE_CONFIGS:
        kafka.Producer(conf).close(0)
    check("SSL, SASL PLAIN/SCRAM/OAUTHBEARER-OIDC, gzip/snappy/lz4/zstd compiled in", True)


def round_trip(kafka, name, conf, topic, count=50):
    reports = []
    p = kafka.Producer(dict(conf, **{"linger.ms": 5, "compression.codec": "zstd"}))
    for i in range(count):
        p.produce(topic, b"value-%d" % i, b"key-%d" % i, headers=[("n", b"%d" % i)],
                  on_delivery=lambda err, msg: reports.append((err, msg.partition(), msg.offset(),
                                                               msg.key())))
    left = p.flush(60)
    p.close()
    check("%s: all delivered" % name, left == 0 and len(reports) == count, (left, len(reports)))
    errors = [r for r in reports if r[0] is not None]
    check("%s: delivery reports without error" % name, not errors, errors[:3])
    delivered = {(part, off): key for _, part, off, key in reports}
    check("%s: distinct offsets" % name, len(delivered) == count)

    c = kafka.Consumer(dict(conf, **{"group.id": "standalone-" + uuid.uuid4().hex,
                                     "auto.offset.reset": "earliest",
                                     "enable.auto.commit": False}))
    c.subscribe([topic])
    got, bad = {}, []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error() is not None:
                check("%s: consumed without error" % name, False, m.error())
            i = int(m.key().split(b"-")[1])
            if m.value() != b"value-%d" % i or m.headers() != [("n", b"%d" % i)]:
                bad.append((m.key(), m.value(), m.headers()))
            got[(m.partition(), m.offset())] = m.key()
    finally:
        c.close()
    check("%s: values and headers intact" % name, not bad, bad[:3])
    check("%s: consumed what the delivery reports said (%d records)" % (name, count),
          got == delivered, "%d of %d" % (len(got), count))


def mock_round_trip(kafka):
    # The producer owns a mock cluster; its metadata names the brokers the consumer then joins.
    owner = kafka.Producer({"test.mock.num.brokers": 3})
    md = owner.list_topics(timeout=10)
    bootstrap = ",".join("%s:%d" % (b.host, b.port) for b in md.brokers.values())
    try:
        round_trip(kafka, "mock cluster", {"bootstrap.servers": bootstrap}, "standalone-mock")
    finally:
        owner.close()


def main():
    ap = argparse.ArgumentParser()
    want = ap.add_mutually_exclusive_group(required=True)
    want.add_argument("--expect-libversion", help="the librdkafka version the build must have")
    want.add_argument("--pin-file", help="librdkafka-build/VERSION, for the version pinned there")
    ap.add_argument("--mock", action="store_true")
    ap.add_argument("--clusters")
    ap.add_argument("--forbid", action="append", default=[])
    # e.g. another architecture's loader under an emulator: "qemu-aarch64-static -L R ld.so --list"
    ap.add_argument("--ldd", default="ldd", help="the command that lists a library's dependencies")
    args = ap.parse_args()
    if args.pin_file:
        with open(args.pin_file) as f:
            pins = dict(line.strip().split("=", 1) for line in f if line[:1].isalpha())
        args.expect_libversion = pins["LIBRDKAFKA_VERSION"]

    import confluent_binding as kafka

    pkg_dir = check_origin(kafka, args.forbid)
    check_linking(kafka._core.__file__, pkg_dir, args.ldd)
    check_build(kafka, args.expect_libversion)
    if args.mock:
        mock_round_trip(kafka)
    if args.clusters:
        with open(args.clusters) as f:
            for name, spec in json.load(f).items():
                round_trip(kafka, name, spec["config"], spec["topic"])
    print("standalone check passed")


if __name__ == "__main__":
    main()
