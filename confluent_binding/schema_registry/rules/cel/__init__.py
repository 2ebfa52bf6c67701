"""CEL rule executors: ``CelExecutor`` (``CEL``) and ``CelFieldExecutor`` (``CEL_FIELD``)."""
