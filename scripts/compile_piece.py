#!/usr/bin/python3
"""Compiler launcher for the answer files a learner (or a planted submission) wrote.

CMake puts it in front of the compiler for those files only (cmake/KindlingPieces.cmake):

    compile_piece.py --log LOG --piece chNN.exK --chapter-dir DIR --stub STUB [--ro DIR]... [--cache DIR]
                     [--fallback STUB] -- <compiler> ... -c SOURCE -o OBJECT ...

An answer file is untrusted code (issue 26): it runs inside every graded test, and while it compiles it
sees what the compiler sees. So, in order:
  1. its source passes the source rules of scripts/piece_policy.py (regular files, no path outside its
     folder, no __has_include);
  2. it is preprocessed in the compile sandbox (scripts/grade_sandbox.py: the system, kindling's headers, the
     layers' private headers, the build's generated headers and the answer's own chapter folder; no
     solutions/, tests/, build folders or datasets; time, memory and file-size caps), and that text is
     checked (which files it read; no inline asm, no pragma tricks) -- then exactly that text is compiled,
     in the sandbox again, so nothing the checks did not see reaches the object;
  3. the object passes the object-file rules (no static constructors, no definitions but the piece's own
     -- its pristine stub's, compiled once per build into <cache> --, only allowed calls).
No compiler cache: ccache's direct mode does not record `__has_include` probes or `.incbin` inputs, so it
could hand back an object compiled under other conditions (an answer file is one small compile).

LOG's first line is `status: ok`, `status: failed` (the compiler's words follow) or `status: refused` (the
rules it broke, each with why); then `isolation:` (bwrap, or none and why). The grader shows it as the
exercise's message. With --fallback (the grader's chapter programs in a tree without the reference to
isolate exercises), a file that does not compile or is refused is replaced by its pristine stub and the
build goes on: the chapter's other exercises are still graded, and this one scores 0 with the reason.
Standard library only.
"""
from __future__ import annotations

import glob
import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade_sandbox  # noqa: E402
import piece_policy  # noqa: E402


def strip_launcher(cmd: list[str]) -> list[str]:
    """`env A=B ccache c++ ...` -> `c++ ...` (answer files are never cached)."""
    while cmd:
        if os.path.basename(cmd[0]) == "env":
            cmd = cmd[1:]
            while cmd and "=" in cmd[0] and not cmd[0].startswith("-"):
                cmd = cmd[1:]
        elif os.path.basename(cmd[0]) in ("ccache", "sccache"):
            cmd = cmd[1:]
        else:
            return cmd
    return cmd


def split_command(cmd: list[str]) -> tuple[str, str, list[str], list[str], list[str]]:
    """(source, object, flags for preprocessing, flags for compiling preprocessed text, dependency flags)."""
    source = obj = ""
    pre, comp, deps = [], [], []
    i = 1
    while i < len(cmd):
        a = cmd[i]
        nxt = cmd[i + 1] if i + 1 < len(cmd) else ""
        if a == "-c":
            source, i = nxt, i + 2
            continue
        if a == "-o":
            obj, i = nxt, i + 2
            continue
        if a in ("-MT", "-MF", "-MQ"):
            deps += [a, nxt]
            i += 2
            continue
        if a in ("-MD", "-MMD"):
            deps.append(a)
        elif a in ("-I", "-isystem", "-iquote", "-include", "-idirafter", "-D", "-U"):
            pre += [a, nxt]
            i += 2
            continue
        elif a.startswith(("-I", "-D", "-U", "-isystem", "-iquote", "-idirafter")):
            pre.append(a)
        else:
            pre.append(a)
            comp.append(a)
        i += 1
    return source, obj, pre, comp, deps


def system_roots() -> list[str]:
    roots = ["/usr/include", "/usr/lib/gcc", "/usr/lib/clang"] + glob.glob("/usr/lib/llvm-*")
    cuda = os.path.realpath("/usr/local/cuda")
    if os.path.isdir(os.path.join(cuda, "include")):
        roots.append(os.path.join(cuda, "include"))
    return roots


class Compile:
    def __init__(self, compiler: str, cwd: str, ro: list[str], rw: list[str]):
        self.compiler, self.cwd, self.ro, self.rw = compiler, cwd, ro, rw
        self.isolation = ""

    def run(self, args: list[str], extra_rw: list[str] | None = None) -> tuple[int, str]:
        rc, text, self.isolation = grade_sandbox.run_compiler([self.compiler, *args], self.cwd, self.ro,
                                                              self.rw + (extra_rw or []))
        return rc, text


def stub_symbols(c: Compile, stub: str, pre: list[str], comp: list[str], cache: str) -> tuple[set[str] | None, str]:
    """The strong symbols the pristine stub defines (the piece's own functions), compiled once per build."""
    try:
        with open(stub, "rb") as f:
            content = f.read()
    except OSError as e:
        return None, f"the pristine stub {stub} cannot be read ({e.strerror})"
    key = hashlib.sha256(content + "\0".join([c.compiler, *pre]).encode()).hexdigest()[:20]
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"stub-{key}.symbols")
    if os.path.exists(path):
        with open(path) as f:
            return set(f.read().split()), ""
    work = tempfile.mkdtemp(prefix="stub-", dir=cache)
    try:
        obj = os.path.join(work, "stub.o")
        # -O0: the strong symbols a file defines do not depend on optimisation, and it compiles in half the time.
        rc, text = c.run([*pre, "-O0", "-c", stub, "-o", obj], extra_rw=[work])
        if rc != 0:
            return None, f"the pristine stub {stub} does not compile (grader problem):\n{text[-2000:]}"
        syms = piece_policy.strong_definitions(piece_policy.read_object(obj))
        tmp = os.path.join(work, "symbols")
        with open(tmp, "w") as f:
            f.write("\n".join(sorted(syms)) + "\n")
        os.replace(tmp, path)
        return syms, ""
    except piece_policy.NotElf:
        return None, ""
    finally:
        for f in glob.glob(os.path.join(work, "*")):
            os.unlink(f)
        os.rmdir(work)


def write_log(log: str, status: str, source: str, isolation: str, obj: str, text: str) -> None:
    os.makedirs(os.path.dirname(log), exist_ok=True)
    tmp = f"{log}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"status: {status}\nsource: {source}\nisolation: {isolation}\nobject: {obj}\n\n{text}")
    os.replace(tmp, log)


def main(argv: list[str]) -> int:
    opts: dict[str, list[str]] = {"--ro": []}
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a == "--no-policy":   # only the grader's own cheats that test the defences behind the rules
            opts["--no-policy"] = []
            i += 1
            continue
        if a in ("--log", "--fallback", "--piece", "--chapter-dir", "--stub", "--cache", "--ro") and i + 1 < len(argv):
            opts.setdefault(a, []).append(argv[i + 1])
            i += 2
        else:
            print(f"compile_piece.py: unknown option {a}", file=sys.stderr)
            return 2
    cmd = strip_launcher(argv[i + 1:])
    log = (opts.get("--log") or [None])[0]
    if not cmd or log is None:
        print("usage: compile_piece.py --log LOG [options] -- COMPILER ARGS...", file=sys.stderr)
        return 2
    fallback = (opts.get("--fallback") or [None])[0]
    piece = (opts.get("--piece") or ["?"])[0]
    stub = (opts.get("--stub") or [fallback or ""])[0]
    cwd = os.getcwd()
    source, obj, pre, comp, deps = split_command(cmd)
    if not source or not obj:
        print("compile_piece.py: the command has no -c SOURCE / -o OBJECT", file=sys.stderr)
        return 2
    source = os.path.abspath(source)
    obj_abs = os.path.abspath(obj)
    chapter_dir = os.path.abspath((opts.get("--chapter-dir") or [os.path.dirname(source)])[0])
    cache = os.path.abspath((opts.get("--cache") or [os.path.join(os.path.dirname(log), "..", "policy")])[0])
    obj_dir = os.path.dirname(obj_abs)
    os.makedirs(obj_dir, exist_ok=True)
    ro = [os.path.abspath(d) for d in opts["--ro"]] + [chapter_dir]
    if stub:
        ro.append(os.path.dirname(os.path.abspath(stub)))
    rw = [obj_dir]   # the object's folder, and the dependency file's where it is elsewhere
    for k, a in enumerate(deps[:-1]):
        if a == "-MF":
            d = os.path.dirname(os.path.abspath(deps[k + 1]))
            os.makedirs(d, exist_ok=True)
            if d not in rw:
                rw.append(d)
    c = Compile(cmd[0], cwd, ro, rw)
    for stale in (obj_abs, obj_abs + ".ii"):
        if os.path.exists(stale):
            os.unlink(stale)

    status, text = "ok", ""
    policy = "--no-policy" not in opts
    violations = piece_policy.check_source(source, chapter_dir) if policy else []
    if not violations:
        ii = obj_abs + ".ii"
        rc, text = c.run([*pre, *deps, "-E", source, "-o", ii])
        if rc == 0:
            try:
                with open(ii, encoding="utf-8", errors="replace") as f:
                    pp = f.read()
            except OSError as e:
                rc, text = 1, f"the preprocessed text cannot be read: {e}"
            else:
                violations = [] if not policy else piece_policy.check_preprocessed(pp, system_roots() + opts["--ro"], chapter_dir)
        if rc == 0 and not violations:
            rc, more = c.run([*comp, "-c", ii, "-o", obj_abs])
            text += more
        if os.path.exists(ii):
            os.unlink(ii)
        if rc != 0:
            status = "failed"
        elif not violations and policy:
            syms, problem = (stub_symbols(c, stub, pre, comp, cache) if stub else (None, ""))
            if problem:
                text += "\n" + problem
            try:
                violations = piece_policy.check_object(obj_abs, piece, syms)
                if syms is None and not problem:
                    text += "\n(the object-file policy could not learn the piece's own symbols from its stub)"
            except piece_policy.NotElf as e:
                text += f"\n(the object-file policy checks ELF objects only: {e}; grading needs Linux)"
    if violations:
        status = "refused"
        text = (f"{os.path.basename(source)} was refused by the answer-file rules (scripts/piece_policy.py):\n"
                + "\n".join(f"  {v}" for v in violations) + "\n" + text)
    write_log(log, status, source, c.isolation or grade_sandbox.compile_command([], cwd, [], [])[2], obj_abs, text)
    if status != "ok" and os.path.exists(obj_abs):
        os.unlink(obj_abs)
    sys.stdout.write(text)
    if status == "ok":
        return 0
    if fallback is None:
        return 1
    # Lenient: compile the pristine stub into the same object instead (same flags, same output, same sandbox).
    rc, more = c.run([*pre, *deps, "-c", os.path.abspath(fallback), "-o", obj_abs])
    if rc != 0:
        sys.stdout.write(more)
        return rc
    what = "does not compile" if status == "failed" else "was refused"
    print(f"compile_piece.py: {source} {what}; its stub stands in for it (see {log})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
