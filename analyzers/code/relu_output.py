"""`code:relu_output`: the model's output goes through a ReLU.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_relu_output(f)` -> Findings.

A ReLU after the last layer clips every prediction to >= 0, and an output unit whose input goes
negative gives 0 with no gradient: a regression net that predicts 0 for every input, heatmaps that
come out all zero, logits that cannot go below 0 and settle on one class. The model's output is read
by code/output_act.py (a model's `nn.Sequential` ending in nn.ReLU(), a model class's forward
returning a ReLU, Keras' last layer with `activation="relu"`); a feature block ending in a ReLU is
normal and is not read there.
"""
from __future__ import annotations

from mltdbg.analyzers.code.index import MEDIUM, Finding, PyFile
from mltdbg.analyzers.code.output_act import model_outputs

_WHY = ("every prediction is clipped to >= 0, and an output unit that goes negative outputs 0 with no gradient"
        " (predictions stuck at 0)")


def check_relu_output(f: PyFile) -> list[Finding]:
    """The first output found with a ReLU (one finding per file)."""
    return [Finding("code:relu_output", MEDIUM, line, f"{where} ends in a ReLU: {_WHY}")
            for _, line, where in model_outputs(f, ("relu", "relu6"))[:1]]
