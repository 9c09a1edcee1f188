"""A recourse audit of a batch's results, by group: who is refused, who has a way out, what it
costs them (the burden), what they are asked to act on, and how each group compares with the
best-off one.

- :func:`audit`: read a results folder (pandas over its Parquet files) into an :class:`Audit`,
  one table per grouping; :class:`Band` cuts a numeric column into bands; :func:`parse_groupings`
  reads ``sex,race,sex+race``.
- :func:`write_report`: ``audit.md`` with the tables and PNG plots (matplotlib).
"""

from .report import COLUMNS, cells, headings, write_report
from .table import FEWEST, Audit, Band, action_shares, audit, group_label, group_table, parse_groupings, precluded, preclusions, read_people, summary_rows

__all__ = [
    "COLUMNS",
    "FEWEST",
    "Audit",
    "Band",
    "action_shares",
    "audit",
    "cells",
    "group_label",
    "group_table",
    "headings",
    "parse_groupings",
    "precluded",
    "preclusions",
    "read_people",
    "summary_rows",
    "write_report",
]
