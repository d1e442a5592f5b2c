"""Markdown renderers imitating a GitHub issue page and a Discourse topic."""
import datetime as dt


class GHIssue:
    def __init__(self, repo, number, title, author, opened, labels=()):
        self.repo, self.number, self.title, self.author = repo, number, title, author
        self.opened = opened
        self.labels = list(labels)
        self.items = []   # (kind, payload)
        self.n_comments = 0

    def comment(self, who, when, body, role=None, edited=False, reactions=None):
        self.items.append(("c", (who, when, body.strip("\n"), role, edited, reactions)))
        self.n_comments += 1

    def event(self, text, when):
        self.items.append(("e", (text, when)))

    def render(self, state="Open"):
        d = lambda t: t.strftime("%b %-d, %Y")
        out = [f"# {self.title} #{self.number}", "",
               f"**{state}** · **{self.author}** opened this issue on {d(self.opened)} · {self.n_comments - 1} comments",
               ""]
        if self.labels:
            out.append("Labels: " + " ".join(f"`{l}`" for l in self.labels))
            out.append("")
        out.append(f"<sub>{self.repo}</sub>")
        out.append("")
        for kind, p in self.items:
            if kind == "e":
                text, when = p
                out += ["", f"> {text} · {d(when)}", ""]
                continue
            who, when, body, role, edited, reactions = p
            tag = f" `{role}`" if role else ""
            ed = " · edited" if edited else ""
            out += ["---", "", f"**{who}**{tag} commented on {d(when)}{ed}", "", body, ""]
            if reactions:
                out += ["<sub>" + "  ".join(reactions) + "</sub>", ""]
        return "\n".join(out).rstrip() + "\n"


class Discourse:
    def __init__(self, site, category, title, tags=()):
        self.site, self.category, self.title, self.tags = site, category, title, list(tags)
        self.posts = []

    def post(self, who, when, body, likes=0, reply_to=None, edited=False, badge=None):
        self.posts.append((who, when, body.strip("\n"), likes, reply_to, edited, badge))

    def render(self):
        fmt = lambda t: t.strftime("%B %-d, %Y, %-I:%M%p").replace("AM", "am").replace("PM", "pm")
        out = [f"# {self.title}", "",
               f"{self.site} › {self.category}" + ("  ·  " + " ".join(f"#{t}" for t in self.tags) if self.tags else ""),
               ""]
        views = 97 + 41 * len(self.posts)
        out += [f"<sub>{len(self.posts)} posts · {len({p[0] for p in self.posts})} participants · {views} views</sub>", ""]
        for i, (who, when, body, likes, reply_to, edited, badge) in enumerate(self.posts, 1):
            when = when + dt.timedelta(minutes=(i * 17) % 23, seconds=0)
            b = f" ({badge})" if badge else ""
            rt = f" · replying to @{reply_to}" if reply_to else ""
            ed = " · ✎" if edited else ""
            out += ["---", "", f"**{who}**{b} · #{i} · {fmt(when)}{rt}{ed}", "", body, ""]
            if likes:
                out += [f"<sub>♥ {likes}</sub>", ""]
        return "\n".join(out).rstrip() + "\n"


def code(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def details(summary, body):
    return f"<details>\n<summary>{summary}</summary>\n\n{body.rstrip()}\n\n</details>"


def quote(text):
    return "\n".join("> " + l if l else ">" for l in text.strip("\n").split("\n"))


def when(base, days=0, hours=0, minutes=0):
    return base + dt.timedelta(days=days, hours=hours, minutes=minutes)
