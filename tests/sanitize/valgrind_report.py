"""Summarise valgrind memcheck logs (--log-file=DIR/memcheck.%p.log) and fail on what is ours:
an invalid read/write/free or use of uninitialised memory, or a definite leak, with a frame in the
extension (confluent_binding/_core) or librdkafka. The interpreter's own reports (CPython's
start-up and allocator do things memcheck cannot follow) are counted, not failed.

usage: valgrind_report.py DIR
"""
import re
import sys
from pathlib import Path

OURS = re.compile(r"_core\.[\w.-]*so|\.pyx:|\brd_kafka|rdkafka")
RECORD = re.compile(r"^==\d+== (\S.*)\n((?:==\d+==    (?:at|by) .*\n)+)", re.M)
ERRORS = ("Invalid read", "Invalid write", "Invalid free", "Mismatched free",
          "Conditional jump or move depends on uninitialised", "Use of uninitialised",
          "Syscall param", "Source and destination overlap")


def main(directory):
    files = sorted(Path(directory).glob("memcheck.*.log"))
    errors, leaks, summary, theirs = [], [], [], 0
    for f in files:
        text = f.read_text(errors="replace")
        for head, frames in RECORD.findall(text):
            if head.startswith(ERRORS):
                if OURS.search(frames):
                    errors.append((f.name, head, frames))
                else:
                    theirs += 1
            elif "definitely lost" in head and OURS.search(frames):
                leaks.append((f.name, head, frames))
        summary += re.findall(r"ERROR SUMMARY: .*|definitely lost: .*", text)
    print("valgrind logs: %d in %s" % (len(files), directory))
    for line in summary:
        print("  " + line)
    print("invalid accesses / uninitialised uses with a frame in the extension or librdkafka: %d"
          % len(errors))
    print("other reports (the interpreter's own): %d contexts" % theirs)
    print("definite leaks with a frame in the extension or librdkafka: %d" % len(leaks))
    for name, head, frames in errors + leaks:
        print("\n--- %s: %s\n%s" % (name, head, frames))
    return 1 if errors or leaks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
