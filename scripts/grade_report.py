"""The grader's reports (used by grade.py): the score table, a details file per chapter, results.json
(Gradescope) and junit.xml.

What a student may see (the table, chNN.txt, results.json, junit.xml) is built from the visible tests
only: a hidden test counts in its exercise's score, but its name, its failure and its output appear
only in the instructor's copy of the reports (<out>/instructor/, or --instructor-out), written when
hidden tests were graded. Every string that came from a learner's process or compile (an exception's
message, a program's output, the compiler's words) is cleaned and clipped by grade_safe.clean() before
it is shown anywhere, the instructor's copy included; program output reaches results.json and junit.xml
as a short excerpt only."""
from __future__ import annotations

import json
import os
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from fractions import Fraction

from grade_run import Outcome
from grade_safe import (DETAIL_LIMIT, DETAILS_FILE_OUTPUT_LIMIT, NAME_LIMIT, OUTPUT_LIMIT, TOTAL_LIMIT, clean,
                        clip, excerpt)

WIDTH = 110  # the table's width; longer lines wrap
TABLE_DETAIL_LIMIT = 800  # characters of a first failure in the table (chNN.txt has it in full)


@dataclass
class GradedTest:
    name: str
    chapter: str          # "ch02"
    exercise: str         # "ex1" (or "milestone")
    pts: Fraction         # the test's weight inside its exercise ([pts=N])
    hidden: bool
    tags: list[str]
    file: str = ""
    line: int = 0
    outcome: Outcome | None = None
    # This test's share of its exercise's points, exact: 20 points over three equal tests are 20/3 each,
    # and three passes add up to 20, not 19.9999 (an instructor's grade book sums what we report).
    max_score: Fraction = Fraction(0)

    @property
    def score(self) -> Fraction:
        return self.max_score if self.outcome is not None and self.outcome.passed else Fraction(0)


@dataclass
class Exercise:
    id: str
    title: str
    hints: list[str]
    points: Fraction
    tests: list[GradedTest] = field(default_factory=list)
    piece: str = ""
    test_hints: dict = field(default_factory=dict)
    show_output: str = ""  # a regex: the lines of a failing test's output the score table shows (a loss)

    @property
    def score(self) -> Fraction:
        return sum((t.score for t in self.tests), Fraction(0))

    def first_failure(self, visible_only: bool = False) -> GradedTest | None:
        """The first test that did not pass (declaration order; hidden tests come last), or None."""
        for t in self.tests:
            if visible_only and t.hidden:
                continue
            if t.outcome is None or not t.outcome.passed:
                return t
        return None

    def status(self, visible_only: bool = False) -> Outcome:
        """The exercise's status as the table shows it. visible_only: a failing hidden test is only said to
        have failed (no name, no detail), and only when every visible test passed."""
        t = self.first_failure(visible_only)
        if t is None and visible_only:
            t = self.first_failure()
            if t is not None:
                hidden = [h for h in self.tests if h.hidden]
                lost = sum(1 for h in hidden if not (h.outcome and h.outcome.passed))
                return Outcome("failed", f"the visible tests pass; {lost} of {len(hidden)} hidden test(s) "
                                         f"did not (your instructor has the details)")
        if t is None:
            return Outcome("passed")
        return t.outcome or Outcome("failed", "not run")

    def attempted(self) -> bool:
        """Hints are for an attempt: not for an untouched stub, nor for work waiting on another piece."""
        return any(t.outcome and t.outcome.status not in ("not_implemented", "blocked", "not_run", "build_failed")
                   for t in self.tests)

    def nudge(self) -> str:
        """The first-tier hint, the failing visible test's own where the manifest has one (a hidden test's
        hint would describe the hidden test)."""
        t = self.first_failure(visible_only=True)
        if t is not None:
            for key, h in self.test_hints.items():
                if key in t.name:
                    return h
        return self.hints[0] if self.hints else ""


@dataclass
class Chapter:
    id: str                # "ch02"
    title: str
    exercises: list[Exercise]
    build_error: str = ""  # set when nothing of the chapter could be built (e.g. CMake failed)
    notes: list[str] = field(default_factory=list)
    milestone: Exercise | None = None

    def graded(self) -> list[Exercise]:
        return self.exercises + ([self.milestone] if self.milestone else [])

    def all_tests(self) -> list[GradedTest]:
        return [t for e in self.graded() for t in e.tests]

    @property
    def score(self) -> Fraction:
        return sum((e.score for e in self.graded()), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((e.points for e in self.graded() if e.tests), Fraction(0))



# What a test program printed is shown under a failed test, where Catch2's own summary ("All tests passed",
# "1 passed") would read as a verdict: the verdict is the grader's, from comparing what the program reported
# with PyTorch (or judging it) after the program ran.
PROGRAM_OUTPUT_NOTE = ("program output (excerpt; its own \"passed\" lines are not the verdict: the grader compares "
                       "what it reported with PyTorch after it ran):")

def exact(x) -> Fraction:
    """A number of points as an exact fraction (a manifest's 15, a tag's pts=2.5, a float already exact)."""
    return x if isinstance(x, Fraction) else Fraction(str(x))


def fmt(x) -> str:
    """Points as people read them: 20, 2.5, 6 2/3 (a third is shown as a third, not 6.67 or 6.6667)."""
    x = exact(x)
    if x.denominator == 1:
        return str(x.numerator)
    if 100 % x.denominator == 0 or 1000 % x.denominator == 0:  # a terminating decimal: 2.5, 0.125
        return f"{float(x):.3f}".rstrip("0").rstrip(".")
    whole, part = divmod(x, 1)
    return f"{whole} {part}" if whole else str(part)


def number(x):
    """Points for results.json: an int where exact, else the nearest float (JSON has no fractions; the
    totals are computed from the exact sums, so they are exact too)."""
    x = exact(x)
    return x.numerator if x.denominator == 1 else float(x)


def _xml_safe(s: str) -> str:
    """XML 1.0 forbids most control characters; a learner's program may print anything (clean() leaves
    none of them)."""
    return clean(s, None)


def sanitize(chapters: list[Chapter]) -> None:
    """Every learner-controlled string of the outcomes cleaned and clipped, once, in place (clean() is
    idempotent): the reports below then cannot show an escape sequence or a megabyte-long message."""
    for ch in chapters:
        ch.build_error = clean(ch.build_error, 4 * DETAIL_LIMIT)
        ch.notes = [clean(n, 4 * DETAIL_LIMIT) for n in ch.notes]
        for t in ch.all_tests():
            o = t.outcome
            if o is None:
                continue
            o.detail = clean(o.detail, 4 * DETAIL_LIMIT if o.status == "build_failed" else DETAIL_LIMIT)
            o.output = clean(o.output, None)  # the output excerpt (grade_run.py keeps 8 KB at most)
            if isinstance(o.extra.get("line"), str):
                o.extra["line"] = clean(o.extra["line"], NAME_LIMIT * 2, keep_newlines=False)


def hidden_number(ex: Exercise, t: GradedTest) -> int:
    """A hidden test's number inside its exercise (what the student sees instead of its name)."""
    return [h for h in ex.tests if h.hidden].index(t) + 1


def shown_name(ex: Exercise, t: GradedTest, instructor: bool) -> str:
    return t.name if instructor or not t.hidden else f"hidden test {hidden_number(ex, t)}"


def _wrap(text: str, indent: str, first: str = "") -> list[str]:
    """`text` wrapped to the table's width under `indent` (its own line breaks kept, nothing cut)."""
    out = []
    lead = first or indent
    for k, para in enumerate(text.splitlines() or [""]):
        w = textwrap.wrap(para, WIDTH, initial_indent=lead if k == 0 else indent, subsequent_indent=indent,
                          break_long_words=True, break_on_hyphens=False) or [lead if k == 0 else indent]
        out += w
    return out


def _short(s: str, n: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def details_path(out_dir: str, ch: Chapter) -> str:
    return os.path.join(out_dir, f"{ch.id}.txt")


def table(chapters: list[Chapter], out_dir: str, instructor_dir: str | None = None) -> str:
    """The score table (what `make grade` prints; also results.json's visible "output"): visible tests only."""
    sanitize(chapters)
    lines = []
    for ch in chapters:
        head = f"Chapter {ch.id[2:]} — {ch.title}"
        lines.append(f"{head:<55}{fmt(ch.score):>6} / {fmt(ch.max_score)}")
        if ch.build_error:
            lines.append("  the chapter could not be built — every test scores 0:")
            lines += _wrap(ch.build_error, "    ")
        for note in ch.notes:
            lines += _wrap(note, "        ", "  note: ")
        # Exercises that wait for the same piece of an earlier exercise: said once for the chapter, not once
        # per exercise (a handout without an earlier chapter's reference blocks every later test on it).
        waiting: dict[str, list[str]] = {}
        for ex in ch.graded():
            st = ex.status(visible_only=True) if ex.tests else None
            if st is not None and st.status == "blocked" and st.detail.startswith("needs "):
                waiting.setdefault(st.detail.split()[1], []).append(ex.id)
        shared_waits = {piece: exs for piece, exs in waiting.items() if len(exs) > 1}
        for piece, exs in shared_waits.items():
            first = next(ex for ex in ch.graded() if ex.id == exs[0]).status(visible_only=True)
            lines += _wrap(clip(f"{', '.join(exs)} wait: {first.detail}", TABLE_DETAIL_LIMIT), "        ", "  note: ")
        for ex in ch.graded():
            if not ex.tests:
                continue
            st = ex.status(visible_only=True)
            if ex.id == "milestone":
                st = ex.tests[0].outcome or st
            if st.status == "blocked" and st.detail.startswith("needs ") and st.detail.split()[1] in shared_waits:
                piece = st.detail.split()[1]
                lead = f"  {ex.id:<4} {_short(ex.title, 44):<44} {fmt(ex.score):>5} / {fmt(ex.points):<4} "
                lines += _wrap(f"waits for {piece} (see the note above)", " " * len(lead), lead)
                continue
            label = ex.id if ex.id != "milestone" else "mile"
            lead = f"  {label:<4} {_short(ex.title, 44):<44} {fmt(ex.score):>5} / {fmt(ex.points):<4} "
            if ex.id == "milestone" and st.extra.get("line"):
                text = st.extra["line"].split(": ", 1)[-1]
            elif ex.id == "milestone" and st.status == "not_implemented":
                text = f"not run to its end: {st.detail}"
            else:
                text = st.describe()
                failing = ex.first_failure(visible_only=True)
                if failing is not None and failing.name != "milestone" and st.status not in (
                        "build_failed", "not_implemented"):
                    text += f"  [test: {failing.name}]"
            lines += _wrap(clip(text, TABLE_DETAIL_LIMIT), " " * len(lead), lead)
            if st.status == "build_failed" and st.detail:
                shown = st.detail.splitlines()
                lines += ["         " + l for l in shown[:8]]
                if len(shown) > 8:
                    lines.append(f"         ... (all of it: {details_path(out_dir, ch)})")
            if not st.passed and ex.show_output:
                # What the exercise's own program prints (a find-the-bug program's losses), where the learner
                # looks: the lines of the first failing visible test's output that the manifest names.
                failing = ex.first_failure(visible_only=True)
                text = failing.outcome.output if failing is not None and failing.outcome else ""
                try:
                    shown = [l for l in text.splitlines() if re.search(ex.show_output, l)][:6]
                except re.error:
                    shown = []
                lines += ["       | " + clip(l, 100) for l in shown]
            if not st.passed and ex.attempted() and ex.nudge():
                lines += _wrap(ex.nudge(), "             ", "       hint: ")
                if len(ex.hints) > 1:
                    lines.append(f"             (more: make hint EX={ch.id}.{ex.id})")
        lines.append(f"  details: {details_path(out_dir, ch)}")
    if len(chapters) > 1:
        total = sum((c.score for c in chapters), Fraction(0))
        lines.append(f"{'Total':<55}{fmt(total):>6} / {fmt(sum((c.max_score for c in chapters), Fraction(0)))}")
    if not chapters:
        lines.append("No graded chapters found (tests/grading/chNN/ with an exercises.json).")
    lines.append(f"results: {os.path.join(out_dir, 'results.json')}  (Gradescope)   "
                 f"{os.path.join(out_dir, 'junit.xml')}")
    if instructor_dir and any(t.hidden for c in chapters for t in c.all_tests()):
        lines.append(f"hidden tests in full (instructor only; do not hand out): {instructor_dir}")
    return "\n".join(lines)


def _test_output(ch: Chapter, ex: Exercise, t: GradedTest, instructor: bool = False, budget: list | None = None) -> str:
    """One test's text in results.json / junit.xml. A hidden test, for the student: its verdict only.
    `budget` ([characters left]): the program output all tests may still show together."""
    o = t.outcome or Outcome("failed", "not run")
    if t.hidden and not instructor:
        return f"{ch.id}.{ex.id} — {ex.title}: {shown_name(ex, t, False)}: " + (
            "passed" if o.passed else "did not pass (hidden: your instructor has the details)")
    parts = [f"{ch.id}.{ex.id} — {ex.title}: {o.describe()}"]
    if t.name != "milestone":
        parts.append(f"test: {t.name}" + (f" ({t.file}:{t.line})" if t.file else ""))
    if o.status == "build_failed" or (o.detail and o.status in ("not_implemented", "blocked")):
        parts.append(o.detail)
    if not o.passed and ex.attempted() and ex.nudge():
        parts.append(f"hint: {ex.nudge()}")
    if o.output.strip() and o.status not in ("passed", "not_implemented", "blocked", "build_failed"):
        # A short excerpt: the output may hold anything the program (or its compile step) got hold of.
        text = excerpt(o.output, 200 if instructor else 20, DETAILS_FILE_OUTPUT_LIMIT if instructor else OUTPUT_LIMIT)
        if budget is not None:
            if budget[0] < len(text):
                text = "(not shown: the report's limit on program output was reached)"
            budget[0] -= len(text)
        parts.append(PROGRAM_OUTPUT_NOTE + "\n" + text)
    return "\n".join(parts)


def details(ch: Chapter, instructor: bool = False) -> str:
    """Everything about one chapter's run: every visible test's verdict in full, hints, program output
    (an excerpt); a hidden test's verdict only (instructor: everything)."""
    out = [f"Chapter {ch.id[2:]} — {ch.title}: {fmt(ch.score)} / {fmt(ch.max_score)}", ""]
    if ch.build_error:
        out += ["The chapter could not be built:", ch.build_error, ""]
    for note in ch.notes:
        out.append(f"note: {note}")
    for ex in ch.graded():
        out.append(f"== {ch.id}.{ex.id} — {ex.title}: {fmt(ex.score)} / {fmt(ex.points)}")
        if ex.piece:
            out.append(f"   the piece: {ex.piece}")
        for t in ex.tests:
            o = t.outcome or Outcome("failed", "not run")
            if t.hidden and not instructor:
                out.append(f"-- {shown_name(ex, t, False)}: {fmt(t.score)} / {fmt(t.max_score)}  "
                           + ("passed" if o.passed else "did not pass (hidden)"))
                continue
            out.append(f"-- {t.name}: {fmt(t.score)} / {fmt(t.max_score)}  {o.describe()}")
            if o.detail and o.status not in ("failed",):
                out += ["   " + l for l in o.detail.splitlines()]
            if o.output.strip() and not o.passed:
                out.append("   " + PROGRAM_OUTPUT_NOTE)
                out += ["   | " + l for l in excerpt(o.output, 80, DETAILS_FILE_OUTPUT_LIMIT).splitlines()]
        if ex.score < ex.points and ex.attempted() and ex.hints:
            out.append(f"   hint: {ex.nudge()}   (more: make hint EX={ch.id}.{ex.id})")
        out.append("")
    return "\n".join(out)


def results_json(chapters: list[Chapter], summary: str, instructor: bool = False) -> dict:
    tests = []
    budget = [TOTAL_LIMIT]
    for ch in chapters:
        for ex in ch.graded():
            for k, t in enumerate(ex.tests, 1):
                tests.append({
                    "name": f"{ch.id} {ex.id} {ex.title}: {shown_name(ex, t, instructor)}",
                    "number": f"{int(ch.id[2:])}.{ex.id[2:] if ex.id.startswith('ex') else 'M'}.{k}",
                    "score": number(t.score),
                    "max_score": number(t.max_score),
                    "status": "passed" if t.score == t.max_score and t.outcome and t.outcome.passed else "failed",
                    "output": _test_output(ch, ex, t, instructor, budget),
                    "tags": [ch.id, ex.id] + (["hidden"] if t.hidden else []),
                    "visibility": "after_published" if t.hidden else "visible",
                })
    return {
        "score": number(sum((c.score for c in chapters), Fraction(0))),
        "max_score": number(sum((c.max_score for c in chapters), Fraction(0))),
        "output": clean(summary, None),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"chapters": [{"chapter": c.id, "title": c.title, "score": number(c.score),
                                     "max_score": number(c.max_score), "build_failed": bool(c.build_error)}
                                    for c in chapters]},
    }


def junit_xml(chapters: list[Chapter], instructor: bool = False) -> bytes:
    root = ET.Element("testsuites", name="kindling grading")
    budget = [TOTAL_LIMIT]
    n_all = f_all = e_all = 0
    for ch in chapters:
        suite = ET.SubElement(root, "testsuite", name=f"{ch.id} — {ch.title}")
        n = f = e = 0
        secs = 0.0
        for ex in ch.graded():
            for t in ex.tests:
                o = t.outcome or Outcome("failed", "not run")
                n += 1
                secs += o.seconds
                case = ET.SubElement(suite, "testcase", classname=f"{ch.id}.{ex.id}",
                                     name=_xml_safe(shown_name(ex, t, instructor)),
                                     time=f"{o.seconds:.3f}")
                props = ET.SubElement(case, "properties")
                ET.SubElement(props, "property", name="score", value=fmt(t.score))
                ET.SubElement(props, "property", name="max_score", value=fmt(t.max_score))
                if not o.passed:
                    kind = "error" if o.status in ("crashed", "timed_out", "build_failed") else "failure"
                    f, e = (f, e + 1) if kind == "error" else (f + 1, e)
                    said = o.describe() if instructor or not t.hidden else "a hidden test did not pass"
                    el = ET.SubElement(case, kind, message=_xml_safe(_short(said, 300)), type=o.status)
                    el.text = _xml_safe(_test_output(ch, ex, t, instructor, budget))
        suite.set("tests", str(n))
        suite.set("failures", str(f))
        suite.set("errors", str(e))
        suite.set("time", f"{secs:.3f}")
        n_all += n
        f_all += f
        e_all += e
    root.set("tests", str(n_all))
    root.set("failures", str(f_all))
    root.set("errors", str(e_all))
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _atomic_write(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_reports(chapters: list[Chapter], out_dir: str, summary: str, instructor_dir: str | None = None) -> None:
    """Write results.json, junit.xml and the chapters' details files atomically (never half a file); when
    hidden tests were graded, the same reports in full into `instructor_dir` (default <out>/instructor)."""
    sanitize(chapters)
    summary = clean(summary, None)
    os.makedirs(out_dir, exist_ok=True)
    _atomic_write(os.path.join(out_dir, "results.json"), json.dumps(results_json(chapters, summary), indent=2).encode())
    _atomic_write(os.path.join(out_dir, "junit.xml"), junit_xml(chapters))
    for ch in chapters:
        _atomic_write(details_path(out_dir, ch), details(ch).encode())
    instructor_dir = instructor_dir or os.path.join(out_dir, "instructor")
    if any(t.hidden for c in chapters for t in c.all_tests()):
        os.makedirs(instructor_dir, exist_ok=True)
        _atomic_write(os.path.join(instructor_dir, "results.json"),
                      json.dumps(results_json(chapters, summary, instructor=True), indent=2).encode())
        _atomic_write(os.path.join(instructor_dir, "junit.xml"), junit_xml(chapters, instructor=True))
        for ch in chapters:
            _atomic_write(details_path(instructor_dir, ch), details(ch, instructor=True).encode())

