import os
import re

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'src')


def assemble(parts, imports):
    """Join source parts into one script: drop their top-level imports, put one import block first."""
    body = []
    for p in parts:
        with open(os.path.join(SRC, p)) as f:
            lines = [l for l in f.read().splitlines() if not re.match(r'^(import|from) \S', l)]
        body.append('\n'.join(lines).strip('\n'))
    return imports.strip('\n') + '\n\n\n' + '\n\n\n'.join(body) + '\n'
