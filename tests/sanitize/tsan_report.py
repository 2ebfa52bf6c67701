"""Summarise ThreadSanitizer reports (one file per process, TSAN_OPTIONS log_path=DIR/tsan) and
fail on what is ours.

A report (a data race, a lock-order inversion, a use of a destroyed mutex, ...) fails when one of
its stacks has a frame in the extension (confluent_binding/_core, src/*.pyx) or librdkafka. The
rest - the interpreter's own reports that CPython's suppressions do not cover yet, and the
uninstrumented libraries seen through their interceptors - are counted by kind and listed by
their top frame, not failed: the interpreter is not what this checks.

usage: tsan_report.py DIR
"""
import collections
import re
import sys
from pathlib import Path

from lsan_report import OURS  # a frame of the extension or librdkafka (run as a script)

REPORT = re.compile(r"^WARNING: ThreadSanitizer: (.+?) \(pid=\d+\)\n(.*?)"
                    r"^SUMMARY: ThreadSanitizer: ([^\n]*)", re.M | re.S)


def main(directory):
    files = sorted(Path(directory).glob("tsan.*"))
    ours, theirs = [], collections.Counter()
    for f in files:
        text = f.read_text(errors="replace")
        for kind, body, summary in REPORT.findall(text):
            if OURS.search(body):
                ours.append((f.name, kind, body))
            else:
                theirs["%s: %s" % (kind, summary.strip())] += 1
    print("sanitizer reports: %d file(s) in %s" % (len(files), directory))
    print("ThreadSanitizer reports with a frame in the extension or librdkafka: %d" % len(ours))
    print("other reports (the interpreter, uninstrumented libraries): %d" % sum(theirs.values()))
    for summary, count in theirs.most_common(20):
        print("  %4d  %s" % (count, summary))
    for name, kind, body in ours:
        print("\n--- %s: %s\n%s" % (name, kind, body[:6000]))
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
