"""The package version: one place, read by the build (hatch) and by every output that names the tool."""

__version__ = "0.1.0"
