"""Where a learner's code runs when the grader runs it (used by grade_run.py and grade.py).

Threat model: the learner controls the files of exercises/, so their code runs inside every graded test
program. Nothing that process can write or read may decide its verdict. Each test therefore runs in its
own sandbox (Debian's bubblewrap, `bwrap`):

  * new PID, IPC, UTS, network and cgroup namespaces (`--unshare-all`), `--die-with-parent`: when the test
    ends, every process it started dies with its PID namespace — a double-forked, setsid daemon included;
  * a fresh root: /usr read-only (with the datasets and Python's packages hidden: no test labels to
    read, no PyTorch to compute the expected values with), the few files of /etc the loader needs, a
    private /tmp, and only the test program itself (read-only: it cannot be replaced) and the test's case
    folder (its inputs read-only, its out/ writable). The source tree, the build folder, the expected
    values, the other tests and the results are simply not there;
  * an empty environment but for a few settings: no secret to inherit (the verdict needs none).

Where bwrap does not work (not installed, no user namespaces), grade.py awards no points unless the
instructor passes --insecure (issue 26); with it, the grader falls back to what needs no namespace and says
so in its table and in results.json ("isolation"): the grader is the subreaper of everything a test starts and kills
whatever outlives its test (daemons), each program's hash is checked before every run (a replaced binary
is refused), the test list comes from the sources, learner files never see the tests' headers, and the
expected values are compared outside the process — but a learner's process could read files it should
not (for instance compute the expected values with PyTorch). Standard library only.
"""
from __future__ import annotations

import ctypes
import os
import resource
import shutil
import signal
import subprocess
import threading

_PR_SET_CHILD_SUBREAPER = 36
_lock = threading.Lock()
_active: set[int] = set()   # pids of the test processes running now (children of the grader)
_probe: str | None = None   # "bwrap" or the reason it is not used


def _bwrap_base() -> list[str]:
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
    for link in ("lib", "lib64", "bin", "sbin"):
        if os.path.islink(f"/{link}"):
            cmd += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            cmd += ["--ro-bind", f"/{link}", f"/{link}"]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/alternatives", "/etc/localtime"):
        if os.path.exists(f):
            cmd += ["--ro-bind", f, f]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    # What a test must not read: the datasets (milestones get their inputs in IN_DIR), PyTorch.
    for hidden in ("/usr/share/datasets", "/usr/local", "/usr/lib/python3/dist-packages"):
        if os.path.isdir(hidden):
            cmd += ["--tmpfs", hidden]
    # ...except the CUDA runtime's libraries, which chapter 8's programs link (a build with nvcc): the
    # toolkit's lib/ only, read-only, and /usr/local/cuda pointing at it as outside.
    cuda = "/usr/local/cuda"
    real = os.path.realpath(cuda)
    if os.path.isdir(os.path.join(real, "lib")):
        cmd += ["--ro-bind", os.path.join(real, "lib"), os.path.join(real, "lib")]
        if real != cuda:
            cmd += ["--symlink", real, cuda]
    return cmd


def sandbox_kind() -> str:
    """'bwrap' when bubblewrap works on this machine (probed once), else why not."""
    global _probe
    with _lock:
        if _probe is None:
            if os.environ.get("KINDLING_GRADE_NO_SANDBOX") == "1":
                _probe = "switched off (KINDLING_GRADE_NO_SANDBOX=1)"
            elif not shutil.which("bwrap"):
                _probe = "bubblewrap (bwrap) is not installed: apt install bubblewrap"
            else:
                try:
                    p = subprocess.run(_bwrap_base() + ["--", "/bin/true"], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=20)
                    _probe = "bwrap" if p.returncode == 0 else \
                        "bwrap does not work here: " + p.stdout.decode(errors="replace").strip()[:200]
                except (OSError, subprocess.TimeoutExpired) as e:
                    _probe = f"bwrap does not work here: {e}"
        return _probe


def wrap(cmd: list[str], env: dict, cwd: str, ro: list[tuple[str, str]], rw: list[str]) -> list[str]:
    """`cmd` as it runs in the sandbox: ro (source, destination) binds, rw folders bound at their own
    path, `env` as the whole environment, `cwd` inside. Without bwrap, `cmd` itself."""
    if sandbox_kind() != "bwrap":
        return cmd
    out = _bwrap_base()
    for src, dst in ro:
        out += ["--ro-bind", src, dst]
    for d in rw:
        out += ["--bind", d, d]
    out += ["--chdir", cwd, "--clearenv"]
    for k, v in env.items():
        out += ["--setenv", k, v]
    return out + ["--", *cmd]


def become_subreaper() -> None:
    """Orphans of a test (a setsid'd grandchild) become the grader's children, so that it can kill them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def spawn(cmd: list[str], **kwargs) -> subprocess.Popen:
    """Popen, registered as the grader's own child in the same breath (kill_orphans() takes the same lock,
    so it never mistakes a process being started for one left behind)."""
    with _lock:
        p = subprocess.Popen(cmd, **kwargs)
        _active.add(p.pid)
    return p


def run_tool(cmd: list[str], timeout: float = 600, input: bytes | None = None) -> subprocess.CompletedProcess:
    """One of the grader's own programs (a milestone checker) while tests may be running: registered, so
    that kill_orphans() leaves it alone. `input` goes to its standard input (the run's secret)."""
    p = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
              stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL)
    try:
        out, _ = p.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    finally:
        with _lock:
            _active.discard(p.pid)
    return subprocess.CompletedProcess(cmd, p.returncode, out.decode("utf-8", errors="replace"), None)


def finished(pid: int) -> None:
    """After a test process was reaped: it is no longer ours, and whatever it left running is killed."""
    with _lock:
        _active.discard(pid)
    kill_orphans()


def kill_orphans() -> int:
    """Kills the grader's children that no running test owns (what a test left behind); returns how many."""
    me = os.getpid()
    with _lock:
        return _kill_orphans_locked(me)


def _kill_orphans_locked(me: int) -> int:
    killed = 0
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        if pid in _active or pid == me:
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            ppid = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid != me:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            killed += 1
        except (ProcessLookupError, ChildProcessError, PermissionError):
            pass
    return killed


# ---- compiling answer files (issue 26) ------------------------------------------------------------------
# An answer file is code that runs inside the compiler's view of the grading machine: `#include`,
# `__has_include` and `asm(".incbin")` read whatever the compiler can read. scripts/compile_piece.py therefore
# runs the compiler in a sandbox of its own that holds the system (with the datasets, /usr/local and Python's
# packages hidden, as for tests), kindling's public headers, the private headers of the layers the program
# links, the build's generated headers and the learner's own chapter folder -- no solutions/, tests/, other
# build folders or datasets -- with nothing writable but the object's own folder, no network, an empty
# environment, and caps on time, memory and output size.
COMPILE_TIMEOUT = 120            # seconds for one compile (the longest reference answer takes ~10 s)
COMPILE_MEMORY = 4 << 30         # bytes of address space (cc1plus on the biggest answer: ~0.6 GB)
COMPILE_FILE_SIZE = 256 << 20    # bytes, the largest file the compiler may write (an object is ~1 MB)


def _compile_limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (COMPILE_MEMORY, COMPILE_MEMORY))
    resource.setrlimit(resource.RLIMIT_FSIZE, (COMPILE_FILE_SIZE, COMPILE_FILE_SIZE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (COMPILE_TIMEOUT + 10, COMPILE_TIMEOUT + 20))


def compile_command(cmd: list[str], cwd: str, ro: list[str], rw: list[str]) -> tuple[list[str], dict, str]:
    """(argv, environment, isolation) of a compiler command: in bwrap where it works, with `ro` folders
    bound read-only and `rw` folders writable at their own paths."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp", "CCACHE_DISABLE": "1"}
    kind = sandbox_kind()
    if kind != "bwrap":
        return cmd, env, f"none ({kind})"
    out = _bwrap_base()
    for d in ro:
        if os.path.exists(d):
            out += ["--ro-bind", d, d]
    for d in rw:
        out += ["--bind", d, d]
    if not any(cwd == d or cwd.startswith(d.rstrip("/") + "/") for d in rw + ro):
        out += ["--dir", cwd]
    out += ["--chdir", cwd, "--clearenv"]
    for k, v in env.items():
        out += ["--setenv", k, v]
    return out + ["--", *cmd], env, "bwrap"


def run_compiler(cmd: list[str], cwd: str, ro: list[str], rw: list[str]) -> tuple[int, str, str]:
    """Runs one compiler command in the compile sandbox with its caps: (exit status, output, isolation)."""
    argv, env, isolation = compile_command(cmd, cwd, ro, rw)
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, preexec_fn=_compile_limits, start_new_session=True)
    except OSError as e:
        return 127, f"cannot run the compiler: {e}", isolation
    try:
        out, _ = p.communicate(timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, _ = p.communicate()
        return 124, out.decode("utf-8", errors="replace")[-20000:] + \
            f"\nthe compile took longer than {COMPILE_TIMEOUT} s and was stopped", isolation
    text = out.decode("utf-8", errors="replace")
    if p.returncode < 0:
        text += f"\nthe compiler was killed by {signal.Signals(-p.returncode).name} (memory cap " \
                f"{COMPILE_MEMORY >> 30} GiB, time cap {COMPILE_TIMEOUT} s)"
    return p.returncode, text, isolation
