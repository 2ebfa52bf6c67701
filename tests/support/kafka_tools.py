"""Apache Kafka's own command-line tools, run from the broker jars the tests already use.

For what the binding's API does not cover (client quotas): the tests ask the broker through
Kafka's ``kafka-configs`` (``kafka.admin.ConfigCommand``) rather than through a protocol client
of their own.
"""

import subprocess
from typing import Dict, Optional

from confluent_binding.testing import ensure_kafka_jars
from confluent_binding.testing._process import find_java

# a short-lived JVM: favour start-up time
_JVM_OPTS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Djava.awt.headless=true", "-Dlog4j2.level=WARN")


def run_tool(main_class: str, *args: str, timeout: float = 120) -> str:
    """Run a Kafka tool class with the broker's classpath; its stdout, or an error with its
    output."""
    libs = ensure_kafka_jars()
    cmd = [find_java(), *_JVM_OPTS, "-cp", str(libs / "*"), main_class, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (main_class, proc.returncode, proc.stdout,
                                                       proc.stderr))
    return proc.stdout


def alter_client_quota(bootstrap_servers: str, client_id: str,
                       quotas: Dict[str, Optional[float]]) -> None:
    """Set (a number) or remove (None) client-id quotas such as ``producer_byte_rate``."""
    args = ["--bootstrap-server", bootstrap_servers, "--alter",
            "--entity-type", "clients", "--entity-name", client_id]
    to_set = ",".join("%s=%s" % (k, v) for k, v in quotas.items() if v is not None)
    to_delete = ",".join(k for k, v in quotas.items() if v is None)
    if to_set:
        args += ["--add-config", to_set]
    if to_delete:
        args += ["--delete-config", to_delete]
    run_tool("kafka.admin.ConfigCommand", *args)
