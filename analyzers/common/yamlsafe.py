"""YAML from untrusted files, bounded: size, expanded node count (aliases included), nesting depth.

    compose(text) -> yaml.Node | None      the node graph (yaml.compose with SafeLoader), or raise
    load(text) -> Any                      the data (yaml.safe_load), or raise
    YamlRefused(YAMLError)                 why the text was not parsed: one line for a warning

In: the text of a config (a run's config.yaml, hparams.yaml, a W&B config). Out: what PyYAML's safe
loader gives, once the text has passed the limits below; a YAML syntax error raises yaml.YAMLError as
before. YamlRefused is a YAMLError, so a caller that already handles bad YAML handles a refused one.

Why: PyYAML shares an aliased node, so a 1 KB "billion laughs" file (nine levels of nine aliases)
composes quickly into a graph that expands to 9^9 nodes; whoever walks or flattens it does the
expansion (analyzers/config.py spent 402 s on one). A node that contains itself (`&a [*a]`)
makes every walk endless, and 5,000 nested `[` exhaust the recursive composer. The limits are
checked on the event stream first (libyaml's parser where PyYAML has it), before any node is built.
"""
from __future__ import annotations

import yaml

# A config is a few KB; W&B and Hydra dumps reach a few hundred KB. 8 MB leaves room for a
# large generated config and stops a log or data file mis-named .yaml.
MAX_YAML_BYTES = 8 * 1024 * 1024
# Nodes once every alias is expanded. The largest real config in tests/ has under 2,000; a
# 200,000-node walk takes well under a second, while a billion-laughs file expands past it at its
# fifth level of nine.
MAX_YAML_NODES = 200_000
# Nesting: real configs nest under 15 levels; PyYAML's composer recurses per level.
MAX_YAML_DEPTH = 100

_EVENTS = getattr(yaml, "CSafeLoader", yaml.SafeLoader)     # the limits are read from libyaml's events


class YamlRefused(yaml.YAMLError):
    """The YAML text was not parsed because it passes a limit (the message says which)."""


def check(text: str) -> None:
    """Raise YamlRefused when text is over a limit; yaml.YAMLError when it does not parse."""
    if len(text) > MAX_YAML_BYTES:
        raise YamlRefused(f"{len(text) / 2**20:.1f} MB of YAML is more than the {MAX_YAML_BYTES // 2**20} MB read")
    sizes: dict[str, int] = {}            # anchor -> expanded node count
    stack: list[list] = []                # open collections: [anchor, expanded count so far]
    total = 0
    for ev in yaml.parse(text, Loader=_EVENTS):
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([ev.anchor, 1])
            if len(stack) > MAX_YAML_DEPTH:
                raise YamlRefused(f"nested more than {MAX_YAML_DEPTH} levels deep")
            continue
        if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, n = stack.pop()
        elif isinstance(ev, yaml.ScalarEvent):
            anchor, n = ev.anchor, 1
        elif isinstance(ev, yaml.AliasEvent):
            if any(a == ev.anchor for a, _ in stack):
                raise YamlRefused(f"alias *{ev.anchor} refers to a node that contains it (endless)")
            anchor, n = None, sizes.get(ev.anchor, 1)
        else:
            continue
        if anchor is not None:
            sizes[anchor] = n
        if stack:
            stack[-1][1] += n
            n = stack[-1][1]
        else:
            total += n
            n = total
        if n > MAX_YAML_NODES:
            raise YamlRefused(f"aliases expand it past {MAX_YAML_NODES:,} nodes (a YAML bomb?)")


def compose(text: str) -> yaml.Node | None:
    """yaml.compose(text) with SafeLoader, after check(text)."""
    check(text)
    return yaml.compose(text, Loader=yaml.SafeLoader)


def load(text: str):
    """yaml.safe_load(text), after check(text)."""
    check(text)
    return yaml.load(text, Loader=yaml.SafeLoader)
