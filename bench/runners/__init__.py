"""One runner module per client (``python -m runners.<client>``, run from bench/); the shared
protocol in ``protocol``, the shared loops in ``skeleton``."""
