"""The publish stage: gate the index datasets (``quality``), write every index where no reader is served
from, then make one release live in one atomic step.

Where things are: ``options`` (PublishOptions), ``report`` (PublishReport, PublishError), ``stage`` (the run,
``rollback``, ``retain_releases``), ``listing`` (the releases and versions a backend keeps).
"""

from indexing.publish.options import PublishOptions
from indexing.publish.report import IndexOutcome, PublishError, PublishReport
from indexing.publish.stage import read_index_data, retain_releases, rollback, run

__all__ = ["IndexOutcome", "PublishError", "PublishOptions", "PublishReport", "read_index_data", "retain_releases",
           "rollback", "run"]
