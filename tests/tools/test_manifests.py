#!/usr/bin/python3
"""The chapters' grading manifests (tests/grading/chNN/exercises.json) and what the grader makes of them.

- every chapter's exercises and milestone add up to exactly 100 points, hidden tests included (a hidden
  test shares its exercise's points; it adds none of its own);
- the points a chapter's exercise table quotes in the book (chapters/NN-*/chapter.md) are the manifest's;
- scores are exact: the grader's split of an exercise's points over its tests adds back up to the
  exercise's points, a full chapter to 100 exactly (fractions, not floats rounded per test);
- a graded test with points whose verdict would come only from the test process itself (no compared
  result, no outside checker) is refused by the grader (grade_run.verdict_problem), so none can appear;
- every exercise's hints are tiered (scripts/grade.py shows the first after a failed attempt, `make hint`
  the second, `LEVEL=3` the last): at least three; the first is the concept -- no code (no calls,
  assignments, comparisons, arrows, braces or indexing) and the chapter section to reread, by its
  heading (chapter N, "Heading"), which must exist; the second, the approach, has no code either;
- the twins' inputs are secret per run: two runs with different secrets give different inputs and
  expected values (shapes too, where a result follows from shapes alone), the same secret the same ones,
  and the secret itself is written nowhere in what the twins leave.

    /usr/bin/python3 tests/tools/test_manifests.py      (runs twins.py three times: ~5 s)
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import grade  # noqa: E402
from grade_report import Chapter, fmt, number, results_json  # noqa: E402
from grade_run import Outcome, verdict_problem  # noqa: E402

TESTS = ROOT / "tests" / "grading"
errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def book_points(ch: str) -> dict[str, int]:
    """The points column of a chapter's exercise table in its README (| exK | ... | N |)."""
    found = list((ROOT / "chapters").glob(f"{ch[2:]}-*/chapter.md"))
    out: dict[str, int] = {}
    if not found:
        return out
    for line in found[0].read_text().splitlines():
        m = re.match(r"^\|\s*(ex\d+|milestone)\s*\|.*\|\s*(\d+)\s*\|\s*$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


# What makes a hint code rather than words: a call or an index glued to a name (`f(x)`, `a[i]`), an
# assignment or comparison (`=`, `==`, `+=`, `<=`), an arrow, braces, a C++ `for (` / `if (`. Prose keeps
# " (", " - ", "n-1" and semicolons.
CODE_LIKE = re.compile(r"\w\(|\w\[|=|->|[{}]|\b(?:for|if|while) \(")
SECTION_REF = re.compile(r'chapter (\d+), "([^"]+)"(?: and "([^"]+)")?')


def headings(nn: int) -> set[str]:
    """The section headings of chapter nn's book source, without their backticks."""
    found = list((ROOT / "chapters").glob(f"{nn:02d}-*/chapter.md"))
    if not found:
        return set()
    return {re.sub(r"^#+\s*", "", l).replace("`", "").strip()
            for l in found[0].read_text().splitlines() if l.startswith("#")}


def check_hints(ch: str, manifest: dict) -> None:
    for ex, meta in manifest.get("exercises", {}).items():
        hints = grade.hints_of(meta)
        if len(hints) < 3:
            err(f"{ch}.{ex}: {len(hints)} hint(s); the tiers are the concept, the approach, the near-answer")
            continue
        refs = list(SECTION_REF.finditer(hints[0]))
        if not refs:
            err(f"{ch}.{ex}: hint 1 (the concept) names no section to reread as chapter N, \"Heading\"")
        for m in refs:
            for title in filter(None, m.group(2, 3)):
                if title not in headings(int(m.group(1))):
                    err(f"{ch}.{ex}: hint 1 names \"{title}\", not a heading of chapter {m.group(1)}")
        for k, h in enumerate(hints[:2], 1):
            words = SECTION_REF.sub("", h)  # a heading may quote code ("Evaluation: eval(), ...")
            code = CODE_LIKE.search(words)
            if code:
                err(f"{ch}.{ex}: hint {k} reads like code at {words[max(0, code.start() - 20):code.end() + 20]!r}; "
                    f"only the last tier may give the answer")


def check_chapter(ch: str) -> None:
    manifest = json.loads((TESTS / ch / "exercises.json").read_text())
    if manifest.get("model") != "library":
        err(f"{ch}: not in the library model: its tests would have no PyTorch twins to judge them outside "
            f"their processes")
    pts = {ex: meta["points"] for ex, meta in manifest.get("exercises", {}).items()}
    if "milestone" in manifest:
        pts["milestone"] = manifest["milestone"]["points"]
    for k, v in pts.items():
        if not isinstance(v, int) or v <= 0:
            err(f"{ch}.{k}: points must be a positive integer, not {v!r}")
    check_hints(ch, manifest)
    total = sum(Fraction(str(v)) for v in pts.values())
    if total != 100:
        err(f"{ch}: exercises + milestone add up to {fmt(total)} points, not 100 ({pts})")
    book = book_points(ch)
    if book and book != pts:
        err(f"{ch}: the book's exercise table says {book}, the manifest {pts}")
    if not book:
        err(f"{ch}: no exercise table with points found in chapters/{ch[2:]}-*/chapter.md")

    # The grader's own arithmetic on this chapter's real tests (hidden ones included): every test passed
    # must give exactly 100, and results.json must say 100, not 99.99999.
    notes: list[str] = []
    tests = grade.graded_tests(grade.scan_sources(TESTS, ch), ch, notes)
    chapter = grade.assemble(ch, manifest, tests)
    if "milestone" in manifest:
        chapter.milestone = grade.Exercise("milestone", "m", [], Fraction(pts["milestone"]), [
            grade.GradedTest(name="milestone", chapter=ch, exercise="milestone", pts=Fraction(1), hidden=False,
                             tags=[ch], max_score=Fraction(pts["milestone"]))])
    for t in chapter.all_tests():
        t.outcome = Outcome("passed")
    for ex in chapter.exercises:
        if not ex.tests:
            err(f"{ch}.{ex.id}: the manifest gives it {fmt(ex.points)} points but no graded test has [{ex.id}]")
        elif ex.score != ex.points:
            err(f"{ch}.{ex.id}: its tests add up to {ex.score}, not {ex.points}")
    if chapter.score != 100 or chapter.max_score != 100:
        err(f"{ch}: all tests passed scores {chapter.score} / {chapter.max_score}, not exactly 100 / 100")
    res = results_json([chapter], "")
    if res["score"] != 100 or res["max_score"] != 100 or not isinstance(res["score"], int):
        err(f"{ch}: results.json says {res['score']} / {res['max_score']}")


def check_exact_arithmetic() -> None:
    """Three tests of 20 points: 20/3 each, shown as such, and exactly 20 together."""
    manifest = {"exercises": {"ex1": {"points": 20}}}
    tests = [grade.GradedTest(name=f"t{k}", chapter="ch99", exercise="ex1", pts=Fraction(1), hidden=False,
                              tags=["ch99", "ex1", "pts=1"]) for k in range(3)]
    ch: Chapter = grade.assemble("ch99", manifest, tests)
    for t in tests:
        t.outcome = Outcome("passed")
    if tests[0].max_score != Fraction(20, 3) or ch.score != 20:
        err(f"20 points over 3 tests: {tests[0].max_score} each, {ch.score} in all")
    if fmt(Fraction(20, 3)) != "6 2/3" or fmt(Fraction(5, 2)) != "2.5" or fmt(Fraction(100)) != "100":
        err(f"fmt: {fmt(Fraction(20, 3))!r} {fmt(Fraction(5, 2))!r} {fmt(Fraction(100))!r}")
    if number(Fraction(100)) != 100 or not isinstance(number(Fraction(100)), int):
        err("number(100) is not the integer 100")


def check_verdict_rule() -> None:
    """A graded test with points needs a verdict from outside its process (grade_run.verdict_problem)."""
    cases = [
        ("points, no twin", 5, None, True),
        ("points, a twin with no result", 5, {"results": {}}, True),
        ("points, a twin with a compared result", 5, {"results": {"y": {"kind": "int", "data": 3}}}, False),
        ("no points, no twin", 0, None, False),
    ]
    for what, pts, expected, refused in cases:
        why = verdict_problem(Fraction(pts), expected)
        if bool(why) != refused:
            err(f"verdict rule, {what}: {'refused' if why else 'accepted'} ({why!r})")
        if why and "grader problem" not in why:
            err(f"verdict rule, {what}: the message must say it is the grader's problem: {why!r}")


def run_twins(out: str, secret: str, only: list[str]) -> dict[str, str]:
    """{file under out: its bytes as text} of one twins run of chapter 1 for the tests `only`."""
    p = subprocess.run(["/usr/bin/python3", str(TESTS / "twins.py"), out, str(TESTS / "ch01" / "pytorch.py")],
                       input=json.dumps({"secret": secret, "only": only}), text=True, capture_output=True)
    if p.returncode != 0:
        err(f"twins.py failed: {p.stdout[-500:]}{p.stderr[-1500:]}")
        return {}
    files = {}
    for f in sorted(Path(out).rglob("*")):
        if f.is_file():
            files[str(f.relative_to(out))] = f.read_bytes().hex()
    return files


def check_secret_inputs() -> None:
    """Inputs and expected values follow the run's secret, and only the tests asked for are computed."""
    only = ["softmax: every dim, float32 and float64", "strides: every new tensor is row-major"]
    only = [n for n in only if n in {t.name for t in grade.graded_tests(grade.scan_sources(TESTS, "ch01"), "ch01", [])}]
    if len(only) != 2:
        err(f"check_secret_inputs: the chapter-1 tests it uses were renamed ({only})")
        return
    secrets = ["11" * 32, "22" * 32]
    with tempfile.TemporaryDirectory() as tmp:
        a = run_twins(f"{tmp}/a", secrets[0], only)
        b = run_twins(f"{tmp}/b", secrets[1], only)
        a2 = run_twins(f"{tmp}/a2", secrets[0], only)
    if not a:
        return
    manifest = json.loads(bytes.fromhex(a["manifest.json"]))
    if sorted(manifest) != sorted(only):
        err(f"twins computed {sorted(manifest)}, asked for {sorted(only)}")
    if a != a2:
        err("the same secret gave different inputs or expected values")
    for name, slug in manifest.items():
        ins = {k for k in a if k.startswith(f"{slug}/in/")}
        if all(a.get(k) == b.get(k) for k in ins) or a[f"{slug}/expected.json"] == b.get(f"{slug}/expected.json"):
            err(f"{name!r}: two secrets gave the same inputs or the same expected values")
    for files, secret in ((a, secrets[0]), (b, secrets[1])):
        if any(secret.encode().hex() in v or secret in bytes.fromhex(v).decode("latin-1") for v in files.values()):
            err("the run's secret appears in a file the twins wrote")


def main() -> int:
    chapters = sorted(p.name for p in TESTS.glob("ch[0-9][0-9]") if (p / "exercises.json").exists())
    if len(chapters) < 8:
        err(f"only {len(chapters)} chapters found under {TESTS}")
    for ch in chapters:
        check_chapter(ch)
    check_exact_arithmetic()
    check_verdict_rule()
    check_secret_inputs()
    print(f"test_manifests: {len(chapters)} chapters, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
