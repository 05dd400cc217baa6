#!/usr/bin/python3
"""Unit tests of the answer-file rules (scripts/piece_policy.py) and of the compile sandbox
(scripts/grade_sandbox.py, run_compiler): each rule refuses what it is for, and lets ordinary C++ through.

    test_piece_policy.py [--root REPO] [--build BUILD]

Small translation units compiled here with the system compiler (no kindling headers: ~0.2 s each); with
--build, the cheats whose rules are switched off in test_chapters.py (tests/tools/cheats/*/POLICY-OFF) are
compiled with the build's flags and must be refused too. The real answer files are tested by
test_chapters.py: the reference graded through the same launcher scores full marks, every cheat 0.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import grade_sandbox  # noqa: E402
import piece_policy  # noqa: E402

CXX = os.environ.get("CXX", "c++")
STUB = "namespace kindling { int piece(int x) { throw 1; } }\n"

# (name, source, piece symbols come from STUB, expected rule text or None for "passes")
CASES = [
    ("plain piece", "namespace kindling { int piece(int x) { return x + 1; } }\n", None),
    ("helper in an anonymous namespace, templates, a function-local static, std::",
     "#include <vector>\n#include <string>\n#include <cmath>\n#include <cstdio>\n"
     "namespace { int twice(int x) { return 2 * x; } }\n"
     "namespace kindling { int piece(int x) { static std::string s = \"x\"; std::vector<int> v(x);"
     " std::printf(\"%d\", x); return twice((int)v.size()) + (int)std::sqrt((double)x) + (int)s.size(); } }\n", None),
    ("static constructor", "#include <cstdio>\nstruct A { A() { std::puts(\"hi\"); } } a;\n"
     "namespace kindling { int piece(int x) { return x; } }\n", ".init_array"),
    ("__attribute__((constructor))", "__attribute__((constructor)) static void f() { __builtin_puts(\"x\"); }\n"
     "namespace kindling { int piece(int x) { return x; } }\n", ".init_array"),
    ("destructor section", "__attribute__((destructor)) static void f() { __builtin_puts(\"x\"); }\n"
     "namespace kindling { int piece(int x) { return x; } }\n", ".fini_array"),
    ("section attribute", "__attribute__((section(\".kd_hook\"), used)) static int h = 1;\n"
     "namespace kindling { int piece(int x) { return x + h; } }\n", "'.kd_hook'"),
    ("global helper", "namespace kindling { int helper(int x) { return x; } int piece(int x) { return helper(x); } }\n",
     "which is not part of"),
    ("global variable", "int counter = 0;\nnamespace kindling { int piece(int x) { return x + counter; } }\n",
     "which is not part of"),
    ("replaces main", "int main() { return 0; }\nnamespace kindling { int piece(int x) { return x; } }\n",
     "defines main"),
    ("weak definition", "namespace kindling { __attribute__((weak)) int other(int x) { return x; }"
     " int piece(int x) { return other(x); } }\n", "a weak definition"),
    ("ifunc", "extern \"C\" { static int impl(int x) { return x; } static void* resolve() { return (void*)impl; } }\n"
     "extern \"C\" int hooked(int) __attribute__((ifunc(\"resolve\")));\n"
     "namespace kindling { int piece(int x) { return hooked(x); } }\n", "GNU ifunc"),
    ("exit", "#include <cstdlib>\nnamespace kindling { int piece(int x) { std::exit(0); } }\n", "calls exit()"),
    ("_Exit", "#include <cstdlib>\nnamespace kindling { int piece(int x) { std::_Exit(0); } }\n", "calls _Exit()"),
    ("getenv", "#include <cstdlib>\nnamespace kindling { int piece(int x) { return std::getenv(\"A\") != nullptr; } }\n",
     "calls getenv()"),
    ("fopen", "#include <cstdio>\nnamespace kindling { int piece(int x) { return std::fopen(\"/x\", \"r\") != nullptr; } }\n",
     "calls fopen()"),
    ("ofstream", "#include <fstream>\nnamespace kindling { int piece(int x) { std::ofstream f(\"/tmp/x\"); f << x;"
     " return x; } }\n", "file streams"),
    ("filesystem", "#include <filesystem>\nnamespace kindling { int piece(int x) {"
     " return std::filesystem::exists(\"/x\"); } }\n", "std::filesystem"),
    ("system", "#include <cstdlib>\nnamespace kindling { int piece(int x) { return std::system(\"true\"); } }\n",
     "calls system()"),
    ("fork", "#include <unistd.h>\nnamespace kindling { int piece(int x) { return fork(); } }\n", "calls fork()"),
    ("dlopen", "#include <dlfcn.h>\nnamespace kindling { int piece(int x) { return dlopen(\"x\", 0) != nullptr; } }\n",
     "calls dlopen()"),
    ("syscall", "#include <unistd.h>\nnamespace kindling { int piece(int x) { return (int)syscall(39); } }\n",
     "calls syscall()"),
    ("mmap", "#include <sys/mman.h>\nnamespace kindling { int piece(int x) { return mmap(0, 1, 0, 0, -1, 0) != 0; } }\n",
     "calls mmap()"),
    ("signal", "#include <csignal>\nnamespace kindling { int piece(int x) { std::signal(SIGTERM, SIG_IGN); return x; } }\n",
     "calls signal()"),
    ("another namespace", "namespace Catch { int report(int); }\n"
     "namespace kindling { int piece(int x) { return Catch::report(x); } }\n", "kindling and the C++ standard library"),
    ("an unknown C function", "extern \"C\" int kd_secret(int);\n"
     "namespace kindling { int piece(int x) { return kd_secret(x); } }\n", "not among the C functions"),
]


def compile_obj(src: str, work: Path, name: str) -> Path:
    f = work / f"{name}.cpp"
    f.write_text(src)
    o = work / f"{name}.o"
    subprocess.run([CXX, "-std=c++20", "-O2", "-fPIC", "-c", str(f), "-o", str(o)], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return o


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=Path, default=None)
    args = ap.parse_args()
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kd-policy-") as tmp:
        work = Path(tmp)
        stub = piece_policy.strong_definitions(piece_policy.read_object(str(compile_obj(STUB, work, "stub"))))
        for k, (name, src, want) in enumerate(CASES):
            try:
                o = compile_obj(src, work, f"case{k}")
            except subprocess.CalledProcessError as e:
                errors.append(f"{name}: does not compile: {e.stdout.decode(errors='replace')[:500]}")
                continue
            v = [str(x) for x in piece_policy.check_object(str(o), "ch00.ex1", stub)]
            if want is None and v:
                errors.append(f"{name}: refused, expected to pass: {v}")
            elif want is not None and not any(want in x for x in v):
                errors.append(f"{name}: expected a refusal saying {want!r}, got {v}")
            print(f"{'ok  ' if not errors or not errors[-1].startswith(name) else 'FAIL'} {name}")

        # Per-piece routes (class 6): ch01.ex4 may not call Tensor::add_, another piece may.
        route = compile_obj("namespace kindling { struct Scalar { double v; }; struct Tensor {"
                            " Tensor& add_(const Tensor&, Scalar); Tensor& zero_(); };"
                            " namespace detail { void strided_copy(const Tensor& d, const Tensor& s) {"
                            " Tensor t = d; t.zero_(); t.add_(s, Scalar{1}); } } }\n", work, "route")
        v = [str(x) for x in piece_policy.check_object(str(route), "ch01.ex4", None)]
        if not any("does the piece's job" in x and "add_" in x for x in v):
            errors.append(f"route: strided_copy as zero_ + add_ was not refused: {v}")
        if piece_policy.check_object(str(route), "ch02.ex1", None):
            errors.append("route: Tensor::add_ refused in a piece where it is fine")

        # Sources: paths out of the folder, __has_include, symbolic links.
        ch = work / "tree" / "ch01"
        ch.mkdir(parents=True)
        for name, text, want in (
                ("up.cpp", '#include "../../solutions/ch01/x.cpp"\n', "outside the answer's folder"),
                ("abs.cpp", "#include </work/main/solutions/ch01/x.cpp>\n", "outside the answer's folder"),
                ("cont.cpp", "#if __has_\\\ninclude(<x>)\n#endif\n", "__has_include"),
                ("next.cpp", "#include_next <vector>\n", "#include_next"),
                # nvcc compiles chapter 8's answers from the text g++ checked: no branch on the compiler
                ("nvcc.cpp", '#ifdef __CUDACC__\nasm(".incbin \\"/etc/passwd\\"");\n#endif\n', "which compiler"),
                ("arch.cpp", "#if defined(__CUDA_ARCH__)\nint x;\n#endif\n", "which compiler"),
                ("asm.cpp", '#if 0\n__asm__(".incbin \\"x\\"");\n#endif\n', "inline assembly"),
                ("fine.cpp", '#include <vector>\n#include "tensor/pieces.hpp"\n// #include "../x" in a comment\n', None)):
            (ch / name).write_text(text)
            v = [str(x) for x in piece_policy.check_source(str(ch / name), str(ch))]
            if (want is None) != (not v) or (want and not any(want in x for x in v)):
                errors.append(f"sources {name}: expected {want!r}, got {v}")
        (ch / "link.cpp").symlink_to("/etc/hostname")
        if not any("symbolic link" in str(x) for x in piece_policy.check_source(str(ch / "link.cpp"), str(ch))):
            errors.append("sources: a symbolic link was not refused")

        # Preprocessed text: files read, asm, pragmas, namespace std -- in the learner's lines only.
        me = str(ch / "a.cpp")
        for text, want in (
                (f'# 1 "{me}"\nint f() {{ return 1; }}\n', None),
                (f'# 1 "/usr/include/c++/12/vector" 1 3\n#pragma GCC visibility push(default)\nasm("nop");\n'
                 f'# 2 "{me}" 2\nint f();\n', None),
                (f'# 1 "{me}"\nasm(".incbin \\"/etc/passwd\\"");\n', "inline assembly"),
                (f'# 1 "{me}"\nvoid f() {{ __asm__ volatile(""); }}\n', "inline assembly"),
                (f'# 1 "{me}"\n#pragma weak kd\n', "#pragma weak"),
                (f'# 1 "{me}"\n#pragma GCC diagnostic ignored "-Wall"\n', None),
                (f'# 1 "{me}"\nnamespace std {{ struct x; }}\n', "namespace std"),
                (f'# 1 "{me}"\nconst char* s = "asm namespace std";\n', None),
                (f'# 1 "/work/main/solutions/ch01/ex4_copy.cpp" 1\nint g;\n', "outside the system")):
            v = [str(x) for x in piece_policy.check_preprocessed(text, ["/usr/include"], str(ch))]
            if (want is None) != (not v) or (want and not any(want in x for x in v)):
                errors.append(f"preprocessed {text[:60]!r}: expected {want!r}, got {v}")

        # The compile sandbox: the compiler sees no file outside what it is given, and is capped.
        kind = grade_sandbox.sandbox_kind()
        print(f"sandbox: {kind}")
        if kind == "bwrap":
            probe = work / "probe"
            probe.mkdir()
            (probe / "p.cpp").write_text(
                f'#if __has_include("{ROOT}/scripts/grade.py") || __has_include("/usr/share/datasets/fashion-mnist/'
                f't10k-labels-idx1-ubyte.gz") || __has_include("{ROOT}/solutions/ch01/ex1_strides.cpp")\n'
                "#error visible\n#endif\nint x;\n")
            rc, out, iso = grade_sandbox.run_compiler([CXX, "-c", str(probe / "p.cpp"), "-o", str(probe / "p.o")],
                                                      str(probe), [str(probe)], [str(probe)])
            if rc != 0 or iso != "bwrap":
                errors.append(f"sandbox: the compiler saw files it must not see (or did not run): {iso} {out[-800:]}")

    # The cheats that test the defences behind the rules: the rules refuse them too.
    if args.build:
        for off in sorted((ROOT / "tests" / "tools" / "cheats").glob("*/POLICY-OFF")):
            for src in sorted(off.parent.glob("ch01/*.cpp")):
                ex = src.name.split("_")[0]
                flags = shlex.split(cxx_flags(args.build))
                with tempfile.TemporaryDirectory(prefix="kd-policy-") as tmp:
                    o = Path(tmp) / "x.o"
                    p = subprocess.run([CXX, *flags, "-I", str(off.parent / "ch01"), "-c", str(src), "-o", str(o)],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    if p.returncode != 0:
                        errors.append(f"cheat {off.parent.name}: does not compile here: {p.stdout[-500:]}")
                        continue
                    v = piece_policy.check_object(str(o), f"ch01.{ex}", None)
                    print(f"cheat {off.parent.name}: {len(v)} rule(s) broken: {v[0] if v else '-'}")
                    if not v:
                        errors.append(f"cheat {off.parent.name}: the rules let it through")
    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    print(f"{len(CASES)} object cases, {len(errors)} problem(s)")
    return 1 if errors else 0


def cxx_flags(build: Path) -> str:
    """The flags the build compiles an answer file of chapter 1 with (from compile_commands.json)."""
    import json
    for e in json.loads((build / "compile_commands.json").read_text()):
        if "kdp_ch01_ex1_" in e.get("output", e["command"]):
            args = shlex.split(e["command"])
            args = args[args.index("--") + 1:] if "--" in args else args
            keep, skip = [], False
            for a in args[1:]:
                if skip:
                    skip = False
                    continue
                if a in ("-o", "-c", "-MF", "-MT"):
                    skip = True
                    continue
                if a in ("-MD",) or a.endswith(".cpp"):
                    continue
                keep.append(a)
            return " ".join(shlex.quote(a) for a in keep)
    return f"-std=c++20 -I{ROOT}/lib/include -I{ROOT}/lib/src -I{build}/lib/generated"


if __name__ == "__main__":
    sys.exit(main())
