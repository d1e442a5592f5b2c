"""Helpers for gen.py: synthetic data, running user scripts, thread formatting."""
import contextlib, io, linecache, os, sys, types, warnings, textwrap
import numpy as np
import torch

VENV_SITE = os.path.dirname(os.path.dirname(torch.__file__))


def teacher_data(seed, n, d, k, hidden=24, noise=0.35, scale=1.0):
    """Labels from a random teacher MLP (learnable, not trivially)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32) * scale
    W1 = rng.standard_normal((d, hidden)) / np.sqrt(d)
    W2 = rng.standard_normal((hidden, k)) * 1.5
    logits = np.tanh(X / scale @ W1 * 1.5) @ W2
    logits = logits + noise * rng.gumbel(size=logits.shape)
    y = logits.argmax(1).astype(np.int64)
    return X, y


def fake_module(name, **fns):
    m = types.ModuleType(name)
    for k, v in fns.items():
        setattr(m, k, v)
    sys.modules[name] = m
    return m


def run_script(src, fname, user_site, extra_globals=None, replace=None):
    """Execute a user script text as if it were `python fname 2>&1`.
    Returns (combined_output, exception_text or None, namespace)."""
    if replace:
        for a, b in replace:
            assert a in src, a
            src = src.replace(a, b)
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    code = compile(src, fname, "exec")
    g = {"__name__": "__main__", "__file__": fname}
    if extra_globals:
        g.update(extra_globals)
    buf = io.StringIO()
    exc = None
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                exec(code, g)
            except Exception:
                import traceback
                exc = traceback.format_exc()
    out = buf.getvalue()
    fix = lambda s: s.replace(VENV_SITE, user_site) if s else s
    if exc:
        # drop the gen.py frame (the exec call) so it looks like `python train.py`
        lines = exc.splitlines(True)
        keep = [lines[0]]
        i = 1
        while i < len(lines) and fname not in lines[i] and lines[i].startswith("  "):
            i += 1
        keep += lines[i:]
        exc = "".join(keep)
    return fix(out), fix(exc), g


def _undent(text):
    """Remove the 8-space source indentation of the template lines only."""
    lines = [l[8:] if l.startswith(" " * 8) else l for l in text.split("\n")]
    return "\n".join(lines).strip("\n")


class Thread:
    """A numbered social-media thread."""

    def __init__(self, platform, handle, name, when, limit):
        self.platform, self.handle, self.name, self.when, self.limit = platform, handle, name, when, limit
        self.posts = []
        self.replies = []

    def post(self, text, t=None, alt=None, link=None):
        self.posts.append((_undent(text), t, alt, link))

    def reply(self, handle, text, t, to=None):
        self.replies.append((handle, _undent(text), t, to))

    def render(self):
        n = len(self.posts)
        out = []
        hdr = {"x": "X (formerly Twitter)", "mastodon": "Mastodon", "bsky": "Bluesky"}[self.platform]
        out.append(f"{self.name} {self.handle}  ·  {hdr}  ·  thread posted {self.when.split(', ', 1)[-1]}")
        out.append("=" * 72)
        for i, (text, t, alt, link) in enumerate(self.posts, 1):
            body = f"{i}/{n} {text}" if self.platform != "x" or True else text
            # posts are the user's own text; check rough length budget (code blocks included)
            if len(body) > self.limit + 40:
                print(f"  [warn] {self.handle} post {i} is {len(body)} chars", file=sys.__stderr__)
            out.append("")
            out.append(f"[{t}]" if t else "")
            out.append(body)
            if link:
                out.append(f"🔗 {link}")
            if alt:
                out.append(f"  [image] ALT: {alt}")
        if self.replies:
            out.append("")
            out.append("-" * 28 + " replies " + "-" * 35)
            for h, text, t, to in self.replies:
                out.append("")
                out.append(f"{h} · {t}" + (f"  (replying to {to})" if to else ""))
                out.append(text)
        return "\n".join(out) + "\n"


def write_run(root, run, files):
    d = os.path.join(root, "runs", run)
    os.makedirs(d, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


def f4(x):
    return f"{x:.4f}"
