"""Cloud KMS drivers import their SDK when a client is first made, not when they load."""

import importlib

from tink import TinkError


def require(module: str, kms: str, extra: str):
    """``module`` imported; TinkError naming what to install when it is absent."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise TinkError("the {} driver needs the {} package: pip install "
                        "confluent-binding[{}] ({})".format(kms, module.split(".")[0], extra, e))
