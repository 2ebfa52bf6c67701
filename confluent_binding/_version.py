"""The package's one version string (read by the build for the distribution's metadata)."""
__version__ = "0.1.0"
