"""Arrow side of Consumer.consume_arrow(): the schema of the columns the compiled core fills
(defined beside them in the core; pyarrow is optional and imported on first use), named here for
the Spark source."""

from ._core import _arrow_schema as schema

__all__ = ["schema"]
