"""The data sets of the MC3G experiments: ``load(name, split)`` gives a :class:`Dataset`.

UCI files are read from ``$MC3G_DATA_DIR`` (else the user cache) and fetched with
``mc3g data download`` (:func:`mc3g.datasets.download.download`); ``loan`` is generated, and
:data:`JOHN` is the paper's refused applicant in it.  What mc3g ships for each data set and
split, its causal knowledge and each profile's settings, is read by :mod:`.shipped`.
"""

from ..exceptions import ChecksumError, DataFormatError, DataNotFoundError, DownloadError
from .dataset import Dataset
from .download import default_data_dir, download
from .loaders import load, names
from .loan import JOHN
from .shipped import shipped_knowledge, shipped_profiles

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
    "shipped_knowledge",
    "shipped_profiles",
]
