"""Concerns that every layer needs, kept at the bottom so imports point one way.

- `redact`: secret masking before anything is stored or sent.
- `safety`: the one command-safety classifier (checks, Claude proposals, the fix gate).
- `gitrepo`: the one git module and the one way to find the repo root.
- `patch`: the unified-diff apply/revert engine used by codemods and the fix gate.
- `sanitize`: untrusted text that meets a terminal or markup: control characters shown, never obeyed.
- `yamlsafe`: YAML from untrusted files with size, alias-expansion and depth limits.
"""
