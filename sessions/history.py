"""What this repo's earlier sessions learned, as lessons for a new diagnosis.

In:  a repo root. Its sessions (`.mltdbg/sessions/*/events.jsonl`) are read with the sessions
     package's own reader (`log.read_log` + `state.fold`), so damaged lines, events of a newer
     mltdbg and unknown event types are handled the way everywhere else does.
Out: `session_lessons(root, exclude=None) -> LessonSet`: one `Lesson` (mltdbg.analyzers.lessons) per
     cause a session confirmed (a `confirmed` verdict, or a fix applied for it), citing the verdict's
     line of events.jsonl (quote: that line's own text, so the verifier can re-read it), with the
     check that settled it and the fix that was applied;
     `repo_lessons(root, exclude=None) -> LessonSet`: CLAUDE.md's lessons and the sessions' together;
     a session whose lesson line is in CLAUDE.md enriches that entry (cause id, check, fix) instead of
     being listed twice.

Bounded: the newest MAX_SESSIONS sessions; an events file over MAX_EVENTS_BYTES is skipped with a note.
"""
from __future__ import annotations

from pathlib import Path

from mltdbg.analyzers.lessons import Lesson, LessonSet, facts_of_text, fill_names, read_claude_md
from mltdbg.sessions.log import SCHEMA_VERSION, read_log
from mltdbg.sessions.state import SessionState, fold
from mltdbg.sessions.store import EVENTS_FILE, TOOL_DIR, session_refs, sessions_dir

# Sessions read per repo (the newest): a repo with thousands of sessions still answers at once.
MAX_SESSIONS = 200
# An events file this big is mostly check output; reading it for one verdict is not worth the wait.
MAX_EVENTS_BYTES = 64 * 1024 * 1024
QUOTE_MAX = 200


def session_lessons(repo_root: str | Path | None, exclude: str | None = None) -> LessonSet:
    """Lessons from the repo's earlier sessions (`exclude`: the current session's id)."""
    out = LessonSet()
    if repo_root is None:
        return out
    root = Path(repo_root)
    refs = [r for r in session_refs(sessions_dir(root)) if r.id != exclude]
    if len(refs) > MAX_SESSIONS:
        out.notes.append(f"{len(refs)} earlier sessions; lessons read from the newest {MAX_SESSIONS}")
        refs = refs[-MAX_SESSIONS:]
    for ref in refs:
        rel = f"{TOOL_DIR}/sessions/{ref.id}/{EVENTS_FILE}"
        try:
            size = ref.events.stat().st_size
        except OSError:
            continue
        if size > MAX_EVENTS_BYTES:
            out.notes.append(f"{rel}: {size / 2**20:.0f} MB; skipped for lessons")
            continue
        loaded = read_log(ref.events, rel)
        if loaded.newest_version > SCHEMA_VERSION:
            out.notes.append(f"{rel}: written by a newer mltdbg (event schema {loaded.newest_version}); its lessons "
                             f"are read from what this version understands")
        st = fold(loaded.events)
        if not loaded.events:
            continue
        out.lessons += _lessons_of(st, ref.events, rel, ref.id)
    return out


def _lessons_of(st: SessionState, events: Path, rel: str, sid: str) -> list[Lesson]:
    causes: dict[str, int] = {}          # hypothesis id -> seq of the event that confirmed it
    for hid, v in st.verdicts.items():
        if v.verdict == "confirmed" and hid:
            causes[hid] = v.seq
    for fx in st.fixes:
        if fx.status == "applied" and fx.hypothesis_id and fx.hypothesis_id not in causes:
            causes[fx.hypothesis_id] = next((h["seq"] for h in fx.history if h.get("status") == "applied"), 0)
    if not causes:
        return []
    lines = _lines_by_seq(events, set(causes.values()))
    out = []
    for hid, seq in causes.items():
        ln, raw = lines.get(seq, (None, None))
        if ln is None:
            continue
        h = next((x for d in reversed(st.diagnoses) for x in d.hypotheses if x.id == hid), None)
        text = (st.lesson or {}).get("text") or (f"{h.title or hid}: {h.issue}" if h is not None else hid)
        at = raw.find('"type"')
        quote = raw[at if at >= 0 else 0:][:QUOTE_MAX]
        ls = Lesson(text=" ".join(str(text).split())[:2000], source=rel, line=ln, quote=quote,
                    date=st.created_at[:10] or None, date_raw=st.created_at[:10] or None, origin="session",
                    cause_ids=[hid], confirmed=True, session_id=sid)
        trace = st.capture.get("happened", "")
        quotes = " ".join(e.quote or "" for e in (h.evidence if h is not None else []))
        fill_names(ls, f"{ls.text} {h.issue if h is not None else ''} {quotes}")
        f = facts_of_text(trace)
        ls.files = list(dict.fromkeys(ls.files + sorted(f.files)))[:30]
        ls.names = list(dict.fromkeys(ls.names + sorted(f.functions)))[:30]
        ls.errors = list(dict.fromkeys(ls.errors + sorted(f.errors)))[:30]
        ls.check, ls.check_command = _check_of(st, hid)
        ls.fix, ls.commit = _fix_of(st, hid)
        out.append(ls)
    return out


def _lines_by_seq(events: Path, seqs: set[int]) -> dict[int, tuple[int, str]]:
    """{seq: (1-based line, the line's text)} for the events with these seqs (as written on disk)."""
    out: dict[int, tuple[int, str]] = {}
    try:
        data = events.read_bytes()
    except OSError:
        return out
    keys = {f'"seq":{s},'.encode(): s for s in seqs}
    for i, raw in enumerate(data.split(b"\n")):
        head = raw[:40]
        for k, s in keys.items():
            if s not in out and k in head:
                out[s] = (i + 1, raw.decode("utf-8", errors="replace"))
        if len(out) == len(keys):
            break
    return out


def _check_of(st: SessionState, hid: str) -> tuple[str | None, str | None]:
    """The check that settled it: the command run for it (or planned) and the verdict's note."""
    ran = [c for c in st.checks_for(hid) if c.status == "done"]
    cmd = ran[-1].command if ran else (st.plans[hid].command if hid in st.plans and st.plans[hid].command else None)
    v = st.verdicts.get(hid)
    note = v.note.strip() if v is not None and v.note else ""
    if cmd is None and not note:
        return None, None
    words = f"`{cmd}`" if cmd else ""
    if note:
        words = f"{words} ({note})" if words else note
    return words, cmd


def _fix_of(st: SessionState, hid: str) -> tuple[str | None, str | None]:
    fx = next((f for f in reversed(st.fixes) if f.status == "applied" and f.hypothesis_id in (hid, None)), None)
    if fx is None:
        return None, None
    commit = st.commits[-1] if st.commits else None
    subject = commit["message"].splitlines()[0].strip() if commit and commit.get("message") else ""
    files = ", ".join(fx.files[:3]) if fx.files else "the code"
    words = subject or f"changed {files}"
    if subject and fx.files:
        words += f" ({files})"
    return words, (commit or {}).get("sha", "")[:10] or None


def repo_lessons(repo_root: str | Path | None, exclude: str | None = None) -> LessonSet:
    """CLAUDE.md's lessons and the earlier sessions', merged (see the module docstring)."""
    md = read_claude_md(repo_root)
    sess = session_lessons(repo_root, exclude)
    out = LessonSet(list(md.lessons), md.notes + sess.notes, md.info + sess.info)
    for s in sess.lessons:
        key = " ".join(s.text.split())
        twin = next((c for c in md.lessons if key and (key in " ".join(c.text.split()) or
                                                        " ".join(c.text.split()) in key)), None) \
            if s.text and s.text not in s.cause_ids else None
        if twin is not None:
            twin.cause_ids = list(dict.fromkeys(twin.cause_ids + s.cause_ids))
            twin.check = twin.check or s.check
            twin.check_command = twin.check_command or s.check_command
            twin.fix = twin.fix or s.fix
            twin.commit = twin.commit or s.commit
            twin.session_id = twin.session_id or s.session_id
            for a in ("files", "names", "errors"):
                setattr(twin, a, list(dict.fromkeys(getattr(twin, a) + getattr(s, a)))[:30])
            continue
        out.lessons.append(s)
    return out
