"""The shell: the entry points on top of the stages.

``cli`` (the ``secplat`` command), ``runner`` (every stage as ``run(lake, options) -> StageReport`` built
from settings, and the nightly chain) and ``tasks`` (what each Airflow task calls). The shell only calls
stages; nothing below it imports it.
"""
