"""Artifact readers, tried in ORDER; the first whose sniff() accepts a file reads it.

Binary/structured formats come first; the plain text reader is last and takes
any remaining text file (logs, code, configs) as a TextArtifact.
"""
from __future__ import annotations

import importlib

_NAMES = ["probe", "npdata", "tensorboard", "mlflow", "wandb", "consolelog", "tabular", "textlog"]

ORDER = [importlib.import_module(f"{__name__}.{_n}") for _n in _NAMES]
