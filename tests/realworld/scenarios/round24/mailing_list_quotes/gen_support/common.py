"""Shared helpers: synthetic data and mail formatting."""
import numpy as np
import textwrap
import email.utils
import datetime as _dt


def teacher_data(n, d, k, seed, temp=0.35, hidden=16):
    """Labels from a random nonlinear teacher; learnable but not trivially."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    W1 = rng.standard_normal((d, hidden)) / np.sqrt(d)
    W2 = rng.standard_normal((hidden, k)) * 1.5
    logits = np.tanh(X @ W1 * 1.5) @ W2
    g = rng.gumbel(size=logits.shape) * temp
    y = np.argmax(logits + g, axis=1).astype(np.int64)
    return X, y


# ---------------------------------------------------------------- mail
def wrap72(text, width=72):
    out = []
    for line in text.split("\n"):
        if len(line) <= width or line.startswith(">") or line.startswith("    "):
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width=width, break_long_words=False,
                                     break_on_hyphens=False) or [""])
    return "\n".join(out)


def quote(text, rewrap=False):
    """Prefix every line with '> ' (nested quotes become '> > ')."""
    lines = []
    for line in text.rstrip("\n").split("\n"):
        if rewrap and len(line) > 70 and not line.startswith(">"):
            for w in textwrap.wrap(line, 70, break_long_words=True) or [""]:
                lines.append("> " + w)
        elif line.startswith(">"):
            lines.append("> " + line)
        elif line == "":
            lines.append(">")
        else:
            lines.append("> " + line)
    return "\n".join(lines)


def rfc_date(dt):
    return email.utils.format_datetime(dt)


class Thread:
    def __init__(self, listaddr=None, list_name=None, footer=None, domain="example.org"):
        self.msgs = []
        self.listaddr = listaddr
        self.list_name = list_name
        self.footer = footer
        self.domain = domain

    def add(self, frm, dt, subject, body, to=None, reply_to_idx=None, cc=None):
        n = len(self.msgs)
        mid = "<%s.%d.%s@%s>" % (dt.strftime("%Y%m%d%H%M%S"), 4000 + 17 * n,
                                  frm.split("<")[-1].split("@")[0].strip(" >").replace(".", ""),
                                  frm.split("@")[-1].strip(">"))
        m = dict(frm=frm, dt=dt, subject=subject, body=body.rstrip("\n") + "\n",
                 to=to or self.listaddr, mid=mid, cc=cc,
                 irt=self.msgs[reply_to_idx]["mid"] if reply_to_idx is not None else None,
                 refs=[self.msgs[i]["mid"] for i in range(reply_to_idx + 1)] if reply_to_idx is not None else [])
        self.msgs.append(m)
        return n

    def body_of(self, i):
        return self.msgs[i]["body"]

    def _headers(self, m):
        h = ["From: %s" % m["frm"], "To: %s" % m["to"]]
        if m["cc"]:
            h.append("Cc: %s" % m["cc"])
        h += ["Date: %s" % rfc_date(m["dt"]), "Subject: %s" % m["subject"],
              "Message-ID: %s" % m["mid"]]
        if m["irt"]:
            h.append("In-Reply-To: %s" % m["irt"])
            h.append("References: %s" % " ".join(m["refs"][-3:]))
        if self.list_name:
            h.append("List-Id: %s" % self.list_name)
        h += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=\"us-ascii\"; format=flowed",
              "Content-Transfer-Encoding: 7bit"]
        return h

    def mbox(self):
        out = []
        for m in self.msgs:
            addr = m["frm"].split("<")[-1].strip(">")
            out.append("From %s %s" % (addr, m["dt"].strftime("%a %b %d %H:%M:%S %Y")))
            out += self._headers(m)
            out.append("")
            body = m["body"]
            if self.footer:
                body = body + "\n" + self.footer + "\n"
            for line in body.split("\n"):
                out.append(">" + line if line.startswith("From ") else line)
            out.append("")
        return "\n".join(out)

    def txt(self):
        out = []
        for k, m in enumerate(self.msgs):
            out.append("-" * 72 if k else "")
            out.append("From:    %s" % m["frm"])
            out.append("Date:    %s" % m["dt"].strftime("%a, %d %b %Y %H:%M"))
            out.append("To:      %s" % m["to"])
            if m["cc"]:
                out.append("Cc:      %s" % m["cc"])
            out.append("Subject: %s" % m["subject"])
            out.append("")
            out.append(m["body"])
        return "\n".join(out).lstrip("\n") + "\n"
