"""The Claude engine, by concern:

- `engine`: `ClaudeEngine` (the agent loop and how a run ends), `select_engine` (auto/claude/offline);
- `prompt`: the system prompt, the submit tool, the overview of the run, answer validation;
- `transport`: requests, retries, streaming, error handling, the messages sent back;
- `cost`: the per-model table (prices, what each model accepts), usage and the token budget;
- `merge`: one ranking from the offline and the Claude diagnoses;
- `record`: `ClaudeRun`, the run's record returned with the diagnosis (`Diagnosis.engine_run`);
- `tools`: the read-only tools offered to the model and the checks on what it proposes.

    from mltdbg.playbooks.claude import ClaudeEngine, merge, select_engine
"""
from __future__ import annotations

from mltdbg.playbooks.claude.cost import (
           MODELS,
           PRICES_CHECKED,
           ModelInfo,
           Price,
           Usage,
           model_info,
)
from mltdbg.playbooks.claude.engine import (
           ENABLE_HINT,
           ClaudeEngine,
           ClaudeHypothesis,
           select_engine,
)
from mltdbg.playbooks.claude.merge import merge
from mltdbg.playbooks.claude.prompt import (
           SUBMIT,
           build_overview,
           submit_tool,
           system_prompt,
           validate_answer,
)
from mltdbg.playbooks.claude.record import ClaudeRun

__all__ = [
           "ENABLE_HINT",
           "MODELS",
           "PRICES_CHECKED",
           "SUBMIT",
           "ClaudeEngine",
           "ClaudeHypothesis",
           "ClaudeRun",
           "ModelInfo",
           "Price",
           "Usage",
           "build_overview",
           "merge",
           "model_info",
           "select_engine",
           "submit_tool",
           "system_prompt",
           "validate_answer",
]
