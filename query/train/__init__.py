"""The train stage: the learned page ranker for the live release, from the corpus's own questions.

Where things are: ``options`` (TrainOptions), ``report`` (TrainReport), ``stage`` (the run, ``train``,
``load_pairs``); the model and its features: ``query.ranker``.
"""

from query.train.options import TrainOptions
from query.train.report import TrainReport
from query.train.stage import load_pairs, run, train

__all__ = ["TrainOptions", "TrainReport", "load_pairs", "run", "train"]
