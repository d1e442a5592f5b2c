"""Redaction on the adversarial corpus (tests/adversarial/secrets.jsonl + not_secrets.txt): what
it misses, what it wrongly masks, and microseconds per line; the same for detect-secrets' plugins
when that package is importable (it is not a dependency: install it in a throwaway venv and run
this script from there with PYTHONPATH pointing at an installed mltdbg).

Run: .venv/bin/python benchmarks/bench_redact.py
Measured (2026-12, detect-secrets 1.5.0 default plugins and filters, scanning a .log file):
  ours           missed 0/46, benign changed 0/28, 52 us/line
  detect-secrets missed 19/46, benign flagged 1/28 (password = getpass.getpass()), 515 us/line
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from mltdbg.analyzers.common.redact import redact

ADV = Path(__file__).resolve().parents[1] / "tests" / "adversarial"
CASES = [json.loads(x) for x in (ADV / "secrets.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
BENIGN = [x for x in (ADV / "not_secrets.txt").read_text(encoding="utf-8").splitlines() if x and not x.startswith("#")]
REPEAT = 200


def ours() -> None:
    missed = [c["shape"] for c in CASES if c["secret"] in redact(c["text"])]
    changed = [b for b in BENIGN if redact(b) != b]
    lines = ([c["text"].replace("\n", " ") for c in CASES] + BENIGN) * REPEAT
    t = time.perf_counter()
    for line in lines:
        redact(line)
    dt = time.perf_counter() - t
    print(f"ours: missed {len(missed)}/{len(CASES)} {missed}; benign changed {len(changed)}/{len(BENIGN)}; "
          f"{dt / len(lines) * 1e6:.1f} us/line")


def detect_secrets() -> None:
    try:
        from detect_secrets import SecretsCollection  # noqa: PLC0415 - optional, only for this comparison
        from detect_secrets.settings import default_settings  # noqa: PLC0415 - optional
    except ImportError:
        print("detect-secrets: not installed (skipped)")
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-redact-"))

    def found(text: str) -> list[str]:
        p = tmp / "x.log"
        p.write_text(text + "\n", encoding="utf-8")
        sc = SecretsCollection()
        sc.scan_file(str(p))
        return [s.secret_value for s in sc[str(p)] if s.secret_value]

    def hit(secret: str, values: list[str]) -> bool:
        return any(secret in v or (v in secret and len(v) >= 6) for v in values)

    with default_settings():
        missed = [c["shape"] for c in CASES if not hit(c["secret"], found(c["text"]))]
        flagged = [b for b in BENIGN if found(b)]
        lines = ([c["text"].replace("\n", " ") for c in CASES] + BENIGN) * REPEAT
        p = tmp / "big.log"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        t = time.perf_counter()
        SecretsCollection().scan_file(str(p))
        dt = time.perf_counter() - t
    print(f"detect-secrets: missed {len(missed)}/{len(CASES)} {missed}; benign flagged {len(flagged)}/{len(BENIGN)} "
          f"{flagged}; {dt / len(lines) * 1e6:.1f} us/line")


if __name__ == "__main__":
    ours()
    detect_secrets()
