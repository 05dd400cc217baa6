"""The grader's three reports (used by grade.py): the score table, results.json (Gradescope), junit.xml."""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from grade_run import Outcome


@dataclass
class GradedTest:
    name: str
    chapter: str          # "ch02"
    exercise: str         # "ex1"
    pts: float            # the test's weight inside its exercise ([pts=N])
    hidden: bool
    tags: list[str]
    file: str = ""
    line: int = 0
    outcome: Outcome | None = None
    max_score: float = 0.0  # this test's share of its exercise's points

    @property
    def score(self) -> float:
        return self.max_score if self.outcome is not None and self.outcome.passed else 0.0


@dataclass
class Exercise:
    id: str
    title: str
    hint: str
    points: float
    tests: list[GradedTest] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)

    def status(self) -> Outcome:
        """The exercise's status: passed, or the first test that did not pass (declaration order)."""
        for t in self.tests:
            if t.outcome is None or not t.outcome.passed:
                return t.outcome or Outcome("failed", "not run")
        return Outcome("passed")


@dataclass
class Chapter:
    id: str                # "ch02"
    title: str
    exercises: list[Exercise]
    build_error: str = ""  # compiler excerpt when the chapter's program did not build
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.points for e in self.exercises if e.tests)


def fmt(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 1e-9 else f"{x:.2f}".rstrip("0").rstrip(".")


def _xml_safe(s: str) -> str:
    """XML 1.0 forbids most control characters; a learner's program may print anything."""
    return "".join(c if c in "\t\n\r" or (" " <= c and c not in "\ufffe\uffff") else "?" for c in s)


def _one_line(s: str, n: int = 110) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def table(chapters: list[Chapter], out_dir: str) -> str:
    lines = []
    for ch in chapters:
        head = f"Chapter {ch.id[2:]} — {ch.title}"
        lines.append(f"{head:<62}{fmt(ch.score):>4} / {fmt(ch.max_score)}")
        if ch.build_error:
            lines.append("  build failed — every test of this chapter scores 0. The compiler said:")
            lines += ["    " + l for l in ch.build_error.splitlines()[:12]]
        for note in ch.notes:
            lines.append(f"  note: {note}")
        for ex in ch.exercises:
            if not ex.tests:
                continue
            st = ex.status()
            shown = st.describe() if not ch.build_error else "build failed"
            lines.append(f"  {ex.id:<4} {_one_line(ex.title, 36):<36} {fmt(ex.score):>5} / {fmt(ex.points):<4} "
                         f"{_one_line(shown)}")
            if not st.passed and ex.hint:
                lines.append(f"       hint: {ex.hint}")
    if len(chapters) > 1:
        total = sum(c.score for c in chapters)
        lines.append(f"{'Total':<62}{fmt(total):>4} / {fmt(sum(c.max_score for c in chapters))}")
    if not chapters:
        lines.append("No graded chapters found (tests/grading/chNN/ with an exercises.json).")
    lines.append(f"results: {os.path.join(out_dir, 'results.json')}  (Gradescope)   "
                 f"{os.path.join(out_dir, 'junit.xml')}")
    return "\n".join(lines)


def _test_output(ch: Chapter, ex: Exercise, t: GradedTest) -> str:
    o = t.outcome or Outcome("failed", "not run")
    parts = [f"{ch.id}.{ex.id} — {ex.title}: {o.describe()}"]
    if o.status == "build_failed":
        parts.append(ch.build_error)
    elif o.detail and o.status in ("not_implemented",):
        parts.append(o.detail)
    if not o.passed and ex.hint:
        parts.append(f"hint: {ex.hint}")
    if o.output.strip() and o.status not in ("passed", "not_implemented", "build_failed"):
        parts.append("program output (excerpt):\n" + o.output[-3000:])
    return "\n".join(parts)


def results_json(chapters: list[Chapter], summary: str) -> dict:
    tests = []
    for ch in chapters:
        for ex in ch.exercises:
            for k, t in enumerate(ex.tests, 1):
                tests.append({
                    "name": f"{ch.id} {ex.id} {ex.title}: {t.name}",
                    "number": f"{int(ch.id[2:])}.{ex.id[2:]}.{k}",
                    "score": round(t.score, 4),
                    "max_score": round(t.max_score, 4),
                    "status": "passed" if t.score == t.max_score and t.outcome and t.outcome.passed else "failed",
                    "output": _test_output(ch, ex, t),
                    "tags": [ch.id, ex.id] + (["hidden"] if t.hidden else []),
                    "visibility": "after_published" if t.hidden else "visible",
                })
    return {
        "score": round(sum(c.score for c in chapters), 4),
        "max_score": round(sum(c.max_score for c in chapters), 4),
        "output": summary,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"chapters": [{"chapter": c.id, "title": c.title, "score": round(c.score, 4),
                                     "max_score": round(c.max_score, 4), "build_failed": bool(c.build_error)}
                                    for c in chapters]},
    }


def junit_xml(chapters: list[Chapter]) -> bytes:
    root = ET.Element("testsuites", name="kindling grading")
    n_all = f_all = e_all = 0
    for ch in chapters:
        suite = ET.SubElement(root, "testsuite", name=f"{ch.id} — {ch.title}")
        n = f = e = 0
        secs = 0.0
        for ex in ch.exercises:
            for t in ex.tests:
                o = t.outcome or Outcome("failed", "not run")
                n += 1
                secs += o.seconds
                case = ET.SubElement(suite, "testcase", classname=f"{ch.id}.{ex.id}", name=_xml_safe(t.name),
                                     time=f"{o.seconds:.3f}")
                ET.SubElement(case, "properties")
                ET.SubElement(case.find("properties"), "property", name="score", value=fmt(t.score))
                ET.SubElement(case.find("properties"), "property", name="max_score", value=fmt(t.max_score))
                if not o.passed:
                    kind = "error" if o.status in ("crashed", "timed_out", "build_failed") else "failure"
                    f, e = (f, e + 1) if kind == "error" else (f + 1, e)
                    el = ET.SubElement(case, kind, message=_xml_safe(_one_line(o.describe(), 300)), type=o.status)
                    el.text = _xml_safe(_test_output(ch, ex, t))
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


def write_reports(chapters: list[Chapter], out_dir: str, summary: str) -> None:
    """Write results.json and junit.xml atomically (a reader never sees half a file)."""
    os.makedirs(out_dir, exist_ok=True)
    for name, data in (("results.json", json.dumps(results_json(chapters, summary), indent=2).encode()),
                       ("junit.xml", junit_xml(chapters))):
        tmp = os.path.join(out_dir, f".{name}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(out_dir, name))
