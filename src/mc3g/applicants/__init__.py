"""Your own data: a file of past applicants that mc3g has never seen, from a first draft of the
causal knowledge to a fitted explainer, for the command line (``mc3g init``, ``check``, ``fit``,
``--explainer``) and for Python alike.

- :func:`read_data`: a CSV or Parquet file as pandas reads it, with what pandas lets pass
  silently (a ragged row, a column of numbers and text) refused at its line.
- :func:`draft`: causal knowledge drafted from the data for a person to review: kinds, ranges
  and steps, protections proposed (:func:`protection`) and dependencies found
  (:func:`dependencies`), each guess with its evidence.
- :func:`check_knowledge`: a knowledge file against a data file: every name and value the data
  lacks, every row that breaks a statement.
- :func:`fit_file`: an explainer fitted on a data file, with a model of one's own or FOLD-SE
  rules learned from it.
- :func:`people_of`, :func:`person_of`: the rows of an input file, or a person as JSON, for a
  fitted explainer.
"""

from .check import Broken, Report, check_knowledge
from .dependencies import Dependency, dependencies
from .draft import Draft, FeatureDraft, draft, inferred_step
from .files import DataFile, decision_classes, read_data
from .fitting import Fitted, favourable_value, fit_file
from .people import needed, people_of, person_of, row_of
from .protections import CHARACTERISTICS, Characteristic, Proposal, protection

__all__ = [
    "CHARACTERISTICS",
    "Broken",
    "Characteristic",
    "DataFile",
    "Dependency",
    "Draft",
    "FeatureDraft",
    "Fitted",
    "Proposal",
    "Report",
    "check_knowledge",
    "decision_classes",
    "dependencies",
    "draft",
    "favourable_value",
    "fit_file",
    "inferred_step",
    "needed",
    "people_of",
    "person_of",
    "protection",
    "read_data",
    "row_of",
]
