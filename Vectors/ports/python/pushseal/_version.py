"""The package version (equal to the repository's VERSION file; checked by scripts/check_version.py)."""

__version__ = "0.3.0"
