"""The one sanitiser for untrusted text that meets a terminal (logs, tracebacks, file names, model output).

    visible("\\x1b[2Jgone")            -> "^[[2Jgone"       control characters shown, never obeyed
    one_line("python a.py\\nrm -rf ~") -> "python a.py⏎rm -rf ~"    a command shown on one line, all of it
    escape_markup("[@click=app.quit]x") -> "\\[@click=app.quit]x"     safe inside Textual or Rich markup
    json_visible(json_text)           -> the same JSON value, with C1/DEL/bidi characters as \\u escapes

In: any str (also one holding lone surrogates from os.fsdecode of undecodable file names). Out: a
str that a terminal prints as the characters it holds: no escape sequence, no cursor movement, no
carriage return that overwrites what came before, no bidi override that reorders a line.
Pure: imports nothing but the standard library (no Rich, no Textual), so every layer may use it.

Forms (the caret form is what `cat -v` and terminals' own echo use, so users know it):
  C0 controls (U+0000-U+001F): `^@` .. `^_` (ESC is `^[`, CR `^M`), except those in `keep`;
  DEL (U+007F): `^?`;  C1 controls (U+0080-U+009F, which some terminals obey as CSI, OSC ...): `\\x9b`;
  bidi and line-separator format characters (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069,
  U+2028/9): `\\u202e`;  lone surrogates (an undecodable byte of a file name): `\\xff` (the byte).
"""
from __future__ import annotations

import re

# Everything a terminal or a text widget may act on instead of showing. C0 and DEL, C1, the
# bidi controls ("Trojan Source", CVE-2021-42574), the Unicode line and paragraph separators, and
# lone surrogates (printing one raises UnicodeEncodeError on a UTF-8 stdout).
_UNSAFE = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_RX = re.compile(f"[{_UNSAFE}]")
_JSON_UNSAFE_RX = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
NEWLINE_MARK = "⏎"      # one_line's default stand-in for a newline


def _form(c: str) -> str:
    o = ord(c)
    if o < 0x20:
        return "^" + chr(o + 0x40)
    if o == 0x7F:
        return "^?"
    if o <= 0x9F:
        return f"\\x{o:02x}"
    if 0xDC80 <= o <= 0xDCFF:         # surrogateescape: the undecodable byte itself
        return f"\\x{o - 0xDC00:02x}"
    return f"\\u{o:04x}"


def visible(text: str, keep: str = "\n\t", newline: str | None = None) -> str:
    """text with every control and format character shown in a visible form (see the module doc).

    keep: the characters of "\\n\\t\\r" left as they are (default newline and tab; "" for none).
    With "\\n" kept, a Windows line end "\\r\\n" becomes "\\n" (not "^M\\n").
    newline: when given, each line end is shown as this string instead (e.g. NEWLINE_MARK or "\\\\n"),
    so a text of many lines shows as one line and none of it is hidden.
    """
    if not text:
        return text
    if newline is not None:
        text = text.replace("\r\n", "\n").replace("\n", newline)
    elif "\n" in keep and "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if not _UNSAFE_RX.search(text):
        return text
    return _UNSAFE_RX.sub(lambda m: m.group(0) if m.group(0) in keep else _form(m.group(0)), text)


def one_line(text: str, mark: str = NEWLINE_MARK) -> str:
    """text on one line, every character of it shown: newlines as `mark`, tabs and controls visible.
    For a command in an approval dialog: 60 lines must not show as the first one."""
    return visible(text, keep="", newline=mark)


_BRACKET = re.compile(r"(\\*)(\[|\Z)")


def escape_markup(text: str) -> str:
    """text made inert inside Textual markup (Static, Content.from_markup, notify) and Rich markup.

    Every `[` gets a backslash, so no tag opens: not Rich's `[bold]`/`[link=...]`, nor Textual's own
    `[@click=app.quit]` and `[$accent]`, which `rich.markup.escape` leaves alone. Textual and Rich
    disagree on backslashes before `[` (Textual unescapes one, Rich halves the run), so a backslash
    of the text right before `[` or at its very end (where the caller's next `[/]` would follow) is
    followed by a zero-width space: both then render the text exactly, less that invisible mark.
    Control characters are not touched: call visible() first. Better still, build a Text/Content
    with markup off and no escaping is needed; this is for the caller that must build markup.
    """
    if "[" not in text and not text.endswith("\\"):
        return text

    def fix(m: re.Match) -> str:
        slashes, what = m.group(1), m.group(2)
        if what == "[":
            return (slashes + "\u200b" if slashes else "") + "\\["
        return slashes + "\u200b" if slashes else ""

    return _BRACKET.sub(fix, text)


def json_visible(doc: str) -> str:
    """A JSON document (as json.dumps(..., ensure_ascii=False) writes it) with the characters that
    JSON leaves raw but a terminal may obey (DEL, C1, bidi, U+2028/9), and lone surrogates (which
    cannot be printed), written as `\\uXXXX` escapes.
    The value is unchanged: these characters can only stand inside JSON strings. (C0 controls are
    always escaped by json.dumps.)"""
    if not _JSON_UNSAFE_RX.search(doc):
        return doc
    return _JSON_UNSAFE_RX.sub(lambda m: f"\\u{ord(m.group(0)):04x}", doc)
