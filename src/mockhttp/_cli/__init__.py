"""The command line: mockhttp serve, validate, record, check."""

from ._main import main as main

__all__ = ["main"]
