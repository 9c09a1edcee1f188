"""Records of answers: a batch's results file, one JSON line per person behind a header of the
settings every answer in it was made under, so a run that stops resumes without mixing settings
or losing, skipping or repeating anyone.

- :func:`open_results`: a results file, resumed only under the settings (:func:`batch_settings`)
  its answers were made under; :class:`ResultsFile`: one open for writing.
- :func:`settings_hash`: one name for a set of settings; :func:`check_settings`: a refusal naming
  each setting that differs; :func:`frame_sha256`: a fingerprint of the rows positions refer to;
  :func:`lock_file`: one writer at a time.  The results folder of a Dask batch
  (:mod:`mc3g.batch`) keeps the same rules.
"""

from .results import ResultsFile, lock_file, open_results
from .settings import batch_settings, check_settings, frame_sha256, settings_hash

__all__ = ["ResultsFile", "batch_settings", "check_settings", "frame_sha256", "lock_file", "open_results", "settings_hash"]
