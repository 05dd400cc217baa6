"""Snippet markers: the only way code reaches the book.

A snippet is the lines between a start marker and its end marker, in any compiled or executed file
(C++ ``//`` or Python/CMake/shell ``#`` comments)::

    // [snippet: train-loop]
    for (auto& [inputs, labels] : loader) { ... }
    // [end]

Snippets nest: an ``[end]`` closes the innermost open snippet (marker lines inside an included range
are removed from the rendered block). Rules checked at build time (``check()``):

- every start has its ``[end]`` and every ``[end]`` a start (balanced);
- a name appears once per file (a duplicate would silently show only the first);
- a marker line holds nothing but the marker (``// [snippet: x] trailing`` is a typo'd marker);
- every snippet of a file the book scans is shown somewhere in the book (see kindling_book.py).
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

# A marker on a line of its own: `// [snippet: name]`, `# [end]`.
MARKER = re.compile(r"^\s*(?://|#)\s*\[(?:snippet:\s*(?P<name>[^\]]*?)\s*|(?P<end>end))\]\s*$")
# Anything that looks like a marker, anywhere on a line (to catch malformed ones).
LOOSE = re.compile(r"\[(snippet:[^\]]*|end)\]")
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass
class Snippet:
    name: str
    start: int  # 1-based line number of the start marker
    end: int    # 1-based line number of the end marker


@dataclass
class SnippetFile:
    path: Path
    snippets: dict = field(default_factory=dict)  # name -> Snippet
    errors: list = field(default_factory=list)    # (line, message)


_cache = {}


def parse(path) -> SnippetFile:
    """The snippets of `path` (cached by modification time)."""
    path = Path(path)
    stamp = path.stat().st_mtime_ns
    hit = _cache.get(path)
    if hit and hit[0] == stamp:
        return hit[1]
    result = SnippetFile(path)
    stack = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        m = MARKER.match(line)
        if not m:
            if LOOSE.search(line) and re.match(r"^\s*(//|#)", line):
                result.errors.append((number, f"malformed snippet marker {line.strip()!r} (a marker is "
                                              "alone on its line: `// [snippet: name]` or `// [end]`)"))
            continue
        if m.group("end"):
            if not stack:
                result.errors.append((number, "`[end]` without an open snippet"))
                continue
            name, start = stack.pop()
            if name in result.snippets:
                first = result.snippets[name].start
                result.errors.append((start, f"snippet '{name}' is defined twice (first at line {first}); "
                                             "the book would only ever show the first"))
            else:
                result.snippets[name] = Snippet(name, start, number)
        else:
            name = m.group("name")
            if not NAME.fullmatch(name):
                result.errors.append((number, f"snippet name {name!r}: use lower-case letters, digits and -"))
            stack.append((name, number))
    for name, start in stack:
        result.errors.append((start, f"snippet '{name}' has no `[end]`"))
    _cache[path] = (stamp, result)
    return result


def lines_of(path, name):
    """(first, last) 1-based line numbers of the body of snippet `name`, or raise KeyError/ValueError."""
    parsed = parse(path)
    if name not in parsed.snippets:
        known = ", ".join(sorted(parsed.snippets)) or "none"
        raise KeyError(f"{path}: no snippet '{name}' (snippets in this file: {known})")
    s = parsed.snippets[name]
    if s.end == s.start + 1:
        raise ValueError(f"{path}:{s.start}: snippet '{name}' is empty")
    return s.start + 1, s.end - 1


def is_marker(line):
    return bool(MARKER.match(line))
