#!/usr/bin/python3
"""The grader's own test on the real chapters: the programs a learner's `make grade` runs in the full tree
(each answer file in its own isolated program, the reference library but for that piece), built for the
grader's test trees by the instructor's build itself (cmake/KindlingPieces.cmake), on its own library
objects — no second build of the library.

    test_chapters.py --build <the instructor's build folder>

Trees graded:
  stubs       the pristine stubs generated from solutions/     every chapter and milestone scores 0
  reference   a copy of solutions/ graded as a learner's tree  every library-model exercise scores full
  planted     the reference with one planted bug per answer    every exercise there loses points
              file (tests/tools/planted/chNN.json, made into
              <build>/planted by make_planted.py)
  calls       tests/tools/library_calls/: each piece returns   every exercise there scores 0 (the call
              what the library's public function gives         recurses into the piece itself)
  cheat_*     tests/tools/cheats/<name>/ (README.md there)     every exercise there scores 0, with the
                                                               rule its `expect` file names
Without a sandbox (KINDLING_GRADE_NO_SANDBOX=1) grading refuses unless --insecure; results.json says which.
Nothing here reads exercises/, so a learner's work there never changes this test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADE = ROOT / "scripts" / "grade.py"
PY = sys.executable


def grade(build: Path, tree: str, *extra: str) -> tuple[int, str, dict]:
    out = build / "tests" / "tools" / "chapter-results" / tree
    cmd = [PY, str(GRADE), "--source", str(ROOT), "--build", str(build), "--tree", tree, "--out", str(out),
           "--jobs", "2", "--quiet", "--no-build", *extra]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    try:
        res = json.loads((out / "results.json").read_text())
    except (OSError, ValueError):
        res = {}
    return p.returncode, p.stdout, res


def by_exercise(res: dict) -> dict[tuple[str, str], tuple[float, float, list[str]]]:
    """(chapter, exercise) -> (score, max, outputs of its tests)."""
    out: dict[tuple[str, str], list] = {}
    for t in res.get("tests", []):
        key = (t["tags"][0], t["tags"][1])
        s, m, texts = out.get(key, (0.0, 0.0, []))
        out[key] = (s + t["score"], m + t["max_score"], texts + [t["output"]])
    return out


def library_chapters() -> dict[str, dict]:
    out = {}
    for m in sorted((ROOT / "tests" / "grading").glob("ch[0-9][0-9]/exercises.json")):
        data = json.loads(m.read_text())
        if data.get("model") == "library":
            out[m.parent.name] = data
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=Path, required=True)
    args = ap.parse_args()
    build = args.build.resolve()
    errors: list[str] = []
    chapters = library_chapters()

    trees = {"planted": build / "planted", "calls": ROOT / "tests" / "tools" / "library_calls"}
    # What the trees need, built here (they are not part of `all`; this is the only test that builds).
    targets = []
    for f in sorted((build / "grading").glob("ch[0-9][0-9].json")):
        desc = json.loads(f.read_text())
        for name, tree in desc["trees"].items():
            if name in ("solutions", "exercises") or name.startswith("rt_"):
                continue  # the red team's trees are built (and refused) by tests/grading/redteam/
            targets += list(tree["programs"].values()) + ([tree["milestone"]] if tree.get("milestone") else [])
    if not targets:
        errors.append("the build defines no programs for the grader's test trees (configure with tests/tools/planted)")
    p = subprocess.run(["cmake", "--build", str(build), "-j", "2", "--target", *targets, "--", "-k", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    # The cheats the answer-file rules refuse do not build, on purpose (tests/tools/cheats/*/expect).
    # So do the library calls the rules refuse as the piece's job done by the library (PIECE_DENY).
    failed = [l for l in p.stdout.splitlines() if l.startswith("FAILED: ") and "_cheat_" not in l
              and not re.search(r"kdp_ch\d\d_ex\d+_calls\.dir/", l)]
    if p.returncode != 0 and (failed or "FAILED: " not in p.stdout):
        errors.append("the build failed:\n" + "\n".join(l for l in p.stdout.splitlines() if "error" in l)[:3000])

    # Untouched stubs: every test and every milestone scores 0, and results are still written.
    rc, table, res = grade(build, "stubs", "--expect", "zero")
    print(f"--- stubs\n{table}")
    if rc != 0 or not res:
        errors.append(f"[stubs] grade.py --expect zero failed (exit {rc})")
    for ch in chapters:
        if "milestone" not in chapters[ch]:
            continue  # a chapter without a milestone in its manifest
        if not any(t["tags"][:2] == [ch, "milestone"] for t in res.get("tests", [])):
            errors.append(f"[stubs] {ch}: its milestone was not graded")

    # The reference graded as a learner's tree: full marks for every exercise (milestones: the main build's test).
    for ch in chapters:
        rc, table, res = grade(build, "reference", "--chapter", ch, "--no-milestone")
        print(f"--- reference {ch}\n{table}")
        for (c, ex), (s, m, texts) in by_exercise(res).items():
            if ex != "milestone" and abs(s - m) > 1e-6:
                errors.append(f"[reference] {c}.{ex}: {s:g} / {m:g}, expected full marks:\n  " + texts[0][:800])

    # Planted bugs lose points; library calls earn nothing. Each tree holds only the files it plants.
    for tree, want in (("planted", "loses points"), ("calls", "scores 0")):
        for ch, manifest in chapters.items():
            present = [ex for ex, info in manifest["exercises"].items() if (trees[tree] / ch / info["file"]).exists()]
            if not present:
                continue
            rc, table, res = grade(build, tree, "--chapter", ch, "--no-milestone")
            print(f"--- {tree} {ch}\n{table}")
            scores = by_exercise(res)
            for ex in present:
                s, m, texts = scores.get((ch, ex), (None, None, []))
                if s is None:
                    errors.append(f"[{tree}] {ch}.{ex}: not graded")
                elif tree == "planted" and not (s < m - 1e-6):
                    errors.append(f"[{tree}] {ch}.{ex}: the planted bug kept full marks ({s:g} / {m:g})")
                elif tree == "calls" and s > 1e-6:
                    errors.append(f"[{tree}] {ch}.{ex}: calling the library earned {s:g} / {m:g}")
            if tree == "planted":
                missing = [ex for ex in manifest["exercises"] if ex not in present]
                if missing:
                    errors.append(f"[planted] {ch}: no planted bug for {', '.join(missing)} "
                                  f"(tests/tools/planted/{ch}.json needs one per exercise)")

    # The cheats of issue 13 (tests/tools/cheats/README.md): each scores 0 for its exercise, and neither
    # the results nor (in the sandbox) the programs are touched.
    sys.path.insert(0, str(ROOT / "scripts"))
    import grade_sandbox
    sandboxed = grade_sandbox.sandbox_kind() == "bwrap"
    print(f"sandbox: {grade_sandbox.sandbox_kind()}")
    for cheat_dir in sorted((ROOT / "tests" / "tools" / "cheats").iterdir()):
        if not cheat_dir.is_dir():
            continue
        tree = f"cheat_{cheat_dir.name}"
        for ch_dir in sorted(p for p in cheat_dir.iterdir() if p.is_dir()):
            ch, manifest = ch_dir.name, chapters.get(ch_dir.name)
            if manifest is None:
                continue
            for ex, info in manifest["exercises"].items():
                if not (ch_dir / info["file"]).exists():
                    continue
                programs = json.loads((build / "grading" / f"{ch}.json").read_text())["trees"][tree]["programs"]
                binary = build / "grading-bin" / programs[ex]
                before = hashlib.sha256(binary.read_bytes()).hexdigest() if binary.exists() else None
                rc, table, res = grade(build, tree, "--exercise", f"{ch}.{ex}")
                print(f"--- {tree} {ch}.{ex}\n{table}")
                results = build / "tests" / "tools" / "chapter-results" / tree / "results.json"
                written = results.read_bytes() if results.exists() else b""
                if before is not None:  # a program ran (a refused answer file builds none)
                    time.sleep(3)  # a daemon that survived would strike now
                s, m, texts = by_exercise(res).get((ch, ex), (None, None, []))
                if s is None or s > 1e-6:
                    errors.append(f"[{tree}] {ch}.{ex}: the cheat earned {s} / {m}:\n{table}")
                # The answer-file rules (issue 26) say which rule refused it: tests/tools/cheats/<name>/expect.
                expect = cheat_dir / "expect"
                for want in (expect.read_text().splitlines() if expect.exists() else []):
                    if want.strip() and not any(want.strip() in t for t in texts):
                        errors.append(f"[{tree}] {ch}.{ex}: the message does not say \"{want.strip()}\":\n"
                                      + "\n".join(texts)[:1500])
                if sandboxed and res.get("isolation") != "bwrap":
                    errors.append(f"[{tree}] results.json says isolation {res.get('isolation')!r}, not bwrap")
                if not results.exists() or results.read_bytes() != written:
                    errors.append(f"[{tree}] results.json changed after the grader wrote it")
                # Without a sandbox (no bubblewrap) a program can be replaced; the grader then refuses it.
                changed = before is not None and (not binary.exists() or
                                                  hashlib.sha256(binary.read_bytes()).hexdigest() != before)
                if changed and sandboxed:
                    errors.append(f"[{tree}] the test program {binary.name} was changed on disk")
                if changed:  # rebuild it for the next run
                    binary.unlink(missing_ok=True)
                    subprocess.run(["cmake", "--build", str(build), "--target", binary.name], stdout=subprocess.DEVNULL)
                for litter in (results.parent / "results.json.daemon-was-here", binary.parent / f"{binary.name}.binary-was-here"):
                    if litter.exists():
                        if sandboxed:
                            errors.append(f"[{tree}] the cheat wrote {litter} outside its sandbox")
                        litter.unlink()

    # No sandbox, no scores (issue 26): without bubblewrap the grader awards nothing unless told --insecure,
    # and results.json records which isolation ran.
    import os
    env = dict(os.environ, KINDLING_GRADE_NO_SANDBOX="1")
    for extra, want_rc, want_iso in ((), 3, "none: grading refused"), (("--insecure",), 0, "none (--insecure"):
        out = build / "tests" / "tools" / "chapter-results" / "no-sandbox"
        cmd = [PY, str(GRADE), "--source", str(ROOT), "--build", str(build), "--tree", "reference", "--out", str(out),
               "--jobs", "2", "--quiet", "--no-build", "--exercise", "ch01.ex1", *extra]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", env=env)
        try:
            res = json.loads((out / "results.json").read_text())
        except (OSError, ValueError):
            res = {}
        print(f"--- no sandbox {' '.join(extra)}: exit {p.returncode}, isolation {res.get('isolation')!r}, "
              f"score {res.get('score')}")
        if p.returncode != want_rc or not str(res.get("isolation", "")).startswith(want_iso):
            errors.append(f"[no sandbox{' '.join(extra)}] exit {p.returncode}, isolation {res.get('isolation')!r} "
                          f"(expected exit {want_rc}, {want_iso}...):\n{p.stdout[-1500:]}")
        if not extra and (res.get("score") or "--insecure" not in p.stdout):
            errors.append(f"[no sandbox] awarded {res.get('score')} or did not say how to fix it:\n{p.stdout[-1500:]}")
        if extra and not res.get("score"):
            errors.append(f"[no sandbox --insecure] the reference of ch01.ex1 was not graded:\n{p.stdout[-1500:]}")

    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    print(f"chapters: {len(chapters)} library-model chapter(s), {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
