"""Summarise AddressSanitizer / LeakSanitizer reports (one file per process, ASAN_OPTIONS
log_path=DIR/asan) and fail on what is ours.

Any AddressSanitizer error (invalid access, double free, ...) fails. A leak fails when it is a
definite ("Direct") leak with a frame in the extension (confluent_binding/_core) or librdkafka;
the interpreter's own leftovers at exit (CPython does not free everything it allocated) are
counted and listed, not failed.

usage: lsan_report.py DIR
"""
import collections
import re
import sys
from pathlib import Path

OURS = re.compile(r"confluent_binding/_core|/src/[a-z_]+\.pyx|\brd_kafka|librdkafka|/src/rd\w*\.c")
BLOCK = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\) allocated "
                   r"from:\n((?:    #.*\n?)+)", re.M)


def main(directory):
    files = sorted(Path(directory).glob("asan.*"))
    errors, ours, theirs = [], [], collections.Counter()
    for f in files:
        text = f.read_text(errors="replace")
        for m in re.finditer(r"^==\d+==ERROR: AddressSanitizer: .*$", text, re.M):
            errors.append((f.name, text[m.start():m.start() + 3000]))
        for kind, size, count, frames in BLOCK.findall(text):
            if kind == "Direct" and OURS.search(frames):
                ours.append((f.name, int(size), int(count), frames))
            else:
                theirs[kind] += int(size)
    print("sanitizer reports: %d file(s) in %s" % (len(files), directory))
    print("AddressSanitizer errors: %d" % len(errors))
    print("definite leaks with a frame in the extension or librdkafka: %d" % len(ours))
    print("other leak reports (interpreter at exit): %s"
          % (", ".join("%s %d bytes" % kv for kv in sorted(theirs.items())) or "none"))
    for name, report in errors:
        print("\n--- %s\n%s" % (name, report))
    for name, size, count, frames in ours:
        print("\n--- %s: %d bytes in %d object(s)\n%s" % (name, size, count, frames))
    return 1 if errors or ours else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
