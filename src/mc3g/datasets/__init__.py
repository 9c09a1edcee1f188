"""The data sets of the MC3G experiments: ``load(name, split)`` gives a :class:`Dataset`.

UCI files are read from ``$MC3G_DATA_DIR`` (else the user cache) and fetched with
``mc3g data download`` (:func:`mc3g.datasets.download.download`); ``loan`` is generated.
"""

from .download import ChecksumError, DownloadError, default_data_dir, download
from .loaders import DataFormatError, DataNotFoundError, load, names
from .schema import Dataset, Feature, Schema, infer_schema

__all__ = [
    "ChecksumError",
    "DataFormatError",
    "DataNotFoundError",
    "Dataset",
    "DownloadError",
    "Feature",
    "Schema",
    "default_data_dir",
    "download",
    "infer_schema",
    "load",
    "names",
]
