"""The package's version, in a leaf module so that every layer can name it (setup.json,
run records, model headers) without importing the package's API."""

__version__ = "0.1.0"
