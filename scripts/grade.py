#!/usr/bin/python3
"""Kindling's grader: build each chapter's graded programs, run every graded test in its own process,
run the chapter's milestone, print a score table and write results.json (Gradescope) and junit.xml.

    make grade                    grade your exercises/, every chapter        (scripts/grade.py)
    make grade CH=02              one chapter;   make grade EX=ch02.ex3   one exercise
    make milestone CH=05          the chapter's milestone only
    make hint EX=ch02.ex3         every hint of one exercise
    make grade SOLUTIONS=1        grade solutions/ (must score 100 %)

A chapter is a folder tests/grading/chNN/ with an exercises.json manifest and Catch2 tests tagged
[chNN][exK][pts=N] (hidden ones in tests/grading/hidden/chNN/, tagged [hidden]). What CMake built for it
is described in <build>/grading/chNN.json (tests/grading/CMakeLists.txt). In the library model each
exercise is a piece of the library: where the tree has the reference, the tests of exercise K run in a
program whose other pieces are the reference ones (isolated); in a handout, in one program with every
piece the learner wrote (a file that does not compile is replaced by its stub). A test's verdict comes
from its result record (tests/grading/grading_listener.cpp) and from its reported results agreeing with
its PyTorch twin (tests/grading/twins.py, grade_compare.py), on inputs drawn for this run from a secret
drawn after the build — never from the program's output, and never from the record alone: a test worth
points without results compared or judged outside its process scores 0 (grade_run.verdict_problem). The
grader exits 0 and writes its results whatever the learner's code does, unless --expect is not met.
Standard library only (runs under /usr/bin/python3; the twins and milestone checkers use torch/numpy).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_report import Chapter, Exercise, GradedTest, exact, fmt, table, write_reports  # noqa: E402
import grade_sandbox  # noqa: E402
from grade_safe import clean, read_output  # noqa: E402
from grade_run import Outcome, remember_program, run_capped, run_test, signal_name, test_env  # noqa: E402

TEST_CASE = re.compile(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"\s*\)')
PTS = re.compile(r"^pts=(\d+(?:\.\d+)?)$")
PIECE_ID = re.compile(r"\b(ch\d\d)\.(ex\d+)\b")


def log(args, msg: str) -> None:
    if not args.quiet:
        print(msg, file=sys.stderr, flush=True)


# ---- chapters, manifests, test catalogues --------------------------------------------------------------
def load_manifest(tests_dir: Path, ch: str) -> dict:
    path = tests_dir / ch / "exercises.json"
    if not path.exists():
        return {"title": ch, "exercises": {}}
    return json.loads(path.read_text())


def hints_of(meta: dict) -> list[str]:
    """The tiered hints of an exercise: "hints" (a nudge first), or the older single "hint"."""
    h = meta.get("hints")
    if isinstance(h, list):
        return [str(x) for x in h]
    return [str(meta["hint"])] if meta.get("hint") else []


def scan_sources(tests_dir: Path, ch: str) -> list[dict]:
    """The graded tests, read from the test sources: the list the grader expects and enforces."""
    found = []
    files = sorted(p for p in (tests_dir / ch).glob("*.cpp") if p.name != "milestone.cpp")
    for f in files + sorted((tests_dir / "hidden" / ch).glob("*.cpp")):
        text = f.read_text(errors="replace")
        for m in TEST_CASE.finditer(text):
            name = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
            tags = re.findall(r"\[([^\]]*)\]", m.group(2))
            found.append({"name": name, "tags": [t.lower() for t in tags], "file": str(f.relative_to(tests_dir)),
                          "line": text.count("\n", 0, m.start()) + 1})
    return found


def graded_tests(entries: list[dict], ch: str, notes: list[str]) -> list[GradedTest]:
    """Keep the tests that carry [chNN][exK][pts=N]; sorted by file and line."""
    out = []
    for e in entries:
        tags = e["tags"]
        exs = [t for t in tags if re.fullmatch(r"ex\d+", t)]
        pts = [Fraction(PTS.match(t).group(1)) for t in tags if PTS.match(t)]
        if ch not in tags or len(exs) != 1 or len(pts) != 1:
            notes.append(f"ignored TEST_CASE \"{e['name']}\" ({e['file']}:{e['line']}): it needs the tags "
                         f"[{ch}][exK][pts=N]")
            continue
        out.append(GradedTest(name=e["name"], chapter=ch, exercise=exs[0], pts=pts[0],
                              hidden="hidden" in tags or e["file"].startswith("hidden/"), tags=tags,
                              file=e["file"], line=int(e["line"])))
    out.sort(key=lambda t: (t.hidden, t.file, t.line))
    return out


def assemble(ch: str, manifest: dict, tests: list[GradedTest]) -> Chapter:
    """Group tests by exercise; an exercise's points are split across its tests by their pts weights, in
    exact fractions (three tests of 20 points are 20/3 each, and add up to 20)."""
    info = manifest.get("exercises", {})
    ids = sorted(set(info) | {t.exercise for t in tests}, key=lambda x: int(x[2:]))
    exercises = []
    for ex in ids:
        meta = info.get(ex, {})
        mine = [t for t in tests if t.exercise == ex]
        weight = sum((t.pts for t in mine), Fraction(0))
        points = exact(meta.get("points", weight))
        for t in mine:
            t.max_score = points * t.pts / weight if weight > 0 else Fraction(0)
        exercises.append(Exercise(ex, meta.get("title", ex), hints_of(meta), points, mine,
                                  piece=meta.get("piece", ""), test_hints=meta.get("test_hints", {}),
                                  show_output=str(meta.get("show_output", ""))))
    return Chapter(ch, manifest.get("title", ch), exercises)


def catalogue(binary: Path, workdir: str, timeout: float) -> tuple[list[dict] | None, str]:
    """Ask the program for its test list (the listener writes it; Catch2 v2 has no machine-readable list)."""
    tmp = tempfile.mkdtemp(prefix="cat-", dir=workdir)
    path = os.path.join(tmp, "catalogue.json")
    env = dict(test_env(tmp), KINDLING_GRADE_CATALOGUE=path)
    env.pop("KINDLING_GRADE_CASE")
    rc, out, _, why = run_capped([str(binary), "kindling-grade-catalogue-only"], env, tmp, timeout, 1 << 20,
                                 ro=[(str(binary), str(binary))], rw=[tmp])
    try:  # written by the program: a regular file only, never through a symlink, capped (grade_safe.py)
        return json.loads(read_output(tmp, "catalogue.json", 1 << 20))["tests"], ""
    except (OSError, ValueError, KeyError, TypeError):
        how = why or (f"killed by {signal_name(-rc)}" if rc is not None and rc < 0 else f"exit status {rc}")
        said = out.decode(errors="replace").strip()[-1500:]
        return None, f"the test program did not start ({how})" + (f": {said}" if said else "")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_catalogue(entries: list[dict], expected: list[GradedTest]) -> str:
    """The program must hold exactly the graded tests of the sources: an extra test (say, one an answer file
    defines) or a missing one is a failure, not a note."""
    have = {e["name"] for e in entries}
    want = {t.name for t in expected}
    extra, missing = sorted(have - want), sorted(want - have)
    if extra:
        return (f"the test program holds a test that tests/grading does not define: \"{extra[0]}\" "
                f"(answer files must not define tests)")
    if missing:
        hidden = {t.name for t in expected if t.hidden}
        if missing[0] in hidden:  # the student's reports never name a hidden test
            return "the test program lacks a hidden graded test"
        return f"the test program lacks the graded test \"{missing[0]}\""
    return ""


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
    return relative_paths(text, source)


RELATIVE_PATH = re.compile(r"(?<![\w/.])((?:\.\./)+[\w./+-]+)")


def relative_paths(text: str, source: Path) -> str:
    """Paths in compiler output shown relative to the repository: the build runs in a build folder (and
    ccache's base_dir makes paths relative to it), so ../exercises/ch01/x.cpp reads exercises/ch01/x.cpp."""
    text = text.replace(str(source) + "/", "")
    build_dirs = [source / "build", source / "build" / "x", source / "build" / "x" / "y"]

    def fix(m: re.Match) -> str:
        p = m.group(1)
        for base in build_dirs:  # the compile ran in <build> or deeper; take the first that resolves
            full = Path(os.path.normpath(base / p))
            try:
                rel = full.relative_to(source)
            except ValueError:
                continue
            if full.exists():
                return str(rel)
        return p
    return RELATIVE_PATH.sub(fix, text)


def build(args, targets: list[str]) -> tuple[bool, str]:
    """Build targets, going on past failures (-k 0); returns (all built, the build's output)."""
    if not targets:
        return True, ""
    cmd = ["cmake", "--build", str(args.build), "--target", *targets, "-j", str(args.jobs), "--", "-k", "0"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode == 0, p.stdout


PIECE_OBJECT = re.compile(r"kdp_ch\d\d_ex\d+_\w+?\.dir/")


def build_failures(build_out: str, targets: list[str], source: Path) -> tuple[set[str], str]:
    """From ninja's FAILED lines: the targets whose own link failed, and an excerpt when something other
    than an answer file failed (the library or the tests: then nothing built can be trusted)."""
    failed, other = set(), []
    for path in re.findall(r"^FAILED: (.*)$", build_out, re.M):
        path = path.strip()
        name = os.path.basename(path)
        if name in targets:
            failed.add(name)
        elif not PIECE_OBJECT.search(path):
            other.append(path)
    return failed, (error_excerpt(build_out, source, 25) if other else "")


def cache_values(build_dir: Path) -> dict[str, str]:
    vals = {}
    try:
        for line in (build_dir / "CMakeCache.txt").read_text(errors="replace").splitlines():
            m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line)
            if m:
                vals[m.group(1)] = m.group(2)
    except OSError:
        pass
    return vals


def configure(args) -> str:
    """Configure the build folder when it has no cache yet, or when a -D setting asked for differs."""
    cache = cache_values(args.build)
    wanted = {}
    for a in args.cmake_arg:
        m = re.match(r"^-D([A-Za-z0-9_]+)(?::[A-Z]+)?=(.*)$", a)
        if m:
            wanted[m.group(1)] = m.group(2)
    if cache and all(cache.get(k) == v for k, v in wanted.items()):
        # Up to date with what was asked -- but a manifest or an answer file may have changed since the
        # last configure (a chapter moved to the library model, a new exercise): let Ninja re-run CMake
        # where its configure dependencies say so, before this script reads <build>/grading/*.json.
        if cache.get("CMAKE_GENERATOR") == "Ninja" and (args.build / "build.ninja").exists():
            p = subprocess.run(["cmake", "--build", str(args.build), "--target", "build.ninja"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
            if p.returncode != 0:
                return "CMake configure failed:\n" + error_excerpt(p.stdout, args.source)
        return ""
    log(args, f"grade: configuring {args.build} ...")
    cmd = ["cmake", "-S", str(args.source), "-B", str(args.build), "-G", "Ninja"] + args.cmake_arg
    if cache:
        cmd = ["cmake", str(args.build)] + args.cmake_arg
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return "" if p.returncode == 0 else "CMake configure failed:\n" + error_excerpt(p.stdout, args.source)


def piece_log(path: str | None) -> tuple[str, str]:
    """(status, compiler output) of one answer file's last compile (scripts/compile_piece.py), or ('', '')."""
    if not path:
        return "", ""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return "", ""
    status = text.split("\n", 1)[0].removeprefix("status: ").strip()
    return status, text.split("\n\n", 1)[1] if "\n\n" in text else ""


def unsandboxed_objects(tree: dict) -> None:
    """Removes the objects of answer files compiled without the sandbox (their logs say `isolation: none`, or
    nothing: an older launcher), so that the build compiles them again, in the sandbox."""
    logs = list((tree.get("logs") or {}).values()) + list((tree.get("milestone_logs") or {}).values())
    for path in logs:
        try:
            head = Path(path).read_text(errors="replace").split("\n\n", 1)[0]
        except OSError:
            continue
        fields = dict(l.split(": ", 1) for l in head.splitlines() if ": " in l)
        if fields.get("isolation") != "bwrap" and fields.get("object"):
            Path(fields["object"]).unlink(missing_ok=True)


def refused_message(text: str, log_path: str, source: Path) -> str:
    """An answer file the answer-file rules refused (scripts/piece_policy.py): the rules it broke and why."""
    rules = [l.strip() for l in text.splitlines() if l.startswith("  [")][:8]
    head = text.splitlines()[0] if text else "the answer file was refused"
    return relative_paths("\n".join([head.rstrip(":") + ":", *rules]) + f"\n(full log: {log_path})", source)


# ---- isolation (issue 26) ------------------------------------------------------------------------------
NO_SANDBOX = """grade: no points awarded: the sandbox does not work on this machine ({why}).
Answer files are untrusted code: without bubblewrap they compile and run with this machine's files in view,
and a score could not be trusted. To fix: install bubblewrap (apt install bubblewrap) and allow unprivileged
user namespaces (sysctl kernel.unprivileged_userns_clone=1; in Docker: --security-opt seccomp=unconfined or
run the grader outside the container), then run the grader again. To grade anyway, knowing that a submission
could cheat (your own code, a quick look): pass --insecure (make grade INSECURE=1)."""


def isolation(args) -> str:
    """Which isolation this grading ran with, as results.json records it."""
    kind = grade_sandbox.sandbox_kind()
    return "bwrap" if kind == "bwrap" else f"none (--insecure: {kind})"


def record_isolation(out: Path, value: str, instructor_out: Path | None = None) -> None:
    """results.json (the student's and the instructor's copy) says which isolation ran (grade_report writes
    the rest of it)."""
    for folder in (out, instructor_out):
        if folder is None:
            continue
        path = Path(folder) / "results.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        data["isolation"] = value
        tmp = path.with_name(f".results.json.tmp.{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=2))
        os.replace(tmp, path)


# ---- the PyTorch twins -----------------------------------------------------------------------------------
def twins(args, ch: str, names: list[str], workdir: str) -> tuple[Path | None, str]:
    """Run the chapter's PyTorch twins of the tests `names` on inputs drawn for this run; (folder, error).

    Called after the build, so nothing compiled can know the run's inputs: the secret comes from
    os.urandom here, goes to the twins' process on its standard input and is then forgotten; it is never
    written to disk, never put in an environment or a command line. The inputs and expected results land in
    the grader's private working folder (a test's sandbox sees only its own in/ folder, bound read-only),
    and are gone when grading ends. No cache across runs: only the twins of the tests being run are
    computed, in one Python process per chapter."""
    files = [p for p in (args.tests_dir / ch / "pytorch.py", args.tests_dir / "hidden" / ch / "pytorch.py")
             if p.exists()]
    if not files:
        return None, ""
    out = Path(tempfile.mkdtemp(prefix=f"twins-{ch}-", dir=workdir))
    script = args.tests_dir / "twins.py"
    log(args, f"grade: computing {ch}'s expected results with PyTorch ...")
    request = json.dumps({"secret": os.urandom(32).hex(), "only": sorted(names)})
    p = subprocess.run([args.python, str(script), str(out), *map(str, files)], input=request,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    del request
    if p.returncode != 0:
        return None, f"the PyTorch twins of {ch} failed (grader problem, please report):\n{p.stdout[-3000:]}"
    return out, ""


# ---- milestones ----------------------------------------------------------------------------------------
def run_milestone(args, ch: str, binary: Path, meta: dict, workdir: str) -> Outcome:
    """Prepare the milestone's inputs for this run, run the program on the learner's library, let the
    chapter's checker judge what it wrote. The verdict is the checker's, never the program's output; a
    secret drawn here (after the build) goes to both checker steps on stdin, so what the checker draws
    (weights, inputs) is new each run and the program cannot have it in advance."""
    checker = args.tests_dir / ch / "milestone.py"
    secret = json.dumps({"secret": os.urandom(32).hex()}).encode()
    in_dir = Path(tempfile.mkdtemp(prefix=f"milestone-{ch}-in-", dir=workdir))
    p = grade_sandbox.run_tool([args.python, str(checker), "prepare", str(in_dir)], input=secret)
    if p.returncode != 0:
        return Outcome("failed", detail=f"the milestone's inputs could not be prepared (grader problem): "
                                        f"{p.stdout[-1500:]}")
    tmp = tempfile.mkdtemp(prefix="m-", dir=workdir)
    out_dir = os.path.join(tmp, "out")
    os.makedirs(out_dir)
    timeout = float(meta.get("timeout", 300))
    try:
        start = time.monotonic()
        env = test_env(tmp)
        env.pop("KINDLING_GRADE_CASE")
        env.pop("OPENBLAS_NUM_THREADS")
        env.pop("KINDLING_NUM_THREADS")
        rc, out, _, why = run_capped([str(binary), str(in_dir), out_dir], env, tmp, timeout, args.output_limit,
                                     ro=[(str(binary), str(binary)), (str(in_dir), str(in_dir))], rw=[out_dir])
        seconds = time.monotonic() - start
        text = out.decode("utf-8", errors="replace")
        o = Outcome("failed", output=text, seconds=seconds)
        if why == "timeout":
            o.status, o.detail = "timed_out", f"after {timeout:g} s"
            return o
        if why == "flood":
            o.detail = "printed more output than the limit and was stopped"
            return o
        if rc != 0:
            m = re.search(r"NotImplemented: (ch\d\d\.ex\d+ \([^)]*\))", text)
            if m:
                o.status, o.detail = "not_implemented", f"stopped at {m.group(1)}"
            elif rc is not None and rc < 0:
                o.status, o.detail = "crashed", signal_name(-rc)
            else:
                last = [l for l in text.strip().splitlines() if l.strip()][-1:] or [""]
                o.detail = f"the program exited with status {rc}: {last[0][:300]}"
            return o
        # Only the checker may write the verdict: whatever a program left there (it cannot reach this folder
        # in the sandbox, but can without one) goes before the checker runs.
        Path(tmp, "verdict.json").unlink(missing_ok=True)
        p = grade_sandbox.run_tool([args.python, str(checker), "check", out_dir], input=secret)
        try:
            v = json.loads(Path(tmp, "verdict.json").read_text())
        except (OSError, ValueError):
            o.detail = f"the milestone checker failed (grader problem): {p.stdout[-1500:]}"
            return o
        o.extra = {"line": v["line"]}
        o.detail = v["line"] + (f" — {v['detail']}" if v.get("detail") else "")
        if v["passed"]:
            o.status = "passed"
        return o
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(in_dir, ignore_errors=True)


# ---- one chapter ---------------------------------------------------------------------------------------
def grade_chapter(args, ch: str, setup_error: str, workdir: str) -> Chapter:
    tests_dir = args.tests_dir
    notes: list[str] = []
    try:
        manifest = load_manifest(tests_dir, ch)
    except (OSError, ValueError) as e:
        manifest = {"title": ch, "exercises": {}}
        notes.append(f"tests/grading/{ch}/exercises.json is unreadable: {e}")
    tests = graded_tests(scan_sources(tests_dir, ch), ch, notes)
    if args.exercise:
        tests = [t for t in tests if t.exercise == args.exercise]
    chapter = assemble(ch, manifest, tests)
    chapter.notes = notes
    if args.exercise:
        chapter.exercises = [e for e in chapter.exercises if e.id == args.exercise]
    ms_meta = manifest.get("milestone")
    run_ms = bool(ms_meta) and not args.no_milestone and (not args.exercise or args.milestone_only)
    if args.milestone_only:
        chapter.exercises = []
        tests = []
    if ms_meta and (run_ms or not args.exercise):
        ms_points = exact(ms_meta.get("points", 0))
        chapter.milestone = Exercise("milestone", ms_meta.get("title", "milestone"), [], ms_points,
                                     [GradedTest(name="milestone", chapter=ch, exercise="milestone", pts=Fraction(1),
                                                 hidden=False, tags=[ch], max_score=ms_points)])
    if setup_error:
        chapter.build_error = setup_error
        for t in chapter.all_tests():
            t.outcome = Outcome("build_failed", detail=setup_error)
        return chapter

    desc_path = args.build / "grading" / f"{ch}.json"
    try:
        desc = json.loads(desc_path.read_text())
        tree = desc["trees"][args.tree]
    except (OSError, ValueError, KeyError):
        desc, tree = None, {"isolated": False, "programs": {"*": f"grade_{ch}_{args.tree}"}, "logs": {},
                            "milestone": None}
    bin_dir = Path(desc["bin"]) if desc else args.build / "grading-bin"
    programs: dict[str, str] = tree["programs"]
    wanted_ex = {t.exercise for t in tests}
    targets = sorted({tg for key, tg in programs.items() if key == "*" or key in wanted_ex} if tests else set())
    ms_target = tree.get("milestone") if run_ms else None
    if ms_target:
        targets.append(ms_target)
    build_out = ""
    if not args.no_build and targets and grade_sandbox.sandbox_kind() != "bwrap":
        # Without the sandbox a test could have replaced a program on disk (refused then by its hash):
        # link the programs afresh rather than trust what is there.
        for t in targets:
            (bin_dir / t).unlink(missing_ok=True)
    if not args.no_build and targets and grade_sandbox.sandbox_kind() == "bwrap":
        unsandboxed_objects(tree)  # an answer file compiled outside the sandbox is compiled again inside it
    if not args.no_build and targets:
        log(args, f"grade: building {', '.join(targets)} ...")
        _, build_out = build(args, targets)

    library = bool(desc and desc.get("model") == "library")
    twins_dir, twins_error = (twins(args, ch, [t.name for t in tests], workdir) if library and tests else (None, ""))
    if tests and not library:
        notes.append("this chapter is not in the library model: its verdicts come from its test processes "
                     "alone (fine for the grader's own fixtures, not for grading a class)")
    if twins_error:
        notes.append(twins_error)
    twin_manifest = {}
    if twins_dir:
        twin_manifest = json.loads((twins_dir / "manifest.json").read_text())

    failed_targets, global_failure = build_failures(build_out, targets, args.source) if build_out else (set(), "")
    if global_failure:
        notes.append("the library or the tests themselves did not build (not your answer files):\n" + global_failure)

    # Which program runs each exercise's tests, or why none can.
    program_for: dict[str, Path] = {}
    broken: dict[str, str] = {}
    for ex in wanted_ex:
        key = ex if ex in programs else "*"
        if key not in programs:
            broken[ex] = f"no graded program for {ch}.{ex} (is tests/grading/{ch}/exercises.json up to date?)"
            continue
        binary = bin_dir / programs[key]
        status, text = piece_log(tree.get("logs", {}).get(ex))
        if status == "failed":
            src = manifest.get("exercises", {}).get(ex, {}).get("file", "")
            broken[ex] = (f"exercises/{ch}/{src} does not compile. The compiler said:\n"
                          f"{error_excerpt(text, args.source, 25)}\n(full log: {tree['logs'][ex]})")
            continue
        if status == "refused":  # the answer-file rules (scripts/piece_policy.py, issue 26)
            broken[ex] = refused_message(text, tree["logs"][ex], args.source)
            continue
        if not binary.exists() or programs[key] in failed_targets or global_failure:
            broken[ex] = (f"{programs[key]} was not built. The build said:\n"
                          f"{error_excerpt(build_out, args.source, 25) or '(nothing; run make build)'}")
            continue
        program_for[ex] = binary

    # The programs as built, before any learner code ran: a program changed later is refused.
    for binary in set(program_for.values()):
        remember_program(str(binary))
    if ms_target and (bin_dir / ms_target).exists():
        remember_program(str(bin_dir / ms_target))

    # The test list each program holds must be exactly the expected one.
    listing_error: dict[Path, str] = {}
    for binary in sorted(set(program_for.values())):
        entries, start_error = catalogue(binary, workdir, args.timeout)
        if entries is None:
            listing_error[binary] = start_error or "the test program did not start"
        else:
            every = graded_tests(scan_sources(tests_dir, ch), ch, [])
            listing_error[binary] = check_catalogue(entries, every)

    timeouts = {ex: float(m.get("timeout", args.timeout)) for ex, m in manifest.get("exercises", {}).items()}
    log(args, f"grade: running {len(tests)} test(s) of {ch} ...")
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for t in tests:
            if t.exercise in broken:
                t.outcome = Outcome("build_failed", detail=broken[t.exercise])
                continue
            binary = program_for[t.exercise]
            if listing_error.get(binary):
                why = listing_error[binary]
                if "did not start" in why:
                    t.outcome = Outcome("crashed", detail="the test program crashed before any test started: "
                                                          + why.replace("the test program did not start ", ""))
                else:
                    t.outcome = Outcome("failed", detail=why)
                continue
            slug = twin_manifest.get(t.name)
            inputs = str(twins_dir / slug / "in") if slug else None
            expected = str(twins_dir / slug / "expected.json") if slug else None
            # In the library model a test worth points needs results judged outside its process (no twin:
            # a grader problem, 0 points). The older model (the grader's own fixture chapters) has no twins.
            points = t.max_score if library else None
            futures[t.name] = pool.submit(run_test, str(binary), t.name, timeouts.get(t.exercise, args.timeout),
                                          args.output_limit, workdir, inputs, expected, points)
        ms_future = None
        if ms_target:
            ms_bin = bin_dir / ms_target
            why = [f"{k} {'does not compile' if piece_log(p)[0] == 'failed' else 'was refused by the answer-file rules'}"
                   for k, p in (tree.get("milestone_logs") or {}).items() if piece_log(p)[0] in ("failed", "refused")]
            if ms_bin.exists() and not why and ms_target not in failed_targets and not global_failure:
                ms_future = pool.submit(run_milestone, args, ch, ms_bin, ms_meta, workdir)
            else:
                chapter.milestone.tests[0].outcome = Outcome(
                    "build_failed", detail="the milestone program was not built" + (
                        f": {', '.join(why)}" if why else f":\n{error_excerpt(build_out, args.source, 15)}"))
        for t in tests:
            if t.name in futures:
                try:
                    t.outcome = futures[t.name].result()
                except Exception as e:  # the grader's own failure must not lose the other tests' results
                    t.outcome = Outcome("failed", detail=f"grader error: {e}")
        if ms_future:
            try:
                chapter.milestone.tests[0].outcome = ms_future.result()
            except Exception as e:
                chapter.milestone.tests[0].outcome = Outcome("failed", detail=f"grader error: {e}")
    for t in tests:  # a stub of *another* exercise stopped this test: say which one is needed first
        o = t.outcome
        if o and o.status == "not_implemented":
            m = PIECE_ID.search(o.detail)
            if m and (m.group(1), m.group(2)) != (ch, t.exercise):
                o.status = "blocked"
                # "NotImplemented: ch01.ex1 (title) -- run make grade CH=01" -> "needs ch01.ex1 (title) first
                # -- run make grade CH=01": the piece named once.
                said = o.detail.removeprefix("NotImplemented: ").strip()
                piece = f"{m.group(1)}.{m.group(2)}"
                o.detail = (f"needs {said.replace(' -- ', ' first -- ', 1)}" if said.startswith(piece) and " -- " in said
                            else f"needs {piece} first ({said})")
    if chapter.milestone and chapter.milestone.tests[0].outcome is None:
        chapter.milestone.tests[0].outcome = Outcome("not_run", detail="run make milestone CH=" + ch[2:])
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
        if n == 0 and not args.milestone_only:
            problems.append(f"{c.id}: no graded tests")
        if args.expect == "full" and (c.score < c.max_score or c.build_error):
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


def show_hints(args) -> int:
    m = re.fullmatch(r"(?:ch)?(\d\d?)\.(ex\d+)", args.hint or "")
    if not m:
        print("make hint EX=ch02.ex3: name one exercise as chNN.exK", file=sys.stderr)
        return 2
    ch, ex = "ch" + m.group(1).zfill(2), m.group(2)
    manifest = load_manifest(args.tests_dir, ch)
    meta = manifest.get("exercises", {}).get(ex)
    if not meta:
        print(f"make hint: {ch} has no {ex} (see tests/grading/{ch}/exercises.json)", file=sys.stderr)
        return 2
    print(f"{ch}.{ex} — {meta.get('title', ex)}")
    if meta.get("piece"):
        print(f"  the piece: {meta['piece']}")
    if meta.get("file"):
        print(f"  your file: exercises/{ch}/{meta['file']}")
    # Tiers: the concept, then the approach; the last hint is the near-answer (often the solution in
    # pseudo-code), shown only when asked for with LEVEL=3 -- working it out is the exercise.
    hints = hints_of(meta)
    level = max(1, min(3, args.hint_level))
    near_answer = hints[-1] if len(hints) > 1 else None
    shown = hints[:-1] if near_answer else hints
    for k, h in enumerate(shown[:level] if level < 3 else shown, 1):
        print(f"  hint {k}: {h}")
    for test, h in meta.get("test_hints", {}).items():
        print(f"  if \"{test}\" fails: {h}")
    if near_answer and level >= 3:
        print(f"  near-answer: {near_answer}")
    elif near_answer or level < len(shown):
        more = "the next hint" if level < len(shown) else "the near-answer (close to the solution)"
        print(f"  (more: make hint EX={ch}.{ex} LEVEL={min(3, level + 1) if level < len(shown) else 3} shows {more})")
    return 0


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", type=Path, default=here, help="repository root (default: this script's)")
    ap.add_argument("--build", type=Path, default=None, help="CMake build folder (default: <source>/build)")
    ap.add_argument("--out", type=Path, default=None, help="where results.json/junit.xml go (default: <build>/grade)")
    ap.add_argument("--instructor-out", type=Path, default=None,
                    help="where the reports with the hidden tests in full go, when hidden tests are graded "
                         "(default: <out>/instructor; keep it away from what students see)")
    ap.add_argument("--solutions", action="store_true", help="grade solutions/ instead of exercises/")
    ap.add_argument("--tree", default=None, help="which tree to grade (exercises, solutions, a planted one)")
    ap.add_argument("--chapter", help="only this chapter (02 or ch02)")
    ap.add_argument("--exercise", help="only this exercise (ch02.ex3)")
    ap.add_argument("--milestone-only", action="store_true", help="only the chapter's milestone")
    ap.add_argument("--no-milestone", action="store_true", help="skip milestones")
    ap.add_argument("--hint", help="print the hints of one exercise (ch02.ex3) and exit")
    ap.add_argument("--hint-level", type=int, default=2,
                    help="with --hint: 1 the concept, 2 the approach too (default), 3 also the near-answer")
    ap.add_argument("--tests-dir", type=Path, default=None, help="graded tests (default: <source>/tests/grading)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per test (manifest 'timeout' overrides)")
    ap.add_argument("--output-limit", type=int, default=4 << 20, help="bytes a test may print before it is killed")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-build", action="store_true", help="use the programs already built")
    ap.add_argument("--cmake-arg", action="append", default=[],
                    help="-DNAME=VALUE for the build folder; it is (re)configured when a value differs")
    ap.add_argument("--python", default="/usr/bin/python3", help="Python with PyTorch (the twins, the checkers)")
    ap.add_argument("--expect", choices=["full", "zero"], help="exit 1 unless every chapter scores full/zero")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument("--insecure", action="store_true",
                    help="grade even where the sandbox (bubblewrap) does not work: scores are then not trustworthy")
    args = ap.parse_args(argv)
    args.source = args.source.resolve()
    args.build = (args.build or args.source / "build").resolve()
    args.out = (args.out or args.build / "grade").resolve()
    if args.milestone_only:
        # `make milestone` writes alongside `make grade`'s reports, never over them: a milestone run's
        # chNN.txt and results.json (milestones only) would otherwise replace the full ones.
        args.out = args.out / "milestone"
    args.instructor_out = (args.instructor_out or args.out / "instructor").resolve()
    args.tests_dir = (args.tests_dir or args.source / "tests" / "grading").resolve()
    args.tree = args.tree or ("solutions" if args.solutions else "exercises")
    args.jobs = max(1, args.jobs)
    if args.hint:
        return show_hints(args)
    if args.exercise:
        m = re.fullmatch(r"(?:ch)?(\d\d?)\.(ex\d+)", args.exercise)
        if not m:
            print("grade: --exercise / EX= names one exercise as chNN.exK, e.g. EX=ch02.ex3", file=sys.stderr)
            return 2
        args.chapter, args.exercise = m.group(1), m.group(2)
    # A crashing learner program must not litter the folder with core files.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    grade_sandbox.become_subreaper()  # whatever a test leaves running becomes ours to kill

    chapters: list[Chapter] = []
    if grade_sandbox.sandbox_kind() != "bwrap" and not args.insecure:
        # No sandbox, no scores (issue 26): nothing is built or run; results say why, with 0 points.
        msg = NO_SANDBOX.format(why=grade_sandbox.sandbox_kind())
        print(msg, file=sys.stderr)
        write_reports([], str(args.out), msg)
        record_isolation(args.out, "none: grading refused (no --insecure)")
        return 3
    try:
        names = discover(args.tests_dir, args.chapter)
        setup_error = configure(args) if names and not args.no_build else ""
        with tempfile.TemporaryDirectory(prefix="kindling-grade-") as work:
            for ch in names:
                chapters.append(grade_chapter(args, ch, setup_error, work))
        grade_sandbox.kill_orphans()  # nothing a test started may outlive the grading
        kind = grade_sandbox.sandbox_kind()
        if chapters and kind != "bwrap":
            chapters[0].notes.insert(0, f"the tests ran without a sandbox ({kind}); see scripts/grade_sandbox.py "
                                        f"for what still protects the verdict")
        summary = table(chapters, str(args.out), str(args.instructor_out))
        if args.milestone_only:  # `make milestone`: the one line per milestone first
            lines = []
            for c in chapters:
                if c.milestone and c.milestone.tests[0].outcome:
                    o = c.milestone.tests[0].outcome
                    lines.append(o.extra.get("line") or
                                 f"MILESTONE {c.id} {c.milestone.title}: not run to its end ({o.describe()}) FAIL")
            summary = "\n".join(lines + [summary])
    except Exception:  # never leave without results: report the grader's own bug as the output
        summary = "The grader itself failed (please report this):\n" + traceback.format_exc()
    summary = clean(summary, None)  # what reaches the terminal too: no learner escape sequence
    print(summary)
    write_reports(chapters, str(args.out), summary, str(args.instructor_out))
    record_isolation(args.out, isolation(args), args.instructor_out)
    return check_expectation(args, chapters)


if __name__ == "__main__":
    sys.exit(main())
