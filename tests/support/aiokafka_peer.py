"""The aiokafka the aiokafka face is compared with: 0.14, the version it follows. Python 3.9
installs aiokafka 0.12 (0.14 needs Python 3.10+), whose names and defaults differ: there the
comparisons skip (tests/skips-allowed.txt)."""

import pytest

VERSION = "0.14"


def real_aiokafka():
    """The installed aiokafka, or a skip (of the module, where called at import) when it is not
    0.14."""
    aiokafka = pytest.importorskip("aiokafka")
    if not aiokafka.__version__.startswith(VERSION + "."):
        pytest.skip("compares with aiokafka %s, the version the face follows; this Python has "
                    "aiokafka %s" % (VERSION, aiokafka.__version__), allow_module_level=True)
    return aiokafka
