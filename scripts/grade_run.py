"""Running one graded test in its own process and judging it from its result record (used by grade.py).

The verdict never comes from what the program prints. Each test gets a fresh case folder (KINDLING_GRADE_CASE):
in/ holds its PyTorch twin's inputs, out/ what it writes. The grading listener (tests/grading/grading_listener.cpp)
appends a JSON record {name, passed, ...} to out/record.jsonl only after the test case ran to its end; the test's
reported results (out/reports.jsonl) must then agree with the twin's expected values, which never enter the test
process (grade_compare.py). Order of verdicts: timed out > output flood > killed by a signal > no record (exited
early) > not implemented > the record's own verdict > the comparison with PyTorch.
"""
from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

import grade_sandbox
from grade_compare import compare
from grade_safe import UnsafeOutput, read_output

HEAD, TAIL = 6000, 2000  # bytes of the program's output kept for the report (the rest is counted, not kept)
MAX_RECORD_BYTES = 1 << 20  # a test's result record is a few hundred bytes; its files are read with a cap


@dataclass
class Outcome:
    status: str            # passed | failed | not_implemented | blocked | crashed | timed_out | build_failed | not_run
    detail: str = ""       # first failure message, signal name, compiler excerpt...
    output: str = ""       # an excerpt of what the program printed (never used for the verdict)
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def describe(self) -> str:
        """The short status shown in the score table."""
        if self.status == "passed":
            return "passed"
        if self.status == "not_implemented":
            return "not implemented yet"
        if self.status == "blocked":
            return self.detail or "waits for another exercise"
        if self.status == "timed_out":
            return f"timed out ({self.detail})"
        if self.status == "crashed":
            return f"crashed ({self.detail})"
        if self.status == "build_failed":  # an answer file the answer-file rules refused (issue 26) says so
            return "refused by the answer-file rules" if "refused by the answer-file rules" in \
                self.detail.split("\n", 1)[0] else "build failed"
        if self.status == "not_run":
            return f"not run: {self.detail}" if self.detail else "not run"
        return f"failed: {self.detail}" if self.detail else "failed"


def verdict_problem(points, expected: dict | None) -> str:
    """Why a graded test cannot be judged (a grader problem), or ''. A test worth points needs a verdict
    from outside its process: results compared with its PyTorch twin's, or judged by a checker. Its
    result record and its Catch2 assertions are written by the process that also runs the learner's
    code (a static constructor in an answer file can write them), so on their own they prove nothing."""
    if not points:
        return ""
    if expected is None:
        return ("this test has points but no PyTorch twin or checker to judge its results outside its "
                "process (grader problem: please report it; the test scores 0)")
    if not expected.get("results"):
        return ("this test's twin compares no result (grader problem: please report it; the test scores 0)")
    return ""


def catch_spec(name: str) -> str:
    """A Catch2 v2 test spec matching exactly `name` (\\ , [ ] * are special to its parser)."""
    out = []
    for ch in name:
        if ch in "\\,[]*\"~":
            out.append("\\")
        out.append(ch)
    return "".join(out)


def signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def run_capped(cmd: list[str], env: dict, cwd: str, timeout: float, limit: int,
               ro: list[tuple[str, str]] | None = None, rw: list[str] | None = None) -> tuple[int | None, bytes, int, str]:
    """Run cmd in its own session — in a sandbox seeing only the `ro` (source, destination) and `rw`
    binds, when ro is given (grade_sandbox.py); returns (returncode or None, output excerpt, bytes printed,
    why-killed).

    Output is drained continuously (a chatty program never blocks on a full pipe) but only HEAD+TAIL
    bytes are kept; past `limit` bytes, or past `timeout` seconds, the whole process group is killed, and
    whatever the program left running is killed too.
    """
    if ro is not None:
        cmd = grade_sandbox.wrap(cmd, env, cwd, ro, rw or [])
    proc = grade_sandbox.spawn(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=cwd, env=env, start_new_session=True)
    fd = proc.stdout.fileno()
    head, tail, total, why = bytearray(), bytearray(), 0, ""
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                why = "timeout"
                break
            ready, _, _ = select.select([fd], [], [], min(left, 0.2))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break  # EOF: every writer closed the pipe
                total += len(chunk)
                if len(head) < HEAD:
                    take = HEAD - len(head)
                    head += chunk[:take]
                    chunk = chunk[take:]
                tail = (tail + chunk)[-TAIL:]
                if total > limit:
                    why = "flood"
                    break
            elif proc.poll() is not None:
                break  # exited; a leftover child may still hold the pipe open: stop reading anyway
        if not why:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                why = "timeout"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the test and anything it forked
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        proc.stdout.close()
        grade_sandbox.finished(proc.pid)
    rc = proc.returncode
    if ro is not None and grade_sandbox.sandbox_kind() == "bwrap" and rc is not None and 128 < rc < 128 + 65:
        rc = -(rc - 128)  # bwrap reports a program killed by signal N as exit status 128 + N
    excerpt = bytes(head)
    if total > len(head):
        skipped = total - len(head) - len(tail)
        excerpt += (f"\n[... {skipped} bytes not shown ...]\n".encode() if skipped > 0 else b"") + bytes(tail)
    return (None if why else rc), excerpt, total, why


def test_env(case_dir: str) -> dict:
    """What a test process inherits: nothing of the grader's own environment but the essentials."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": case_dir, "LANG": "C.UTF-8", "TMPDIR": case_dir,
           "OPENBLAS_NUM_THREADS": "1", "KINDLING_NUM_THREADS": "1",  # tests run side by side
           "KINDLING_GRADE_CASE": case_dir}
    for k in ("KINDLING_FASHION_MNIST", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


def make_case_dir(workdir: str, inputs_dir: str | None) -> str:
    """A fresh folder for one test: in/ (the twin's inputs) and out/ (what the test writes). In the sandbox
    in/ is the twin's input folder itself, bound read-only; without it, the inputs are copied."""
    tmp = tempfile.mkdtemp(prefix="t-", dir=workdir)
    os.makedirs(os.path.join(tmp, "in"))
    os.makedirs(os.path.join(tmp, "out"))
    if inputs_dir and os.path.isdir(inputs_dir) and grade_sandbox.sandbox_kind() != "bwrap":
        for f in os.listdir(inputs_dir):
            shutil.copyfile(os.path.join(inputs_dir, f), os.path.join(tmp, "in", f))
    return tmp


_hashes: dict[str, str] = {}
_hash_lock = threading.Lock()


def remember_program(path: str) -> None:
    """Records a test program's hash right after it was built (before any learner code ran)."""
    with _hash_lock:
        _hashes[path] = file_hash(path)


def file_hash(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def program_tampered(path: str) -> bool:
    with _hash_lock:
        want = _hashes.get(path)
    return want is not None and file_hash(path) != want


def run_test(binary: str, name: str, timeout: float, limit: int, workdir: str, inputs_dir: str | None = None,
             expected: str | None = None, points=None) -> Outcome:
    """Run the one TEST_CASE `name` of `binary` and judge it: its record (the in-process assertions) and
    the results it reported, compared outside the process with its PyTorch twin's (`expected`). A test
    worth `points` without results to compare is not run: see verdict_problem."""
    exp = None
    if expected:
        try:
            with open(expected) as f:
                exp = json.load(f)
        except (OSError, ValueError) as e:
            return Outcome("failed", detail=f"the twin's expected results are unreadable (grader problem): {e}")
    problem = verdict_problem(points, exp)
    if problem:
        return Outcome("failed", detail=problem)
    if program_tampered(binary):
        return Outcome("failed", detail="the test program was changed on disk while grading (by an earlier test's "
                                        "code?); it is not run")
    tmp = make_case_dir(workdir, inputs_dir)
    try:
        start = time.monotonic()
        ro = [(binary, binary)]
        if inputs_dir and os.path.isdir(inputs_dir):
            ro.append((inputs_dir, os.path.join(tmp, "in")))
        rc, out, total, why = run_capped([binary, catch_spec(name)], test_env(tmp), os.path.join(tmp, "out"),
                                         timeout, limit, ro=ro, rw=[os.path.join(tmp, "out")])
        seconds = time.monotonic() - start
        records = []
        unsafe = ""  # the program left something other than a regular file where its record goes
        out_dir = os.path.join(tmp, "out")
        try:  # regular files only, never through a symlink, capped (grade_safe.py): this runs outside the sandbox
            record_text = read_output(out_dir, "record.jsonl", MAX_RECORD_BYTES).decode("utf-8", errors="replace")
        except FileNotFoundError:
            record_text = ""
        except (UnsafeOutput, OSError) as e:
            record_text, unsafe = "", f"its result record was refused: {e}"
        for line in record_text.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and rec.get("name") == name:
                records.append(rec)
        crash_note = ""
        try:
            crash_note = read_output(out_dir, "crash.txt", 4096)[:200].decode("utf-8", errors="replace").strip()
        except (UnsafeOutput, OSError):
            pass
        text = out.decode("utf-8", errors="replace")
        o = Outcome("failed", output=text, seconds=seconds)
        if why == "timeout":
            o.status, o.detail = "timed_out", f"after {timeout:g} s"
        elif why == "flood":
            o.detail = f"printed more than {limit / (1 << 20):.3g} MiB of output (the limit) and was stopped"
        elif unsafe:
            o.detail = unsafe
        elif rc is not None and rc < 0:
            o.status, o.detail = "crashed", signal_name(-rc)
            if crash_note == "stack overflow" and -rc == signal.SIGSEGV:
                o.detail = ("stack overflow — unbounded recursion: does your piece call the library function it "
                            "implements, or recurse once per element?")
        elif len(records) != 1:
            if records:
                o.detail = f"the test ran {len(records)} times in one process (duplicate test names?)"
            else:
                o.status = "crashed"
                o.detail = f"exited with status {rc} before the test finished"
        else:
            rec = records[0]
            if rec.get("not_implemented"):
                o.status, o.detail = "not_implemented", str(rec.get("not_implemented_what") or rec.get("first_failure", ""))
            elif not rec.get("passed"):
                o.detail = str(rec.get("first_failure") or "a check failed")
            elif rc != 0:
                o.detail = f"the test passed but the program then exited with status {rc}"
            elif expected:
                ok, why_not, n = compare(expected, os.path.join(tmp, "out", "reports.jsonl"))
                if ok and n == 0 and points:
                    o.detail = verdict_problem(points, {"results": {}})
                elif ok:
                    o.status = "passed"
                else:
                    o.detail = why_not
            elif int(rec.get("assertions_passed", 0)) == 0:
                o.detail = "the test made no checks (ask your instructor: a graded test must assert something)"
            else:
                o.status = "passed"
        o.extra = {"exit_status": rc, "bytes_printed": total}
        return o
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
