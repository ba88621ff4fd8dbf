"""Matchers for request fields: ``match.equal``, ``match.json_path`` and friends.

Combine them with ``&`` (all), ``|`` (any) and ``~`` (not).  Each one explains a miss, and
the server puts those explanations in the 404 it sends for an unmatched request.
"""

from ._core._match import MATCHERS as MATCHERS
from ._core._match import MISSING as MISSING
from ._core._match import Matcher as Matcher
from ._core._match import absent as absent
from ._core._match import all_of as all_of
from ._core._match import any_of as any_of
from ._core._match import contains as contains
from ._core._match import ends_with as ends_with
from ._core._match import equal as equal
from ._core._match import exists as exists
from ._core._match import json_equal as json_equal
from ._core._match import json_path as json_path
from ._core._match import not_ as not_
from ._core._match import regex as regex
from ._core._match import starts_with as starts_with

__all__ = [
    "MATCHERS",
    "MISSING",
    "Matcher",
    "absent",
    "all_of",
    "any_of",
    "contains",
    "ends_with",
    "equal",
    "exists",
    "json_equal",
    "json_path",
    "not_",
    "regex",
    "starts_with",
]
