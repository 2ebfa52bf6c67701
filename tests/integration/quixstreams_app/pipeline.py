"""A quixstreams Application written for confluent-kafka, run by test_quixstreams.py in a child
process; run as ``python -m confluent_binding run pipeline.py ...``, its ``confluent_kafka`` is
confluent_binding.

Purchases (JSON values keyed by device) are filtered, converted to cents, re-keyed by user
(group_by: a repartition topic), summed and counted per user in 10 s tumbling windows (state with
changelog topics), and each closed window goes to the output topic, exactly once.

    python pipeline.py BOOTSTRAP GROUP INPUT OUTPUT STATE_DIR STOP

STOP says when the run ends: ``records=N`` (a clean stop once N re-keyed purchases have been
aggregated), ``outputs=N`` (a clean stop once N window totals have been written) or ``crash=N``
(the process dies, with exit status 17, as soon as its N-th window total has been sent to the
broker, inside the transaction that is still open). A run that stops cleanly prints one JSON line
describing what it ran on.
"""

import json
import os
import sys

import confluent_kafka
import quixstreams.models.topics.admin as quix_admin
from quixstreams import Application
from quixstreams.dataframe.windows import Count, Sum
from quixstreams.models import TopicConfig

import confluent_binding

WINDOW_MS = 10_000
CRASH_STATUS = 17


def main(bootstrap, group, input_name, output_name, state_dir, stop):
    what, limit = stop.split("=")
    limit = int(limit)
    app = Application(
        broker_address=bootstrap,
        consumer_group=group,
        auto_offset_reset="earliest",
        processing_guarantee="exactly-once",
        # one instance with a fixed identity: a restart takes over the crashed run's group
        # membership (instead of waiting for its session to time out) and fences the transaction
        # it left open (instead of waiting for the broker to abort it)
        consumer_extra_config={"group.instance.id": group},
        producer_extra_config={"transactional.id": group},
        # the re-keyed records reach the window once the transaction that wrote them commits
        commit_interval=0.5,
        state_dir=state_dir,
    )
    purchases = app.topic(input_name, value_deserializer="json")
    totals = app.topic(output_name, key_serializer="str", value_serializer="json",
                       config=TopicConfig(num_partitions=2, replication_factor=1))
    counts = {"records": 0, "outputs": 0}

    def count(kind):
        def counted(value):
            counts[kind] += 1
            if what == kind and counts[kind] == limit:
                app.stop()  # ends the loop after this message; the last checkpoint commits it
            elif what == "crash" and kind == "outputs" and counts[kind] == limit:
                app._producer.flush()  # the total is in the broker's log, uncommitted
                os._exit(CRASH_STATUS)
        return counted

    sdf = app.dataframe(purchases)
    sdf = sdf.filter(lambda v: v["kind"] == "purchase")
    sdf = sdf.apply(lambda v: {"user": v["user"], "cents": v["amount"] * 100})
    sdf = sdf.group_by("user")
    sdf = sdf.update(count("records"))
    sdf = sdf.tumbling_window(duration_ms=WINDOW_MS).agg(
        cents=Sum("cents"), purchases=Count()).final()
    sdf = sdf.apply(lambda w: {"start": w["start"], "end": w["end"], "cents": w["cents"],
                               "purchases": w["purchases"]})
    sdf = sdf.to_topic(totals)
    sdf = sdf.update(count("outputs"))
    app.run()

    aliased = sorted(name for name in sys.modules
                     if name == "confluent_kafka" or name.startswith("confluent_kafka."))
    print(json.dumps({
        "confluent_kafka": confluent_kafka.__name__,
        "modules": {name: sys.modules[name].__name__ for name in aliased},
        "admin_client": "%s.%s" % (quix_admin.AdminClient.__module__,
                                   quix_admin.AdminClient.__qualname__),
        "admin_is_ours": quix_admin.AdminClient is confluent_binding.admin.AdminClient,
        **counts,
    }))


if __name__ == "__main__":
    main(*sys.argv[1:])
