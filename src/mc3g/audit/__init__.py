"""A recourse audit of a batch's results, by group: who is refused, who has a way out, what it
costs them (the burden), what they are asked to act on, and how each group compares with the
best-off one.

- :func:`audit`: read a results folder (pandas over its Parquet files) into an :class:`Audit`,
  one table per grouping; :class:`Band` cuts a numeric column into bands; :func:`parse_groupings`
  reads ``sex,race,sex+race``.
- :func:`recourse_summary`: a few segment -> action rules covering the refused people's plans;
  :func:`weakest_subgroups`: the segments whose recourse within a cost budget is worst, both
  found by frequent patterns of the people's columns (:class:`Summary`, :class:`SummaryRule`);
  :func:`portfolio`, both for people answered here (the service), :func:`patterns_document`
  both as JSON.
- :func:`write_report`: ``audit.md`` with the tables and PNG plots (matplotlib).
"""

from .patterns import Summary, SummaryRule, action_of, in_segment, portfolio, recourse_summary, segments, weakest_subgroups
from .report import COLUMNS, WEAKEST, cells, headings, summary_lines, weakest_cells, write_report
from .table import (
    FEWEST,
    Audit,
    Band,
    action_shares,
    audit,
    characteristics,
    defined,
    group_label,
    group_table,
    parse_groupings,
    patterns_document,
    precluded,
    preclusions,
    read_people,
    summary_rows,
    turned,
    unproved,
)

__all__ = [
    "COLUMNS",
    "WEAKEST",
    "FEWEST",
    "Summary",
    "SummaryRule",
    "Audit",
    "Band",
    "action_of",
    "patterns_document",
    "portfolio",
    "action_shares",
    "audit",
    "cells",
    "characteristics",
    "defined",
    "group_label",
    "group_table",
    "headings",
    "in_segment",
    "parse_groupings",
    "precluded",
    "preclusions",
    "read_people",
    "recourse_summary",
    "segments",
    "summary_lines",
    "summary_rows",
    "turned",
    "unproved",
    "weakest_cells",
    "weakest_subgroups",
    "write_report",
]
