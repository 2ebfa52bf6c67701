"""The dead-letter-queue rule action (``DLQ``)."""
