"""The guides that show a whole program run it here: the page's Python blocks, joined in order,
run as one script against the session's broker, and print exactly what the page says they print
(the ``text`` block after "It prints:"). The pages name the broker ``"localhost:9092"``, their
topic ``"orders"`` (created here with 3 partitions) and their group ``"orders-app"``.

Where a page says confluent-kafka prints the same, the same script runs on confluent-kafka too.
"""
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "docs"

PAGES = ["guides/consumer-callbacks.md", "guides/error-handling.md",
         "guides/delivery-guarantees.md", "guides/migrating-from-kafka-python.md"]
# pages whose program prints the same on confluent-kafka (the page says so)
SAME_ON_CONFLUENT_KAFKA = {"guides/error-handling.md"}


def page_program(page):
    """(the page's Python blocks joined, the lines it says they print)."""
    text = (DOCS / page).read_text()
    code = "\n".join(re.findall(r"^```python\n(.*?)^```", text, re.S | re.M))
    printed = re.search(r"It prints:\n\n```text\n(.*?)```", text, re.S)
    assert code and printed, "%s: no program or no 'It prints:' block" % page
    return code, printed.group(1).splitlines()


def run_program(code, kafka_cluster, topic):
    code = (code.replace('"localhost:9092"', repr(kafka_cluster.bootstrap_servers))
            .replace('"orders-app"', repr("docs-%s" % uuid.uuid4().hex[:8]))
            .replace('"orders"', repr(topic)))
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


@pytest.mark.parametrize("page, library",
                         [(page, "confluent_binding") for page in PAGES]
                         + [(page, "confluent_kafka") for page in sorted(SAME_ON_CONFLUENT_KAFKA)])
def test_the_page_program_prints_what_the_page_says(page, library, kafka_cluster, make_topic):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the pages' programs take bootstrap servers only")
    code, printed = page_program(page)
    if library != "confluent_binding":
        code = code.replace("confluent_binding", library)
    assert run_program(code, kafka_cluster, make_topic(3)) == printed


def test_every_page_with_a_printed_output_is_run():
    claimed = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")
               if "It prints:\n\n```text" in p.read_text()}
    assert claimed <= set(PAGES)
