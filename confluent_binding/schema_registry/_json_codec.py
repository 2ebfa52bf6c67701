"""The JSON codec the JSON serdes write and read with (confluent-kafka's choice): orjson where it
imports, else the standard library's ``json`` with the same compact, non-ASCII-escaping output.
Chosen when :func:`select` is called (``common.json_schema`` calls it when it loads)."""

import logging
from typing import Any, Callable, Tuple, Union


def select() -> Tuple[bool, Callable[[Union[str, bytes, bytearray]], Any], Callable[[Any], str]]:
    """``(orjson is used, loads, dumps)``: ``dumps`` gives a str."""
    try:
        import orjson

        def loads(data: Union[str, bytes, bytearray]) -> Any:
            return orjson.loads(data)

        def dumps(obj: Any) -> str:
            return orjson.dumps(obj).decode("utf-8")

        return True, loads, dumps
    except Exception as exc:
        if not isinstance(exc, ImportError):
            # not installed is the usual case; installed but broken deserves a word
            logging.getLogger(__name__).warning(
                "orjson is installed but failed to import; the JSON serdes use the json module",
                exc_info=True)
    import json

    def std_loads(data: Union[str, bytes, bytearray]) -> Any:
        return json.loads(data)

    def std_dumps(obj: Any) -> str:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)

    return False, std_loads, std_dumps


HAS_ORJSON, json_loads, json_dumps = select()
