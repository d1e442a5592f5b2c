"""The fix gate: nothing is written to the user's files without a typed confirmation. UI-free.

    gate = FixGate(repo, session)
    gate.propose(patch, source="playbook", hypothesis_id="missing_zero_grad")   # a Patch (analyzers.common.patch)
    gate.apply(None)                         # -> NotConfirmed: nothing written
    token = gate.confirm(typed)              # only when the user typed CONFIRM_WORD ("apply")
    gate.apply(token)                        # writes exactly the diff (patch.apply_patch), fix_applied
    v = gate.verify("python train.py", "python -m pytest -q tests/test_x.py", timeout_s=600)
    if not v.passed: gate.revert()           # undoes exactly what was applied, fix_reverted
    gate.add_test("tests/test_x.py", text)   # a pending write: confirm + apply again (or with the fix)

A token is single-use and bound to the exact pending change (diff and test): a
change proposed after confirming needs a new confirmation. `from_worktree()`
takes the user's own edits (the working-tree diff) as the fix; those are
already in the tree, so applying them writes nothing.
"""
from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mltdbg.analyzers.common.gitrepo import changed_files, dirty_files, find_repo_root, run_git
from mltdbg.analyzers.common.patch import Patch, PatchError, applies, apply_patch, revert_patch
from mltdbg.sessions.checks import DEFAULT_TIMEOUT_S, CheckResult, CheckRun

CONFIRM_WORD = "apply"
VERIFY_OUTPUT_TAIL = 4000     # characters of each verification's output kept in verification_ran


class FixError(Exception):
    """The gate refused or could not do something; the message is one line for the user."""


class NotConfirmed(FixError):
    """apply() without a valid confirmation token."""


@dataclass(frozen=True)
class Confirmation:
    """Proof that the user typed the confirmation word for one exact pending change. Opaque to the UI."""

    token: str
    digest: str


@dataclass
class TestFile:
    """A test file to write with the fix (path relative to the repo root)."""

    __test__ = False          # not a pytest class
    path: str
    content: str
    written: bool = False

    @property
    def diff(self) -> str:
        lines = self.content.splitlines(keepends=True)
        body = "".join("+" + ln if ln.endswith("\n") else "+" + ln + "\n\\ No newline at end of file\n" for ln in lines)
        return (f"diff --git a/{self.path} b/{self.path}\nnew file mode 100644\n--- /dev/null\n+++ b/{self.path}\n"
                f"@@ -0,0 +1,{len(lines)} @@\n{body}")


@dataclass
class Verification:
    """Both reruns after a fix: passed only when every command exited 0 in time."""

    passed: bool
    results: list[CheckResult] = field(default_factory=list)
    missing_test: bool = False      # no test command was given: say so plainly


def patch_from_diff(diff: str, summary: str = "") -> Patch:
    """A Patch from unified diff text (a hypothesis's `patch`, a Claude proposal): its files are
    the `+++ b/...` paths (the `--- a/...` path for a deletion)."""
    files = []
    for old, new in re.findall(r"^--- (\S+)[^\n]*\n\+\+\+ (\S+)", diff, re.M):
        path = new if new != "/dev/null" else old
        path = path[2:] if path.startswith(("a/", "b/")) else path
        if path not in files:
            files.append(path)
    if not files:
        raise FixError("the proposed diff names no file")
    return Patch(diff=diff if diff.endswith("\n") else diff + "\n", files=files, summary=summary)


def fill_template(template: str, values: dict[str, str]) -> str:
    """A playbook's test_template with its `{name}` placeholders filled; other braces (f-strings,
    dict literals) are left alone, and placeholders without a value stay as they are. The template
    is Python: a value goes in only when it is a (dotted) Python name, so a file named
    `x; import os; os.system(...).py` cannot become code; otherwise the placeholder stays for the user."""
    def fill(m: re.Match) -> str:
        v = values.get(m.group(1))
        return str(v) if v is not None and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", str(v)) else m.group(0)
    return re.sub(r"\{(\w+)\}", fill, template)


def first_test_name(content: str) -> str | None:
    """The first `def test_...` name in a test file's text."""
    m = re.search(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(", content, re.M)
    return m.group(1) if m else None


class FixGate:
    """Proposes, confirms, applies, verifies and reverts one fix at a time in repo_root.

    session: a writable Session (or None) that records fix_proposed, fix_confirmed, fix_applied,
    test_added, verification_ran (and each rerun as a check), fix_reverted.
    Call verify() from a worker thread (it blocks); everything else is quick.
    """

    def __init__(self, repo_root: str | Path, session: Any = None):
        self.repo_root = Path(repo_root).resolve()
        self.session = session
        self.patch: Patch | None = None     # the fix, pending or applied
        self.source = "playbook"
        self.hypothesis_id: str | None = None
        self.applied = False
        self.in_tree = False                # the user's own edits: already there, nothing to write
        self.test: TestFile | None = None
        self.warnings: list[str] = []       # for the UI: e.g. your own edits in a fixed file
        self._secret = secrets.token_hex(16)
        self._issued: Confirmation | None = None
        self._run: CheckRun | None = None

    # ----- proposing ---------------------------------------------------------------------------
    def propose(self, patch: Patch, source: str = "playbook", hypothesis_id: str | None = None,
                test: tuple[str, str] | None = None) -> None:
        """Make `patch` (diff, files, summary) the pending fix; writes nothing.

        test: (path, content) of a test file to write together with the fix. Raises FixError when a
        fix is applied and not reverted yet.
        """
        if self.applied:
            raise FixError("a fix is already applied: revert it or commit it before proposing another")
        files = [_rel(f) for f in patch.files]
        for f in files:
            _inside(self.repo_root, f)
        self.patch, self.source, self.hypothesis_id = patch, source, hypothesis_id
        self.test = None
        self._issued = None
        self.in_tree = source == "user" and applies(self.repo_root, patch.diff, reverse=True)
        if test is not None:
            self._set_test(*test)
        self._record("fix_proposed", {"source": source, "diff": patch.diff, "files": files,
                                      "test_diff": self.test.diff if self.test else "",
                                      **({"hypothesis_id": hypothesis_id} if hypothesis_id else {}),
                                      **({"summary": patch.summary} if patch.summary else {})})

    def from_worktree(self) -> Patch:
        """The user's own uncommitted edits to tracked files as a Patch (not proposed yet). FixError
        outside a git repo or when there are no edits."""
        if find_repo_root(self.repo_root) != self.repo_root:
            raise FixError(f"{self.repo_root} is not the root of a git repo: your edits cannot be taken as a diff")
        d = run_git(self.repo_root, "diff", "--no-color", "--no-ext-diff", "--no-renames", "HEAD")
        if not d.ok:
            raise FixError("git diff failed: " + d.err.strip())
        files = changed_files(self.repo_root)
        if not d.out.strip():
            raise FixError("no uncommitted edits to tracked files: make your fix, then take it from the working tree")
        return Patch(diff=d.out, files=files, summary="your edits (working-tree diff)")

    def add_test(self, path: str, content: str) -> None:
        """A test file for the fix, written only by a confirmed apply(): with the fix when it is still
        pending, else on its own (confirm + apply again). Raises FixError when the file exists."""
        self._set_test(path, content)
        self._issued = None                 # what is pending changed: confirm again
        self._record("test_added", {"file": self.test.path, "diff": self.test.diff, "written": False})

    def _set_test(self, path: str, content: str) -> None:
        rel = _rel(path)
        p = _inside(self.repo_root, rel)
        if p.exists():
            raise FixError(f"{rel} already exists: choose another name for the test file")
        self.test = TestFile(rel, content if content.endswith("\n") else content + "\n")

    @property
    def pending(self) -> list[str]:
        """Files the next confirmed apply() will write (empty: nothing pending)."""
        out = list(self.patch.files) if self.patch is not None and not self.applied and not self.in_tree else []
        return out + ([self.test.path] if self.test and not self.test.written else [])

    # ----- the gate ----------------------------------------------------------------------------
    def confirm(self, typed: str) -> Confirmation:
        """A token for apply(), given only when the user typed CONFIRM_WORD exactly (spaces around are
        ignored). Anything else raises NotConfirmed. Records fix_confirmed."""
        if typed.strip() != CONFIRM_WORD:
            raise NotConfirmed(f"type {CONFIRM_WORD!r} to confirm writing {', '.join(self.pending) or 'the fix'}")
        if self.patch is None and self.test is None:
            raise FixError("nothing is proposed")
        self._issued = Confirmation(secrets.token_hex(16), self._digest())
        if self.patch is not None and not self.applied:
            self._record("fix_confirmed", {"files": self.pending, "note": "typed confirmation"})
        # (a test written on its own is recorded as confirmed in its test_added event)
        return self._issued

    def apply(self, confirmation: Confirmation | None) -> list[str]:
        """Write exactly the pending change (fix diff and/or test file); returns the files written.

        Refuses (NotConfirmed) without the token from confirm() for this exact change, and (FixError)
        when the fix does not apply to the files as they are: e.g. your uncommitted edits conflict.
        """
        if confirmation is None or self._issued is None or confirmation != self._issued \
                or not secrets.compare_digest(confirmation.digest, self._digest()):
            raise NotConfirmed(f"not confirmed: nothing was written. Type {CONFIRM_WORD!r} to confirm")
        self._issued = None                 # single use
        written: list[str] = []
        if self.patch is not None and not self.applied:
            if not self.in_tree:
                dirty = dirty_files(self.repo_root, self.patch.files)
                try:
                    apply_patch(self.repo_root, self.patch)
                except PatchError as e:
                    why = (f"{', '.join(dirty)} {'has' if len(dirty) == 1 else 'have'} uncommitted changes that "
                           f"conflict with the fix; commit or stash them, or edit the fix by hand") if dirty \
                        else f"the fix no longer matches the files ({e})"
                    raise FixError(f"not applied: {why}. Nothing was written.") from e
                if dirty:
                    self.warnings.append(f"{', '.join(dirty)} also held your own uncommitted edits; the fix went in "
                                         f"beside them and a commit of the file will carry both")
                written += list(self.patch.files)
            self.applied = True
            self._record("fix_applied", {"files": list(self.patch.files),
                                         **({"note": "your edits, already in the working tree"} if self.in_tree else {})})
        if self.test is not None and not self.test.written:
            p = _inside(self.repo_root, self.test.path)
            if p.exists():
                raise FixError(f"{self.test.path} appeared meanwhile: the test was not written")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(self.test.content, encoding="utf-8")
            self.test.written = True
            written.append(self.test.path)
            self._record("test_added", {"file": self.test.path, "diff": self.test.diff, "written": True,
                                        "confirmed": True})
        return written

    def revert(self) -> list[str]:
        """Undo exactly what apply() wrote (the fix diff, the test file); returns the files restored.
        FixError when the files changed since (nothing is touched then)."""
        done: list[str] = []
        if self.test is not None and self.test.written:
            p = _inside(self.repo_root, self.test.path)
            if p.exists() and p.read_text(encoding="utf-8") != self.test.content:
                raise FixError(f"{self.test.path} was edited after it was written: not removed (nothing reverted)")
        if self.patch is not None and self.applied and not self.in_tree:
            try:
                revert_patch(self.repo_root, self.patch)
            except PatchError as e:
                raise FixError(f"cannot revert: the fixed files changed since the fix was applied ({e}); "
                               f"nothing was reverted") from e
            done += list(self.patch.files)
        if self.test is not None and self.test.written:
            _inside(self.repo_root, self.test.path).unlink(missing_ok=True)
            self.test.written = False
            done.append(self.test.path)
        if self.patch is not None and self.applied:
            self.applied = False
            self._record("fix_reverted", {"files": done, **({"note": "your edits were left in place"} if self.in_tree else {})})
        return done

    # ----- verification ------------------------------------------------------------------------
    def verify(self, failing_command: str, test_command: str | None = None,
               timeout_s: float | None = DEFAULT_TIMEOUT_S, on_line: Callable[[str], None] | None = None,
               env: dict[str, str] | None = None) -> Verification:
        """Rerun the failing command (or a shorter reproduction) and the test command in the repo;
        each is a CheckRun recorded as a check and as verification_ran. Blocking: call from a worker.
        env: extra environment (the user's interpreter as `python`: mltdbg.sessions.interpreter)."""
        results = []
        round_id = secrets.token_hex(4)   # groups this call's events: SessionState.last_verifications
        for cmd in [failing_command] + ([test_command] if test_command else []):
            self._run = CheckRun(cmd, self.repo_root, timeout_s, session=self.session, on_line=on_line, env=env,
                                 record={"purpose": "verification"})
            r = self._run.run()
            results.append(r)
            self._record("verification_ran", {"command": cmd, "exit_code": r.exit_code, "passed": r.passed,
                                              "check_id": r.check_id, "output": r.output[-VERIFY_OUTPUT_TAIL:],
                                              "round": round_id,
                                              **({"status": r.status} if r.status != "done" else {})})
            if r.cancelled:
                break
        self._run = None
        return Verification(all(r.passed for r in results) and len(results) == 1 + bool(test_command), results,
                            missing_test=not test_command)

    def cancel(self) -> None:
        """Cancel a verification in progress (from any thread)."""
        run = self._run
        if run is not None:
            run.cancel()

    # ----- resume ------------------------------------------------------------------------------
    @classmethod
    def resume(cls, repo_root: str | Path, session: Any) -> "FixGate":
        """A gate in the state the session's log left it: the latest fix applied or pending (a pending
        fix must be confirmed again; confirmations never survive a restart)."""
        gate = cls(repo_root, session)
        fx = session.state.fix
        if fx is not None and fx.status != "reverted":
            gate.patch = Patch(diff=fx.diff, files=list(fx.files), summary="")
            gate.source, gate.hypothesis_id = fx.source, fx.hypothesis_id
            gate.applied = fx.status == "applied"
            gate.in_tree = fx.source == "user" and applies(gate.repo_root, fx.diff, reverse=True)
            if getattr(fx, "test_file", None):
                p = _inside(gate.repo_root, fx.test_file)
                content = added_text(fx.test_diff)
                gate.test = TestFile(fx.test_file, content, written=p.exists() and p.read_text(encoding="utf-8") == content)
        return gate

    # ----- helpers -----------------------------------------------------------------------------
    def _digest(self) -> str:
        h = hashlib.sha256(self._secret.encode())
        if self.patch is not None and not self.applied:
            h.update(b"fix\0" + self.patch.diff.encode("utf-8"))
        if self.test is not None and not self.test.written:
            h.update(b"test\0" + self.test.path.encode() + b"\0" + self.test.content.encode("utf-8"))
        return h.hexdigest()

    def _record(self, type: str, payload: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.append(type, payload)


def _rel(path: str | Path) -> str:
    return Path(path).as_posix().removeprefix("./")


def _inside(root: Path, rel: str) -> Path:
    p = (root / rel).resolve()
    if p == root or root not in p.parents:
        raise FixError(f"{rel} is outside the repository {root}")
    return p


def added_text(diff: str) -> str:
    """The new file's text from a new-file diff (TestFile.diff)."""
    out = []
    for ln in diff.splitlines(keepends=True):
        if ln.startswith("+") and not ln.startswith("+++"):
            out.append(ln[1:])
        elif ln.startswith("\\") and out:
            out[-1] = out[-1].rstrip("\n")
    return "".join(out)
