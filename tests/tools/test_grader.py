#!/usr/bin/python3
"""The grader's adversarial test: grade planted submissions of a fixture chapter and check every score.

    test_grader.py --build <folder for the fixture project>

tests/tools/grader_fixtures/ is a standalone CMake project (two tiny chapters, ch98 and ch99) built with
the same CMake function as the real chapters. Each tree under it misbehaves in one way in ex1 while ex2
is right; the grader must score each test exactly, exit 0 and always write results.json + junit.xml.
Test weights: ex1 = 40 points split 1:3 over A and B; ex2 = 60 points split 2:1 over C and D (D hidden).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "tools" / "grader_fixtures"
GRADE = ROOT / "scripts" / "grade.py"
PY = sys.executable

A = "add: small numbers"
B = "add: negative numbers, with a comma, [brackets] and *stars*"  # Catch2 test-spec special characters
C = "sum: a few values"
D = "sum: empty vector"  # hidden
POINTS = {A: 10, B: 30, C: 40, D: 20}


def ex1_bad(status_text: str) -> dict:
    """ex1's tests fail with `status_text`; ex2's pass."""
    return {A: (0, status_text), B: (0, status_text), C: (40, "passed"), D: (20, "passed")}


# tree -> (chapter flag, per-test (score, text the test's status must contain)), timeout
EXPECT = {
    "solutions": ({t: (p, "passed") for t, p in POINTS.items()}, 20),
    "exercises": ({t: (0, "not implemented yet") for t in POINTS}, 20),
    "segfault": (ex1_bad("crashed (SIGSEGV)"), 20),
    "abort": (ex1_bad("crashed (SIGABRT)"), 20),
    "infinite_loop": (ex1_bad("timed out (after 3 s)"), 3),
    "exit0": (ex1_bad("crashed (exited with status 0 before the test finished)"), 20),
    "stdout_flood": (ex1_bad("failed: printed more than"), 20),
    "fake_pass": (ex1_bad("crashed (exited with status 0 before the test finished)"), 20),
    "wrong": ({A: (0, "with expansion: 6 == 5"), B: (0, "with expansion: -10 == -11"),
               C: (40, "passed"), D: (20, "passed")}, 20),
    "startup_crash": ({t: (0, "crashed before any test started") for t in POINTS}, 20),
    "rogue_test": ({t: (0, "holds a test that tests/grading does not define") for t in POINTS}, 20),
}


def grade(build: Path, out: Path, tree: str, timeout: float, chapter: str | None, no_build: bool) -> tuple:
    cmd = [PY, str(GRADE), "--source", str(FIXTURE), "--tests-dir", str(FIXTURE / "tests" / "grading"),
           "--build", str(build), "--tree", tree, "--out", str(out / tree), "--timeout", str(timeout),
           "--output-limit", str(1 << 20), "--jobs", "2", "--quiet"]
    if chapter:
        cmd += ["--chapter", chapter]
    if no_build:
        cmd.append("--no-build")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return tree, p.returncode, p.stdout


def check_results(out: Path, tree: str, rc: int, table: str, expect: dict, errors: list[str]) -> dict:
    def err(msg: str) -> None:
        errors.append(f"[{tree}] {msg}")

    if rc != 0:
        err(f"grade.py exited {rc} (must always exit 0):\n{table}")
    try:
        res = json.loads((out / tree / "results.json").read_text())
        junit = ET.parse(out / tree / "junit.xml").getroot()
        # The hidden test D in full is only in the instructor's copy; the student's names it by number.
        full = json.loads((out / tree / "instructor" / "results.json").read_text())
    except (OSError, ValueError, ET.ParseError) as e:
        err(f"results not written or invalid: {e}")
        return {}
    for f in [out / tree / n for n in ("results.json", "junit.xml", "ch99.txt")]:
        if f.exists() and D in f.read_text():
            err(f"{f.name} names the hidden test {D!r}")
    if D in table:
        err(f"the table names the hidden test {D!r}")
    shown = {t["name"].split(": ", 1)[1] for t in res["tests"] if t["tags"][0] == "ch99"}
    if shown != (set(expect) - {D}) | {"hidden test 1"}:
        err(f"results.json shows the tests {sorted(shown)}")
    by_name = {t["name"].split(": ", 1)[1]: t for t in full["tests"] if t["tags"][0] == "ch99"}
    if set(by_name) != set(expect):
        err(f"graded tests {sorted(by_name)} != expected {sorted(expect)} (a rogue test slipped in?)")
    for name, (score, text) in expect.items():
        t = by_name.get(name)
        if t is None:
            continue
        if abs(t["score"] - score) > 1e-6 or abs(t["max_score"] - POINTS[name]) > 1e-6:
            err(f"{name!r}: score {t['score']}/{t['max_score']}, expected {score}/{POINTS[name]}")
        first_line = t["output"].splitlines()[0] if t["output"] else ""
        if text not in t["output"]:
            err(f"{name!r}: output lacks {text!r}; first line: {first_line!r}")
        want_status = "passed" if score == POINTS[name] else "failed"
        if t["status"] != want_status:
            err(f"{name!r}: status {t['status']}, expected {want_status}")
        want_vis = "after_published" if name == D else "visible"
        if t["visibility"] != want_vis:
            err(f"{name!r}: visibility {t['visibility']}, expected {want_vis}")
    total = sum(s for s, _ in expect.values())
    ch99 = [c for c in res["extra_data"]["chapters"] if c["chapter"] == "ch99"]
    if not ch99 or abs(ch99[0]["score"] - total) > 1e-6 or ch99[0]["max_score"] != 100:
        err(f"chapter total {ch99}, expected {total} / 100")
    n_fail = sum(1 for s, _ in expect.values() if s == 0)
    suite = [s for s in junit.iter("testsuite") if s.get("name", "").startswith("ch99")]
    bad = int(suite[0].get("failures")) + int(suite[0].get("errors")) if suite else -1
    if bad != n_fail or int(suite[0].get("tests")) != 4:
        err(f"junit.xml ch99 suite: {suite[0].attrib if suite else None}, expected 4 tests, {n_fail} not passed")
    if res["score"] != full["score"]:
        err(f"the student's score {res['score']} differs from the instructor's {full['score']}")
    if f"{total} / 100" not in table:
        err(f"table lacks '{total} / 100':\n{table}")
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=Path, required=True, help="build folder for the fixture project")
    args = ap.parse_args()
    build, out = args.build.resolve(), args.build.resolve() / "results"
    errors: list[str] = []

    # The fixture's exercises/ must be exactly what make_exercises generates from its solutions/.
    p = subprocess.run([PY, str(ROOT / "scripts" / "make_exercises.py"), "--check", "--root", str(FIXTURE)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        errors.append(f"fixture exercises/ out of sync:\n{p.stdout}")

    # Configured every time: a planted submission added since the last run is a new tree to glob.
    subprocess.run(["cmake", "-S", str(FIXTURE), "-B", str(build), "-G", "Ninja"], check=True,
                   stdout=subprocess.DEVNULL)
    # One build of every tree (no_compile fails, on purpose); grade.py then runs what was built.
    subprocess.run(["cmake", "--build", str(build), "-j", "2", "--", "-k", "0"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda kv: grade(build, out, kv[0], kv[1][1], "99", True), EXPECT.items()))
    for tree, rc, table in runs:
        check_results(out, tree, rc, table, EXPECT[tree][0], errors)
        print(f"--- {tree}\n{table}")

    # A syntax error: grade.py builds (and fails), ch99 scores 0 with the compiler's words, ch98 is graded.
    tree, rc, table = grade(build, out, "no_compile", 20, None, False)
    print(f"--- {tree}\n{table}")
    res = check_results(out, tree, rc, table, {t: (0, "build failed") for t in POINTS}, errors)
    if res:
        if "error: expected" not in json.dumps(res):
            errors.append("[no_compile] the compiler's error is not in results.json")
        ch98 = [t for t in res["tests"] if t["tags"][0] == "ch98"]
        if len(ch98) != 1 or ch98[0]["score"] != 100:
            errors.append(f"[no_compile] ch98 must still be graded (100 / 100): {ch98}")
        if res["score"] != 100 or res["max_score"] != 200:
            errors.append(f"[no_compile] total {res['score']} / {res['max_score']}, expected 100 / 200")

    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    print(f"grader fixtures: {len(EXPECT) + 1} trees graded, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
