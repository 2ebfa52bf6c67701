"""The package's one version string (read by the build for the distribution's metadata)."""
__version__ = "0.1.0"


def version():
    """This package's version string, like confluent_kafka.version()."""
    return __version__
