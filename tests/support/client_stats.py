"""What a client's own statistics (``stats_cb`` every ``statistics.interval.ms``) say about a
fault: how many messages it sent again, which broker connections it lost. The fault tests use
them to prove that the fault reached the client, not only the broker.

Figures used (librdkafka's STATISTICS.md):
- ``txmsgs``: messages put into produce requests, counted again each time a message goes out
  again, so beyond the number produced it counts the retransmitted ones;
- per broker ``disconnects``: connections that were up and went down;
- per broker ``nodename``: where a logical broker (``TxnCoordinator``) points now (a learned
  broker's entry goes away while the cluster's metadata leaves that broker out, a logical
  one's stays);
- per partition ``leader_epoch``: the leader epoch the client knows, which grows with every
  change of leader;
- ``time``: the wall-clock second the sample was taken."""
import json
import time

from tests.support.sequences import wait_for

INTERVAL_MS = 500


class Statistics:
    """A ``stats_cb`` keeping the latest statistics sample of one client."""

    def __init__(self):
        self.latest = None

    def __call__(self, text):
        self.latest = json.loads(text)

    def settle(self, producer, timeout=30):
        """Serve producer until a sample taken after this call arrived (samples queued while the
        application was not serving the client may be older). Returns it."""
        after = time.time()
        wait_for("a statistics sample taken after %.1f" % after,
                 lambda: self.latest is not None and self.latest["time"] > after, timeout,
                 lambda: producer.poll(0.1))
        return self.latest

    @property
    def transmitted(self):
        """Messages transmitted, each retransmission counted again."""
        return self.latest["txmsgs"]

    def broker(self, name):
        """The entry of one broker: a learned one by node id, a logical one by name."""
        for key, b in self.latest["brokers"].items():
            if (isinstance(name, int) and b["nodeid"] == name) or key == name:
                return b
        raise KeyError("no broker %r in %s" % (name, sorted(self.latest["brokers"])))

    def disconnects(self, name):
        return self.broker(name)["disconnects"]

    def partition(self, topic, partition):
        return self.latest["topics"][topic]["partitions"][str(partition)]
