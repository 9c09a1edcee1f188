"""The data sets of the MC3G experiments: ``load(name, split)`` gives a :class:`Dataset`.

UCI files are read from ``$MC3G_DATA_DIR`` (else the user cache) and fetched with
``mc3g data download`` (:func:`mc3g.datasets.download.download`); ``loan`` is generated, and
:data:`JOHN` is the paper's refused applicant in it.
"""

from ..exceptions import ChecksumError, DataFormatError, DataNotFoundError, DownloadError
from .dataset import Dataset
from .download import default_data_dir, download
from .loaders import load, names
from .loan import JOHN

__all__ = [
    "JOHN",
    "ChecksumError",
    "DataFormatError",
    "DataNotFoundError",
    "Dataset",
    "DownloadError",
    "default_data_dir",
    "download",
    "load",
    "names",
]
