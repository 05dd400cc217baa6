#!/usr/bin/python3
"""Kindling's grader: build each chapter's graded test program, run every graded test in its own process,
print a score table and write results.json (Gradescope) and junit.xml.

    make grade                  grade exercises/ (the learner's work)
    make grade SOLUTIONS=1      grade solutions/ (must score 100 %)
    make grade CH=02            one chapter

A chapter is a folder tests/grading/chNN/ with an exercises.json manifest and Catch2 tests tagged
[chNN][exK][pts=N] (hidden ones in tests/grading/hidden/chNN/, tagged [hidden]). Its program is the CMake
target grade_chNN_<tree>. Verdicts come from the per-test result records of tests/grading/grading_listener.cpp,
never from the program's output (see grade_run.py). The grader exits 0 and writes its results whatever the
learner's code does — fails to compile, crashes, hangs, exits early — unless --expect is not met (exit 1).
Standard library only (runs under /usr/bin/python3).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_report import Chapter, Exercise, GradedTest, fmt, table, write_reports  # noqa: E402
from grade_run import Outcome, run_capped, run_test, signal_name  # noqa: E402

TEST_CASE = re.compile(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"\s*\)')
PTS = re.compile(r"^pts=(\d+(?:\.\d+)?)$")


def log(args, msg: str) -> None:
    if not args.quiet:
        print(msg, file=sys.stderr, flush=True)


# ---- chapters, manifests, test catalogues --------------------------------------------------------------
def load_manifest(tests_dir: Path, ch: str) -> dict:
    path = tests_dir / ch / "exercises.json"
    if not path.exists():
        return {"title": ch, "exercises": {}}
    return json.loads(path.read_text())


def scan_sources(tests_dir: Path, ch: str) -> list[dict]:
    """Graded tests found by reading the test sources (used when the program did not build)."""
    found = []
    for f in sorted(list((tests_dir / ch).glob("*.cpp")) + list((tests_dir / "hidden" / ch).glob("*.cpp"))):
        text = f.read_text(errors="replace")
        for m in TEST_CASE.finditer(text):
            name = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
            tags = re.findall(r"\[([^\]]*)\]", m.group(2))
            found.append({"name": name, "tags": [t.lower() for t in tags], "file": str(f),
                          "line": text.count("\n", 0, m.start()) + 1})
    return found


def _under(path: Path, root: Path) -> Path | None:
    """`path` relative to `root`, or None. __FILE__ may be relative (ccache's base_dir rewrites it, e.g.
    ../tree/tests/grading/ch01/x.cpp): then it must contain root's last two names (tests/grading)."""
    if path.is_absolute():
        try:
            return path.resolve().relative_to(root)
        except ValueError:
            return None
    parts, tail = list(path.parts), [root.parent.name, root.name]
    for k in range(len(parts) - 2, -1, -1):
        if parts[k:k + 2] == tail and root.joinpath(*parts[k + 2:]).is_file():
            return Path(*parts[k + 2:])
    return None


def graded_tests(entries: list[dict], tests_dir: Path, ch: str, notes: list[str]) -> list[GradedTest]:
    """Keep the tests that live under tests_dir and carry [chNN][exK][pts=N]; sorted by file and line."""
    out = []
    root = tests_dir.resolve()
    for e in entries:
        rel = _under(Path(e["file"]), root)
        if rel is None:
            continue  # a TEST_CASE outside the graded tests (e.g. in a learner's file) earns nothing
        tags = [t.lower() for t in e["tags"]]
        exs = [t for t in tags if re.fullmatch(r"ex\d+", t)]
        pts = [float(PTS.match(t).group(1)) for t in tags if PTS.match(t)]
        if ch not in tags or len(exs) != 1 or len(pts) != 1:
            notes.append(f"ignored TEST_CASE \"{e['name']}\" ({rel}:{e['line']}): it needs the tags "
                         f"[{ch}][exK][pts=N]")
            continue
        out.append(GradedTest(name=e["name"], chapter=ch, exercise=exs[0], pts=pts[0],
                              hidden="hidden" in tags or rel.parts[0] == "hidden", tags=tags,
                              file=str(rel), line=int(e["line"])))
    out.sort(key=lambda t: (t.hidden, t.file, t.line))
    return out


def assemble(ch: str, manifest: dict, tests: list[GradedTest]) -> Chapter:
    """Group tests by exercise; an exercise's points are split across its tests by their pts weights."""
    info = manifest.get("exercises", {})
    ids = sorted(set(info) | {t.exercise for t in tests}, key=lambda x: int(x[2:]))
    exercises = []
    for ex in ids:
        meta = info.get(ex, {})
        mine = [t for t in tests if t.exercise == ex]
        weight = sum(t.pts for t in mine)
        points = float(meta.get("points", weight))
        for t in mine:
            t.max_score = points * t.pts / weight if weight > 0 else 0.0
        exercises.append(Exercise(ex, meta.get("title", ex), meta.get("hint", ""), points, mine))
    return Chapter(ch, manifest.get("title", ch), exercises)


def catalogue(binary: Path, workdir: str, timeout: float) -> tuple[list[dict] | None, str]:
    """Ask the program for its test list (the listener writes it; Catch2 v2 has no machine-readable list)."""
    path = os.path.join(workdir, "catalogue.json")
    env = dict(os.environ, KINDLING_GRADE_CATALOGUE=path)
    rc, out, _, why = run_capped([str(binary), "kindling-grade-catalogue-only"], env, workdir, timeout, 1 << 20)
    try:
        with open(path) as f:
            return json.load(f)["tests"], ""
    except (OSError, ValueError, KeyError):
        how = why or (f"killed by {signal_name(-rc)}" if rc is not None and rc < 0 else f"exit status {rc}")
        said = out.decode(errors="replace").strip()[-1500:]
        return None, f"the test program did not start ({how})" + (f": {said}" if said else "")


# ---- building ------------------------------------------------------------------------------------------
def error_excerpt(log_text: str, source: Path, limit: int = 40) -> str:
    """The compiler's error lines (and a little context), paths shown relative to the repository."""
    lines = log_text.splitlines()
    keep: list[str] = []
    for i, line in enumerate(lines):
        if " -c " in line and " -o " in line:
            continue  # the compiler's command line: long and not what a learner needs
        if re.search(r"\berror\b|undefined reference|FAILED:|fatal", line, re.I):
            for l in lines[i: i + 3]:
                if l not in keep[-3:] and not (" -c " in l and " -o " in l):
                    keep.append(l)
        if len(keep) >= limit:
            break
    text = "\n".join(keep or lines[-limit:])
    return text.replace(str(source) + "/", "")


def build(args, target: str) -> str:
    """Build one target; returns "" on success or the error excerpt."""
    cmd = ["cmake", "--build", str(args.build), "--target", target, "-j", str(args.jobs)]
    for attempt in (1, 2):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        if p.returncode == 0:
            return ""
        if attempt == 1 and "unknown target" in p.stdout:
            # A chapter folder added since the last configure: re-run CMake once, then retry.
            subprocess.run(["cmake", str(args.build)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            continue
        excerpt = error_excerpt(p.stdout, args.source)
        if "unknown target" in p.stdout:
            excerpt += (f"\nCMake defines no target {target}: does {args.tree}/{target.split('_')[1]}/ exist? "
                        f"(run `make exercises` in the instructor repository)")
        return excerpt
    return "unreachable"


def configure(args) -> str:
    if (args.build / "CMakeCache.txt").exists():
        return ""
    log(args, f"grade: configuring {args.build} ...")
    p = subprocess.run(["cmake", "-S", str(args.source), "-B", str(args.build), "-G", "Ninja"] + args.cmake_arg,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return "" if p.returncode == 0 else "CMake configure failed:\n" + p.stdout[-3000:]


# ---- one chapter ---------------------------------------------------------------------------------------
def grade_chapter(args, ch: str, setup_error: str, workdir: str) -> Chapter:
    tests_dir = args.tests_dir
    notes: list[str] = []
    try:
        manifest = load_manifest(tests_dir, ch)
    except (OSError, ValueError) as e:
        manifest = {"title": ch, "exercises": {}}
        notes.append(f"tests/grading/{ch}/exercises.json is unreadable: {e}")
    target = f"grade_{ch}_{args.tree}"
    binary = args.build / "grading-bin" / target  # RUNTIME_OUTPUT_DIRECTORY set in GradedChapter.cmake
    error = setup_error
    if not error and not args.no_build:
        log(args, f"grade: building {target} ...")
        error = build(args, target)
    if not error and not binary.exists():
        error = f"{target} was not built ({binary} is missing)."
    entries, start_error = None, ""
    if not error:
        entries, start_error = catalogue(binary, workdir, args.timeout)
    source_entries = scan_sources(tests_dir, ch)
    tests = graded_tests(entries if entries is not None else source_entries, tests_dir, ch, notes)
    if entries is not None:
        scanned = {t.name for t in graded_tests(source_entries, tests_dir, ch, [])}
        if scanned != {t.name for t in tests}:
            notes.append("the test list read from the sources differs from the program's; write graded tests "
                         "as TEST_CASE(\"literal name\", \"[tags]\") so a build failure still lists them")
    chapter = assemble(ch, manifest, tests)
    chapter.notes = notes
    if error:
        chapter.build_error = error
        for t in tests:
            t.outcome = Outcome("build_failed", detail=error)
        return chapter
    if start_error:  # e.g. a learner's global object that crashes before main()
        chapter.notes.append(start_error)
        for t in tests:
            t.outcome = Outcome("crashed", detail="the test program crashed before any test started")
        return chapter
    timeouts = {ex: float(m.get("timeout", args.timeout)) for ex, m in manifest.get("exercises", {}).items()}
    log(args, f"grade: running {len(tests)} test(s) of {ch} ...")
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {t.name: pool.submit(run_test, str(binary), t.name, timeouts.get(t.exercise, args.timeout),
                                       args.output_limit, workdir) for t in tests}
        for t in tests:
            try:
                t.outcome = futures[t.name].result()
            except Exception as e:  # the grader's own failure must not lose the other tests' results
                t.outcome = Outcome("failed", detail=f"grader error: {e}")
    return chapter


def discover(tests_dir: Path, wanted: str | None) -> list[str]:
    chapters = sorted(p.name for p in tests_dir.glob("ch[0-9][0-9]") if p.is_dir()
                      and ((p / "exercises.json").exists() or any(p.glob("*.cpp"))))
    if wanted:
        ch = "ch" + wanted.removeprefix("ch").zfill(2)
        chapters = [c for c in chapters if c == ch]
    return chapters


def check_expectation(args, chapters: list[Chapter]) -> int:
    if not args.expect:
        return 0
    problems = []
    for c in chapters:
        n = sum(len(e.tests) for e in c.exercises)
        if n == 0:
            problems.append(f"{c.id}: no graded tests")
        if args.expect == "full" and (c.score < c.max_score - 1e-9 or c.build_error):
            problems.append(f"{c.id}: {fmt(c.score)} / {fmt(c.max_score)} (expected full marks)")
        if args.expect == "zero" and c.score > 0:
            problems.append(f"{c.id}: {fmt(c.score)} / {fmt(c.max_score)} (expected 0)")
    try:
        data = json.loads((args.out / "results.json").read_text())
        if not isinstance(data.get("tests"), list) or "score" not in data:
            problems.append("results.json lacks score/tests")
    except (OSError, ValueError) as e:
        problems.append(f"results.json unreadable: {e}")
    for p in problems:
        print(f"grade --expect {args.expect}: {p}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", type=Path, default=here, help="repository root (default: this script's)")
    ap.add_argument("--build", type=Path, default=None, help="CMake build folder (default: <source>/build)")
    ap.add_argument("--out", type=Path, default=None, help="where results.json/junit.xml go (default: <build>/grade)")
    ap.add_argument("--solutions", action="store_true", help="grade solutions/ instead of exercises/")
    ap.add_argument("--tree", default=None, help="target suffix to grade (exercises, solutions, ...)")
    ap.add_argument("--chapter", help="only this chapter (02 or ch02)")
    ap.add_argument("--tests-dir", type=Path, default=None, help="graded tests (default: <source>/tests/grading)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per test (manifest 'timeout' overrides)")
    ap.add_argument("--output-limit", type=int, default=4 << 20, help="bytes a test may print before it is killed")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-build", action="store_true", help="use the programs already built")
    ap.add_argument("--cmake-arg", action="append", default=[], help="extra argument for a first configure")
    ap.add_argument("--expect", choices=["full", "zero"], help="exit 1 unless every chapter scores full/zero")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    args.source = args.source.resolve()
    args.build = (args.build or args.source / "build").resolve()
    args.out = (args.out or args.build / "grade").resolve()
    args.tests_dir = (args.tests_dir or args.source / "tests" / "grading").resolve()
    args.tree = args.tree or ("solutions" if args.solutions else "exercises")
    args.jobs = max(1, args.jobs)
    # A crashing learner program must not litter the folder with core files.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    chapters: list[Chapter] = []
    try:
        names = discover(args.tests_dir, args.chapter)
        setup_error = configure(args) if names and not args.no_build else ""
        with tempfile.TemporaryDirectory(prefix="kindling-grade-") as work:
            for ch in names:
                chapters.append(grade_chapter(args, ch, setup_error, work))
        summary = table(chapters, str(args.out))
    except Exception:  # never leave without results: report the grader's own bug as the output
        summary = "The grader itself failed (please report this):\n" + traceback.format_exc()
    print(summary)
    write_reports(chapters, str(args.out), summary)
    return check_expectation(args, chapters)


if __name__ == "__main__":
    sys.exit(main())
