"""Notices of adverse action: what a lender sends a person its model refuses, from their answer.

- :class:`Notice`: one person's notice (:meth:`Notice.of` an answer; :func:`notice` explains
  and builds it): at most four specific principal reasons in the person's words, the
  least-effort plan and its steps, when to apply again, and what identifies the decision; as
  text, HTML for the person and JSON for the lender's records (format ``mc3g.notice``).
- :func:`vague`: whether a reason says nothing specific (refused in a notice).
"""

from .notice import FORMAT, Notice, NoticeReason, Plan, notice, vague

__all__ = ["FORMAT", "Notice", "NoticeReason", "Plan", "notice", "vague"]
