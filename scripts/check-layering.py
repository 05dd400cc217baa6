#!/usr/bin/python3
"""Checks that no code reaches forward in the book: a layer's sources and headers, a chapter's programs
and its answer files (solutions/chNN, exercises/chNN) may include only headers of their own layer and the
layers before it.

CMake already refuses a forward *link*; this catches a forward *#include* (which would compile
against declarations the layer cannot link, or tempt someone to add the link).
"""
import pathlib
import re
import sys

ORDER = ["tensor", "autograd", "nn", "data", "train", "amp", "debug", "cuda", "vision", "jit", "distributed", "text"]
# data (chapter 4) depends only on tensor; vision (chapter 9) on debug, not on the optional cuda
# (lib/CMakeLists.txt); everything else on all earlier layers.
ALLOWED = {layer: set(ORDER[: i + 1]) for i, layer in enumerate(ORDER)}
ALLOWED["data"] = {"tensor", "data"}
ALLOWED["vision"] = ALLOWED["debug"] | {"vision"}
ALLOWED["distributed"] = ALLOWED["debug"] | {"distributed"}  # like vision: not the optional cuda
ALLOWED["text"] = ALLOWED["debug"] | {"text"}  # chapter 12: after debug, not cuda or vision
CHAPTER_LAYER = {"00": "tensor", "01": "tensor", "02": "autograd", "03": "nn", "04": "data",
                 "05": "train", "06": "amp", "07": "debug", "08": "cuda",
                 "09": "vision", "10": "jit", "11": "distributed", "12": "text"}
# Header folders that belong to a layer of another name (kindling/optim/ is part of chapter 5's train).
ALIASES = {"optim": "train"}
INCLUDE = re.compile(r'#\s*include\s*[<"]kindling/([a-z_]+)(?:/|\.hpp)')


def includes(path):
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = INCLUDE.search(line)
        if m and m.group(1) in ORDER + list(ALIASES):
            yield n, ALIASES.get(m.group(1), m.group(1))


def main(root):
    root = pathlib.Path(root)
    problems = []
    targets = []
    for layer in ORDER:
        folders = [layer] + [a for a, owner in ALIASES.items() if owner == layer]
        for base in [root / "lib/src" / layer] + [root / "lib/include/kindling" / f for f in folders]:
            targets += [(p, layer) for p in base.rglob("*") if p.suffix in (".hpp", ".cpp", ".h", ".cu")]
        umbrella = root / "lib/include/kindling" / f"{layer}.hpp"
        if umbrella.exists():
            targets.append((umbrella, layer))
    for ch_dir in sorted((root / "chapters").glob("[0-9][0-9]-*")):
        layer = CHAPTER_LAYER.get(ch_dir.name[:2])
        if layer:
            targets += [(p, layer) for p in ch_dir.rglob("*.cpp")]
    # Answer files (reference and the learner's) are compiled into their chapter's layer.
    for tree in ("solutions", "exercises"):
        for ch_dir in sorted((root / tree).glob("ch[0-9][0-9]")):
            layer = CHAPTER_LAYER.get(ch_dir.name[2:])
            if layer:
                targets += [(p, layer) for p in ch_dir.rglob("*") if p.suffix in (".hpp", ".cpp", ".h", ".cu")]
    for path, layer in targets:
        for n, used in includes(path):
            if used not in ALLOWED[layer]:
                problems.append(f"{path.relative_to(root)}:{n}: layer '{layer}' includes kindling/{used} "
                                f"(it may use only: {', '.join(o for o in ORDER if o in ALLOWED[layer])})")
    for p in problems:
        print(p)
    print(f"layering: {len(targets)} files checked, {len(problems)} forward includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent))
