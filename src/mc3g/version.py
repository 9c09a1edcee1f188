"""The version of mc3g, in a module of its own so that any part of the package can record it without importing the whole."""

__version__ = "0.1.0"
