#!/usr/bin/python3
"""Compiler launcher for the answer files a learner (or a planted submission) wrote.

CMake puts it in front of the compiler for those files only (cmake/KindlingPieces.cmake):

    compile_piece.py --log LOG [--fallback STUB] -- <ccache ...> <compiler> ... -c SOURCE ...

It runs the compile and keeps the compiler's output in LOG (first line: `status: ok` or `status: failed`),
so the grader can show each exercise's own compiler message and the path of the full log. With
--fallback (the grader's chapter programs in a tree without the reference to isolate exercises), a file
that does not compile is replaced by its pristine stub and the build goes on: the chapter's other
exercises are still graded, and this one scores 0 with the compiler's words.
Standard library only.
"""
from __future__ import annotations

import os
import subprocess
import sys


def main(argv: list[str]) -> int:
    log = fallback = None
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--log":
            log, i = argv[i + 1], i + 2
        elif argv[i] == "--fallback":
            fallback, i = argv[i + 1], i + 2
        else:
            print(f"compile_piece.py: unknown option {argv[i]}", file=sys.stderr)
            return 2
    cmd = argv[i + 1:]
    if not cmd or log is None:
        print("usage: compile_piece.py --log LOG [--fallback STUB] -- COMPILER ARGS...", file=sys.stderr)
        return 2
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode("utf-8", errors="replace")
    source = cmd[cmd.index("-c") + 1] if "-c" in cmd[:-1] else "?"
    os.makedirs(os.path.dirname(log), exist_ok=True)
    tmp = f"{log}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"status: {'ok' if p.returncode == 0 else 'failed'}\nsource: {source}\n\n{text}")
    os.replace(tmp, log)
    sys.stdout.write(text)
    if p.returncode == 0 or fallback is None:
        return p.returncode
    # Lenient: compile the pristine stub into the same object instead (same flags, same output).
    stub_cmd = [fallback if a == source else a for a in cmd]
    q = subprocess.run(stub_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if q.returncode != 0:
        sys.stdout.write(q.stdout.decode("utf-8", errors="replace"))
        return q.returncode
    print(f"compile_piece.py: {source} does not compile; its stub stands in for it (see {log})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
