#!/usr/bin/python3
"""Writes the planted-bug tree the grader's own tests grade (tests/tools/test_chapters.py):

    make_planted.py --root REPO --out DIR

For every tests/tools/planted/chNN.json ({"bugs": [{"file", "find", "replace"}]}), DIR/chNN/<file> is the
reference answer solutions/chNN/<file> with its SOLUTION markers removed and one planted mistake: `find`
(which must occur exactly once) replaced by `replace`. Generated from the reference rather than kept as
copies, so a planted bug follows every change of the reference. Never shipped in a handout.
Standard library only.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

MARKER = re.compile(r"^\s*// (BEGIN SOLUTION|END SOLUTION|STUB)\b.*\n", re.M)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    problems = []
    for spec_path in sorted((args.root / "tests" / "tools" / "planted").glob("ch[0-9][0-9].json")):
        ch = spec_path.stem
        for bug in json.loads(spec_path.read_text())["bugs"]:
            src = args.root / "solutions" / ch / bug["file"]
            text = MARKER.sub("", src.read_text())
            if text.count(bug["find"]) != 1:
                problems.append(f"{spec_path.name}: {bug['file']}: the text to replace occurs "
                                f"{text.count(bug['find'])} times in {src} (must be exactly once)")
                continue
            banner = (f"// Planted bug for the grader's own tests, made from solutions/{ch}/{bug['file']} by\n"
                      f"// tests/tools/make_planted.py: it must lose points.\n")
            out = args.out / ch / bug["file"]
            out.parent.mkdir(parents=True, exist_ok=True)
            new = banner + text.replace(bug["find"], bug["replace"])
            if not out.exists() or out.read_text() != new:
                out.write_text(new)
    for p in problems:
        print(f"make_planted: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
