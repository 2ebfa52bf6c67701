"""A consumer-group member SIGKILLed mid-stream (members in separate processes, manual
commits after processing): the group rebalances, the survivors finish, every message is
processed at least once and none is skipped; duplicates are counted and bounded by the killed
member's uncommitted window. Every run proves that the kill made the group rebalance: the
partitions the killed member held are assigned to the survivors after it died. Classic (eager
and cooperative) and KIP-848 groups."""
import collections
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster

pytestmark = pytest.mark.integration

MEMBER = Path(__file__).with_name("group_member.py")
PARTITIONS = 6
MESSAGES = 30_000
COMMIT_EVERY = 200


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory):
    # KIP-848 members are fenced after the broker-side session timeout (45 s by default).
    with KafkaCluster(workdir=tmp_path_factory.mktemp("groups"), broker_properties={
            "group.consumer.session.timeout.ms": 6000,
            "group.consumer.min.session.timeout.ms": 6000}) as c:
        yield c


class Member:
    def __init__(self, cluster, topic, group, protocol, journal):
        env = dict(os.environ)
        import confluent_binding
        root = str(Path(confluent_binding.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        self.journal = journal
        self.proc = subprocess.Popen(
            [sys.executable, str(MEMBER), cluster.bootstrap_servers, topic, group, protocol,
             str(journal), str(COMMIT_EVERY)], env=env, stderr=subprocess.PIPE)

    def lines(self):
        try:
            return self.journal.read_text().splitlines()
        except FileNotFoundError:
            return []

    def processed(self):
        return [tuple(map(int, line.split())) for line in self.lines() if " " in line]

    @staticmethod
    def assigned(lines):
        """The partitions assigned by these journal lines ("+P"), less those taken away
        later ("-P")."""
        held = set()
        for line in lines:
            if line[:1] == "+":
                held.add(int(line[1:]))
            elif line[:1] == "-":
                held.discard(int(line[1:]))
        return held

    def windows(self):
        """(messages processed since the last successful commit, the refused windows): each
        refused commit leaves what was processed since the last successful one to be processed
        again by whoever gets those partitions; of the refusals between two successful commits
        the last one's window counts (windows only grow until a commit succeeds)."""
        window, refused, refused_here = 0, [], None
        for line in self.lines():
            if line == "c":
                if refused_here is not None:
                    refused.append(refused_here)
                window, refused_here = 0, None
            elif line == "f":
                refused_here = window
            elif " " in line:
                window += 1
        if refused_here is not None:
            refused.append(refused_here)
        return window, refused


def _wait(what, cond, timeout, members):
    deadline = time.monotonic() + timeout
    while not cond():
        for m in members:
            if m.proc.poll() not in (None, -signal.SIGKILL):
                raise AssertionError("member exited with %s: %s"
                                     % (m.proc.returncode, m.proc.stderr.read().decode()))
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.1)


@pytest.mark.parametrize("protocol", ["range", "cooperative-sticky", "consumer"])
def test_killed_member_loses_nothing(group_broker, tmp_path, protocol, record_property):
    topic = group_broker.create_topic("members-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    p = kafka.Producer(group_broker.client_config(**{"linger.ms": 5}))
    for i in range(MESSAGES):
        p.produce(topic, b"%d" % i, partition=i % PARTITIONS)
        if i % 10_000 == 0:
            p.poll(0)
    assert p.flush(60) == 0
    p.close()
    group = uuid.uuid4().hex
    members = [Member(group_broker, topic, group, protocol, tmp_path / ("m%d" % i))
               for i in range(3)]
    victim = members[0]
    try:
        # kill the victim once it is well into its share, holding partitions, with the group
        # still busy
        _wait("the victim to process its first commits, holding partitions",
              lambda: (len(victim.processed()) >= 3 * COMMIT_EVERY + COMMIT_EVERY // 2
                       and Member.assigned(victim.lines())), 120, members)
        victim.proc.kill()
        victim.proc.wait()
        killed_at = len(victim.processed())
        held = Member.assigned(victim.lines())
        # where the survivors' journals stood when the victim died
        marks = [len(m.lines()) for m in members[1:]]
        everything = {(i % PARTITIONS, i // PARTITIONS) for i in range(MESSAGES)}

        def union():
            return {po for m in members for po in m.processed()}

        _wait("the survivors to finish", lambda: union() >= everything, 180, members)
    finally:
        for m in members[1:]:
            if m.proc.poll() is None:
                m.proc.send_signal(signal.SIGTERM)
        for m in members:
            try:
                m.proc.wait(60)
            except subprocess.TimeoutExpired:
                m.proc.kill()
    for m in members[1:]:
        assert m.proc.returncode == 0, m.proc.stderr.read().decode()
    # the positive control: the kill made the group rebalance, the victim's partitions went to
    # the survivors
    taken_over = {int(line[1:]) for m, mark in zip(members[1:], marks)
                  for line in m.lines()[mark:] if line[:1] == "+"}
    assert held and held <= taken_over, (held, taken_over)
    record_property("victim_partitions", sorted(held))
    processed = [po for m in members for po in m.processed()]
    counts = collections.Counter(processed)
    assert set(counts) == everything   # none skipped, nothing foreign
    duplicates = len(processed) - len(everything)
    # Processed again is at most what the victim processed after its last commit, plus what any
    # member (the victim too, in the rebalances as the others joined) had processed since its
    # last successful commit when a commit was refused.
    victim_window = victim.windows()[0]
    refused = sum(sum(m.windows()[1]) for m in members)
    record_property("duplicates", duplicates)
    record_property("victim_processed", killed_at)
    record_property("uncommitted_window", victim_window + refused)
    assert duplicates <= victim_window + refused, (duplicates, victim_window, refused)
