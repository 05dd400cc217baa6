#!/usr/bin/python3
"""The red-team suite: grade every attack of attacks.json and fail if one earns a point or leaks.

    run_redteam.py --build <the instructor's build>                 in the full tree (CTest, `make test`)
    run_redteam.py --handout <handout> --handout-build <its build>  in a handout (tests/tools/test_handout.sh)
    options: --only NAME[,NAME]  --strict (pending attacks count too)

Each attack is a learner's tree (files under exercises/ only: here tests/grading/redteam/<tree>/chNN/)
or, for the milestone checkers, planted program outputs. In the full tree it is graded as the grader's
own test trees are (cmake/KindlingPieces.cmake makes tree rt_<tree>: each answer file in a program of
its own, the reference for everything else); in a handout the chapter's reference answers (a learner
who did the other pieces right) and then the attack's files are copied into exercises/, the learner's
`make grade` runs, and the stubs are put back. Every attack must score 0 for the exercises it holds (an
attack marked `partly_right`, a piece right for some inputs, must lose points), and no marker may
appear in anything a student sees (the grader's printed table, results.json, junit.xml, chNN.txt --
everything under --out but the instructor's folder): the planted secret's text, a host file's first
line, a solution's markers, any hidden test's name, a terminal escape, a NUL, a right-to-left override;
results.json and junit.xml must parse. An attack marked `pending` names a defence built on another
branch: its result is shown but does not fail the suite until that defence is merged and the mark
deleted (or with --strict).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PY = "/usr/bin/python3"
SECRET = "REDTEAM-SECRET-7f3a: this line stands for a file only the grader may read\n"
# Characters that must never reach a report: ESC, the 8-bit CSI, NUL, a right-to-left override.
BAD_CHARS = {"\x1b": "an ESC (terminal escape)", "\x9b": "an 8-bit CSI", "\x00": "a NUL",
             "\u202e": "a right-to-left override"}
MAX_RESULTS_BYTES = 3 << 20


def hidden_test_names(source: Path) -> list[str]:
    names = []
    for f in sorted((source / "tests" / "grading" / "hidden").glob("ch[0-9][0-9]/*.cpp")):
        names += re.findall(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"', f.read_text(errors="replace"))
    return names


def visible_texts(out: Path, printed: str) -> dict[str, str]:
    """What a student may see: the printed table and every file under out/ but the instructor's folder."""
    texts = {"the printed table": printed}
    for f in sorted(out.rglob("*")):
        if f.is_file() and "instructor" not in f.relative_to(out).parts:
            texts[str(f.relative_to(out))] = f.read_bytes().decode("utf-8", errors="replace")
    return texts


def leaks(texts: dict[str, str], markers: list[str], out: Path) -> list[str]:
    problems = []
    for where, text in texts.items():
        for m in markers:
            if m and m in text:
                problems.append(f"{where} shows {m[:80]!r}")
        for c, what in BAD_CHARS.items():
            if c in text:
                problems.append(f"{where} holds {what}")
        if where.endswith(".json") and "\\u001b" in text.lower():
            problems.append(f"{where} holds an escaped ESC")
    for name in ("results.json", "junit.xml"):
        f = out / name
        if not f.exists():
            problems.append(f"{name} was not written")
            continue
        if f.stat().st_size > MAX_RESULTS_BYTES:
            problems.append(f"{name} is {f.stat().st_size} bytes (a flood reached it)")
        try:
            json.loads(f.read_text()) if name.endswith(".json") else ET.parse(f)
        except (ValueError, ET.ParseError) as e:
            problems.append(f"{name} does not parse: {e}")
    return problems


def twins(source: Path, build: Path, ch: str) -> str:
    """PyTorch's answers for the chapter's public tests, left in <build>/grading/twins/<ch>/ as if an
    earlier run had kept them there (the grader keeps nothing: each run computes the twins of the tests
    it runs, on inputs drawn for that run, in a private folder it removes). The attacks embed or read
    these files; they must earn nothing, because the next run's inputs differ."""
    sys.path.insert(0, str(source / "scripts"))
    import grade  # noqa: E402
    names = []
    for f in sorted((source / "tests" / "grading" / ch).glob("*.cpp")):
        names += re.findall(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"', f.read_text(errors="replace"))
    ns = SimpleNamespace(tests_dir=source / "tests" / "grading", build=build, python=PY, quiet=True)
    with tempfile.TemporaryDirectory(prefix="redteam-twins-") as work:
        folder, err = grade.twins(ns, ch, names, work)
        if err or folder is None:
            return err or f"{ch} has no PyTorch twins"
        dest = build / "grading" / "twins" / ch
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, dest)
    return ""


def prime_ccache(source: Path, build: Path, source_file: Path) -> str:
    """Compile `source_file` once as the build would, but outside any sandbox, into the shared ccache;
    the object is then removed, so that the grader's build compiles it again (and may get a cache hit)."""
    try:
        entries = json.loads((build / "compile_commands.json").read_text())
    except (OSError, ValueError) as e:
        return f"no compile_commands.json to prime ccache with: {e}"
    for e in entries:
        if Path(e["file"]).resolve() == source_file.resolve():
            cmd = e.get("command", "")
            m = re.search(r"\s-o\s+(\S+)", cmd)
            # With the build's own CCACHE_BASEDIR (CMakeLists.txt), so that the grader's compile would hit.
            p = subprocess.run(f"ccache {cmd}", shell=True, cwd=e["directory"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace",
                               env=dict(os.environ, CCACHE_BASEDIR=str(source)))
            if m:
                Path(e["directory"], m.group(1)).unlink(missing_ok=True)
            return "" if p.returncode == 0 else f"priming compile failed: {p.stdout[-500:]}"
    return f"{source_file} is not in compile_commands.json"


def tree_files(tree_dir: Path) -> dict[str, list[Path]]:
    return {c.name: sorted(c.glob("*.cpp")) for c in sorted(tree_dir.glob("ch[0-9][0-9]")) if c.is_dir()}


def exercise_of(source: Path, ch: str, file: Path) -> str:
    manifest = json.loads((source / "tests" / "grading" / ch / "exercises.json").read_text())
    for ex, info in manifest["exercises"].items():
        if info["file"] == file.name:
            return ex
    raise SystemExit(f"redteam: {file} is no answer file of {ch}")


def score_of(out: Path, ch: str, exercises: set[str]) -> tuple[float, float]:
    try:
        res = json.loads((out / "results.json").read_text())
    except (OSError, ValueError):
        return 0.0, 0.0
    s = m = 0.0
    for t in res.get("tests", []):
        if t["tags"][:1] == [ch] and len(t["tags"]) > 1 and t["tags"][1] in exercises:
            s += t["score"]
            m += t["max_score"]
    return s, m


def grade_attack(a: dict, args, markers: list[str]) -> tuple[list[str], str]:
    """Grade one tree attack; (problems, one-line summary)."""
    tree_dir = HERE / a["tree"]
    handout = args.handout is not None
    source = args.handout if handout else ROOT
    build = args.handout_build if handout else args.build
    out = build / "redteam" / a["name"]
    shutil.rmtree(out, ignore_errors=True)
    problems: list[str] = []
    env = dict(os.environ)
    if a.get("no_sandbox"):
        env["KINDLING_GRADE_NO_SANDBOX"] = "1"
    if a.get("secret_file"):
        (build / "redteam-secret.txt").write_text(SECRET)
    files = tree_files(tree_dir)
    summary = []
    for ch, srcs in files.items():
        exercises = {exercise_of(source, ch, f) for f in srcs}
        if a.get("needs_twins"):
            err = twins(source, build, ch)
            if err:
                problems.append(f"the twins of {ch} failed: {err[-300:]}")
        if handout:
            # A learner who wrote the chapter's other pieces right (the reference, from the full tree
            # this suite runs in) and attacks with these files.
            for f in sorted((ROOT / "solutions" / ch).glob("*")):
                if f.is_file():
                    shutil.copyfile(f, source / "exercises" / ch / f.name)
            for f in srcs:
                shutil.copyfile(f, source / "exercises" / ch / f.name)
        try:
            if a.get("prime_ccache"):
                for f in srcs:
                    where = source / "exercises" / ch / f.name if handout else f
                    err = prime_ccache(source, build, where)
                    if err:
                        problems.append(err)
            cmd = [PY, str(source / "scripts" / "grade.py"), "--source", str(source), "--build", str(build),
                   "--chapter", ch, "--no-milestone", "--jobs", "2", "--quiet", "--out", str(out)]
            if not handout:
                desc = json.loads((build / "grading" / f"{ch}.json").read_text())
                programs = desc["trees"][f"rt_{a['tree']}"]["programs"]
                targets = [programs[ex] for ex in sorted(exercises)]
                subprocess.run(["cmake", "--build", str(build), "-j", "2", "--target", *targets, "--", "-k", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                cmd += ["--tree", f"rt_{a['tree']}", "--no-build"]
                if len(exercises) == 1:
                    cmd += ["--exercise", f"{ch}.{next(iter(exercises))}"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=900)
            printed = p.stdout.decode("utf-8", errors="replace")
            if b"\x1b" in p.stdout:
                problems.append("the grader printed an ESC to the terminal")
        finally:
            if handout:  # the pristine stubs back
                for f in sorted((source / "tests" / "grading" / "stubs" / ch).glob("*")):
                    shutil.copyfile(f, source / "exercises" / ch / f.name)
        s, m = score_of(out, ch, exercises)
        if a.get("no_sandbox"):
            # No sandbox and no --insecure: the grader must refuse (exit 3), award nothing and say why.
            try:
                iso = json.loads((out / "results.json").read_text()).get("isolation", "")
            except (OSError, ValueError):
                iso = ""
            if p.returncode != 3 or s != 0 or not iso.startswith("none: grading refused"):
                problems.append(f"{ch}: graded without a sandbox (exit {p.returncode}, {s:g} of {m:g} points, "
                                f"isolation {iso!r}); it must refuse unless --insecure")
        elif m == 0:
            problems.append(f"{ch} {sorted(exercises)}: not graded (exit {p.returncode}):\n{printed[-1500:]}")
        elif a.get("partly_right") and s >= m - 1e-9:
            problems.append(f"{ch} {sorted(exercises)}: full marks ({s:g} of {m:g}) for a piece that is wrong")
        elif s > 0 and not a.get("partly_right"):
            problems.append(f"{ch} {sorted(exercises)}: earned {s:g} of {m:g} points")
        summary.append(f"{ch} {','.join(sorted(exercises))}: " +
                       (f"refused (exit {p.returncode})" if a.get("no_sandbox") else f"{s:g} / {m:g}"))
        problems += leaks(visible_texts(out, printed), markers, out)
        if a.get("hidden_check") and not handout:
            full = out / "instructor" / "results.json"
            hidden = hidden_test_names(source)
            if not full.exists() or not any(n in full.read_text() for n in hidden):
                problems.append("the instructor's copy (instructor/results.json) lacks the hidden tests")
    return problems, "; ".join(summary)


def checker_attack(args, markers: list[str]) -> tuple[list[str], str]:
    """The milestone checkers (run outside the sandbox) on outputs a program could leave."""
    source = args.handout or ROOT
    problems, done = [], []
    secret_dir = Path(tempfile.mkdtemp(prefix="redteam-host-"))
    host_file = secret_dir / "host-secret.txt"
    host_file.write_text(SECRET * 10)
    cases = {  # chapter -> {case: {output name: how to plant it}}
        "ch01": {"link": {"predictions.npy": ("link", str(host_file))},
                 "fifo": {"predictions.npy": ("fifo", "")},
                 "dev_zero": {"predictions.npy": ("link", "/dev/zero")},
                 "huge": {"predictions.npy": ("huge", "")},
                 "junk": {"predictions.npy": ("text", SECRET)}},
        # A well-formed y.npy, so that the checker goes on to compare how the network prints.
        "ch03": {"link": {"repr.txt": ("link", str(host_file)), "y.npy": ("npy", (512, 10))},
                 "text": {"repr.txt": ("text", SECRET), "y.npy": ("npy", (512, 10))},
                 "fifo": {"repr.txt": ("fifo", ""), "y.npy": ("npy", (512, 10))}},
    }
    try:
        for ch, by_case in cases.items():
            checker = source / "tests" / "grading" / ch / "milestone.py"
            if not checker.exists():
                continue
            for case, plant in by_case.items():
                tmp = Path(tempfile.mkdtemp(prefix=f"redteam-{ch}-{case}-"))
                out = tmp / "out"
                out.mkdir()
                if case in ("link", "fifo"):  # every output file the checker names gets the same plant
                    named = re.findall(r'"([\w.-]+\.(?:npy|txt|json|safetensors))"', checker.read_text())
                    first = next(iter(plant.values()))
                    plant = {**{n: first for n in named if n != "verdict.json"}, **plant}
                for name, (how, arg) in plant.items():
                    if how == "link":
                        os.symlink(arg, out / name)
                    elif how == "fifo":
                        os.mkfifo(out / name)
                    elif how == "npy":
                        import numpy as np
                        np.save(out / name, np.zeros(arg, np.float32))
                    elif how == "huge":
                        with open(out / name, "wb") as f:
                            f.truncate(200 << 20)
                    else:
                        (out / name).write_text(arg)
                start = time.monotonic()
                try:
                    # The grader hands each run's secret to the checker on stdin (scripts/grade.py).
                    p = subprocess.run([PY, str(checker), "check", str(out)], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=120,
                                       input=json.dumps({"secret": os.urandom(32).hex()}).encode())
                    said = p.stdout.decode("utf-8", errors="replace")
                except subprocess.TimeoutExpired:
                    problems.append(f"{ch} checker, {case}: hung (killed after 120 s)")
                    shutil.rmtree(tmp, ignore_errors=True)
                    continue
                try:
                    v = json.loads((tmp / "verdict.json").read_text())
                except (OSError, ValueError):
                    problems.append(f"{ch} checker, {case}: no verdict (it crashed):\n{said[-800:]}")
                    v = {}
                if v.get("passed"):
                    problems.append(f"{ch} checker, {case}: PASSED")
                text = json.dumps(v) + said
                for m in markers + ["REDTEAM-SECRET"]:
                    if m in text:
                        problems.append(f"{ch} checker, {case}: its verdict quotes {m!r}")
                done.append(f"{ch}:{case} {time.monotonic() - start:.1f}s")
                shutil.rmtree(tmp, ignore_errors=True)
    finally:
        shutil.rmtree(secret_dir, ignore_errors=True)
    return problems, ", ".join(done)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=Path, help="the instructor's build folder")
    ap.add_argument("--handout", type=Path, help="a handout tree (its exercises/ are overwritten, then restored)")
    ap.add_argument("--handout-build", type=Path, help="the handout's build folder")
    ap.add_argument("--only", default="", help="comma-separated attack names")
    ap.add_argument("--strict", action="store_true", help="pending attacks fail the suite too")
    args = ap.parse_args()
    if args.handout:
        args.handout, args.handout_build = args.handout.resolve(), args.handout_build.resolve()
    elif args.build:
        args.build = args.build.resolve()
    else:
        ap.error("--build or --handout/--handout-build")
    spec = json.loads((HERE / "attacks.json").read_text())
    markers = list(spec["markers"]) + ([] if args.handout else hidden_test_names(ROOT))
    only = {n for n in args.only.split(",") if n}
    failures, pending_failures = [], []
    start_all = time.monotonic()
    for a in spec["attacks"]:
        if only and a["name"] not in only:
            continue
        start = time.monotonic()
        if a.get("checker"):
            problems, summary = checker_attack(args, markers)
        else:
            problems, summary = grade_attack(a, args, markers)
        pending = a.get("pending") and not args.strict
        status = "ok" if not problems else ("PENDING" if pending else "FAIL")
        print(f"[{status}] {a['name']} (class {a['class']}: {a['what']}) {summary} ({time.monotonic() - start:.0f} s)")
        for p in problems:
            print(f"    {p}")
        if problems and pending:
            print(f"    (pending: {a['pending']})")
            pending_failures.append(a["name"])
        elif problems:
            failures.append(a["name"])
    print(f"redteam: {len(failures)} attack(s) failed{': ' + ', '.join(failures) if failures else ''}; "
          f"{len(pending_failures)} pending on defences not merged yet"
          f"{': ' + ', '.join(pending_failures) if pending_failures else ''} ({time.monotonic() - start_all:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
