"""The JSONata rule executor (``JSONATA``)."""
