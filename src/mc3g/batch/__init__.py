"""A lender's whole portfolio: many people explained on a Dask cluster, resumable partition by
partition, into a folder of Parquet files with one row per person.

- :class:`Batch`: one run (plan the input, lock and check the results folder, ship the
  explainer once, explain what is left); :func:`dask_client`: a ``LocalCluster`` or an existing
  cluster, the same code path for both.
- :func:`input_files` / :func:`plan_input`: CSV or Parquet files, a folder or a glob, cut into
  :class:`Partition` s that come out the same on every run.
- :class:`ResultsFolder`: the manifest of settings, the lock, the partitions kept on a rerun;
  :func:`partition_files` and :func:`read_manifest` for readers such as the audit.
- :data:`RESULT_COLUMNS`: what each row holds besides the person's input columns;
  :func:`audited_columns`: those the audit reads, of answers in memory.

Importing this package loads neither dask, distributed nor pyarrow; a run does.
"""

from .inputs import RESULT_COLUMNS, Input, Partition, input_files, plan_input
from .run import PARTITION_ROWS, Batch, Summary, dask_client
from .store import AUDIT, MANIFEST, ResultsFolder, partition_files, read_manifest
from .work import audited_columns

__all__ = [
    "AUDIT",
    "MANIFEST",
    "PARTITION_ROWS",
    "RESULT_COLUMNS",
    "Batch",
    "Input",
    "Partition",
    "ResultsFolder",
    "Summary",
    "audited_columns",
    "dask_client",
    "input_files",
    "partition_files",
    "plan_input",
    "read_manifest",
]
