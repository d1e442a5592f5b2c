"""The patch engine (analyzers/common/patch.py): all or nothing, in git and outside it."""
from __future__ import annotations

import pytest

from mltdbg.analyzers.common.patch import Patch, PatchError, applies, apply_patch, revert_patch, unified_diff
from repo_helpers import git, make_repo

A, A2 = "lr = 0.1\nsteps = 10\n", "lr = 0.05\nsteps = 10\n"
B, B2 = "x = 1\ny = 2\n", "x = 1\ny = 3\n"


def two_file_patch() -> Patch:
    return Patch(diff=unified_diff("a.py", A, A2) + unified_diff("sub/b.py", B, B2), files=["a.py", "sub/b.py"],
                 summary="two files")


@pytest.mark.parametrize("in_git", [True, False])
def test_two_files_apply_and_revert_exactly(tmp_path, in_git):
    root = make_repo(tmp_path / "r", {"a.py": A, "sub/b.py": B}, init=in_git)
    p = two_file_patch()
    apply_patch(root, p)
    assert (root / "a.py").read_text() == A2 and (root / "sub" / "b.py").read_text() == B2
    revert_patch(root, p)
    assert (root / "a.py").read_text() == A and (root / "sub" / "b.py").read_text() == B


@pytest.mark.parametrize("in_git", [True, False])
def test_one_stale_file_means_nothing_is_written(tmp_path, in_git):
    root = make_repo(tmp_path / "r", {"a.py": A, "sub/b.py": "x = 1\ny = 99\n"}, init=in_git)
    with pytest.raises(PatchError):
        apply_patch(root, two_file_patch())
    assert (root / "a.py").read_text() == A                      # the first file matched but was not written
    assert (root / "sub" / "b.py").read_text() == "x = 1\ny = 99\n"


@pytest.mark.parametrize("in_git", [True, False])
def test_revert_refuses_when_the_file_changed_since(tmp_path, in_git):
    root = make_repo(tmp_path / "r", {"a.py": A, "sub/b.py": B}, init=in_git)
    p = two_file_patch()
    apply_patch(root, p)
    (root / "a.py").write_text("lr = 0.05\nsteps = 20\n")
    with pytest.raises(PatchError):
        revert_patch(root, p)
    assert (root / "sub" / "b.py").read_text() == B2              # nothing reverted


def test_no_newline_at_the_end_round_trips_outside_git(tmp_path):
    root = make_repo(tmp_path / "r", {"a.py": "lr = 0.1"}, init=False)
    p = Patch(diff=unified_diff("a.py", "lr = 0.1", "lr = 0.05"), files=["a.py"])
    assert "\\ No newline at end of file" in p.diff
    apply_patch(root, p)
    assert (root / "a.py").read_bytes() == b"lr = 0.05"
    revert_patch(root, p)
    assert (root / "a.py").read_bytes() == b"lr = 0.1"


def test_outside_git_a_path_that_climbs_out_is_refused(tmp_path):
    root = make_repo(tmp_path / "r", {"a.py": A}, init=False)
    (tmp_path / "victim.py").write_text(A)
    with pytest.raises(PatchError, match="outside the repository"):
        apply_patch(root, Patch(diff=unified_diff("../victim.py", A, A2), files=["../victim.py"]))
    assert (tmp_path / "victim.py").read_text() == A


def test_applies_checks_without_writing(tmp_path):
    root = make_repo(tmp_path / "r", {"a.py": A})
    diff = unified_diff("a.py", A, A2)
    assert applies(root, diff) and not applies(root, diff, reverse=True)
    assert (root / "a.py").read_text() == A
    (root / "a.py").write_text(A2)                                  # the user made the same edit by hand
    assert applies(root, diff, reverse=True) and not applies(root, diff)
    assert git(root, "status", "--porcelain").strip() == "M a.py"


@pytest.mark.parametrize("in_git", [True, False])
@pytest.mark.parametrize("edit", ["middle", "repeated_run", "last_line", "first_line"])
def test_big_file_diff_has_full_context_and_applies(tmp_path, in_git, edit):
    """The diff of a few edited lines in a long file is computed on the changed middle: its hunk
    headers still count from the top of the file, the context is whole (also where the edit sits in a
    run of equal lines that difflib may align either way), and it applies and reverts exactly."""
    lines = [f"x{i} = {i}\n" for i in range(3000)]
    lines[1500:1500] = ["\n"] * 8                # a run of blank lines
    old = "".join(lines)
    new_lines = list(lines)
    if edit == "middle":
        new_lines[2000] = "x1992 = -1\n"
    elif edit == "repeated_run":
        del new_lines[1504]                       # one blank line of the run
    elif edit == "last_line":
        new_lines[-1] = "tail = 0"                # and no newline at the end
    else:
        new_lines.insert(0, "import torch\n")
    new = "".join(new_lines)
    diff = unified_diff("a.py", old, new)
    hunks = [h for h in diff.splitlines() if h.startswith("@@")]
    assert len(hunks) == 1
    body = diff.split(hunks[0] + "\n", 1)[1].splitlines()
    changed = [i for i, ln in enumerate(body) if ln[:1] in "+-"]
    if edit in ("middle", "repeated_run"):
        assert changed[0] == 3 and len(body) - 1 - changed[-1] == 3     # three lines of context each side
    if edit == "middle":
        assert hunks[0] == "@@ -1998,7 +1998,7 @@"
    root = make_repo(tmp_path / "r", {"a.py": old}, init=in_git)
    p = Patch(diff=diff, files=["a.py"])
    apply_patch(root, p)
    assert (root / "a.py").read_text() == new
    revert_patch(root, p)
    assert (root / "a.py").read_text() == old
