#!/usr/bin/python3
"""Runs the book's Python files with Debian's /usr/bin/python3 and captures what they print:

- **PyTorch twins** `chapters/NN-name/<stem>.py`: the PyTorch side of a chapter's listings (the
  twin of `<stem>.cpp`), run with PyTorch 1.13; output -> $BUILD/book/outputs/chNN_<stem>.py.txt,
  shown by ```{program-output} chNN_<stem>.py```;
- **figures** `chapters/NN-name/figures/<name>.py`: matplotlib plots and diagrams drawn from the logs
  the chapter programs wrote (CSV, JSON lines), after those programs ran; they write SVG files into
  $BUILD/book/outputs/ (the book shows them with ```{image} /outputs/<file>.svg```).

    /usr/bin/python3 scripts/book-python.py [BUILD] [--fresh] [--only NAME]...

Each file runs with the outputs folder as its working directory (and $KINDLING_CHAPTER naming its
chapter's folder, for the logs of full runs committed in captured/), in a forked child of one parent that
imported torch (and matplotlib) once, so twenty twins cost one `import torch`. Its output is cached by
a hash of the file, of the files it declares as inputs, and of the Python/PyTorch/matplotlib versions;
it runs again only when one of them changed (`--fresh` runs everything). A file may declare, on lines
of their own:

    # book: inputs ch05_train_history.csv chapters/05-training/captured/ch05_cnn.jsonl
    # book: timeout 60                    (seconds, default 120)

(inputs relative to the outputs folder, or to the repository when they start with a folder of it).
Exit status 1 when a file fails; its output is kept in <name>.failed.txt and its capture removed.
"""
import hashlib
import os
import re
import signal
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def directive(text, name):
    m = re.search(rf"^\s*#\s*book:\s*{name}\s+(.*?)\s*$", text, re.M)
    return m.group(1) if m else None


def discover():
    """(kind, name, path) in book order: all twins first, then all figures."""
    twins, figures = [], []
    for chapter in sorted((HERE / "chapters").glob("[0-9][0-9]-*")):
        if not (chapter / "chapter.md").is_file():
            continue
        nn = chapter.name[:2]
        for path in sorted(chapter.glob("*.py")):
            twins.append(("twin", f"ch{nn}_{path.stem}.py", path))
        for path in sorted(chapter.glob("figures/*.py")):
            figures.append(("figure", f"ch{nn}_figure_{path.stem}", path))
    return twins + figures


def versions(kind):
    """What else decides the output (read without importing torch: a cached run must stay quick)."""
    import platform
    from importlib.metadata import version
    parts = [platform.python_version()]
    if kind == "twin":
        parts.append("torch " + version("torch"))
    else:
        parts.append("matplotlib " + version("matplotlib"))
        parts.append(hashlib.sha256((HERE / "book" / "ext" / "kindling_plot.py").read_bytes()).hexdigest())
    return " ".join(parts)


def key_of(kind, path, outputs):
    text = path.read_text(encoding="utf-8")
    h = hashlib.sha256(text.encode())
    h.update(versions(kind).encode())
    for name in (directive(text, "inputs") or "").split():
        file = HERE / name if (HERE / name.split("/")[0]).is_dir() and "/" in name else outputs / name
        h.update(name.encode())
        h.update(hashlib.sha256(file.read_bytes()).digest() if file.is_file() else b"missing")
    return h.hexdigest()


def run_one(kind, name, path, outputs, capture_path):
    """Runs `path` in a forked child with stdout+stderr -> capture_path; returns (ok, seconds)."""
    text = path.read_text(encoding="utf-8")
    limit = float(directive(text, "timeout") or 120)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            fd = os.open(capture_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(outputs)
            # The chapter's folder, for files committed with it (captured/ full runs).
            chapter = path.parent.parent if path.parent.name == "figures" else path.parent
            os.environ["KINDLING_CHAPTER"] = str(chapter)
            sys.argv = [str(path)]
            sys.path.insert(0, str(HERE / "book" / "ext"))
            import runpy
            runpy.run_path(str(path), run_name="__main__")
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > limit:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            with open(capture_path, "a") as f:
                f.write(f"\nbook-python: timed out after {limit:.0f} s (raise it with # book: timeout N)\n")
            return False, time.monotonic() - start
        time.sleep(0.02)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, time.monotonic() - start


def main():
    args = sys.argv[1:]
    build, fresh, only = HERE / "build", False, []
    while args:
        arg = args.pop(0)
        if arg == "--fresh":
            fresh = True
        elif arg == "--only":
            only.append(args.pop(0))
        elif arg in ("-h", "--help"):
            print(__doc__)
            return 0
        elif arg.startswith("-"):
            print(f"book-python: unknown option {arg}", file=sys.stderr)
            return 2
        else:
            build = Path(arg).resolve()
    outputs = build / "book" / "outputs"
    keys = outputs / ".keys"
    keys.mkdir(parents=True, exist_ok=True)
    # One thread: the twins print results, not timings, and the machine is shared.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MPLBACKEND", "Agg")
    items = discover()
    if only:
        missing = set(only) - {name for _, name, _ in items}
        if missing:
            print(f"book-python: no such file: {', '.join(sorted(missing))}", file=sys.stderr)
            return 2
        items = [item for item in items if item[1] in only]
    failed, imported = [], set()
    for kind, name, path in items:
        capture = outputs / (f"{name}.txt" if kind == "twin" else f"{name}.log.txt")
        want = key_of(kind, path, outputs)
        key_file = keys / name
        if not fresh and capture.is_file() and key_file.is_file() and key_file.read_text() == want:
            print(f"  {name}: up to date")
            continue
        if kind not in imported:  # import once in the parent: every forked child shares it
            if kind == "twin":
                import torch
                torch.set_num_threads(1)
            else:
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.pyplot  # noqa: F401
            imported.add(kind)
        print(f"  {name} ... ", end="", flush=True)
        tmp = capture.with_name(capture.name + ".tmp")
        ok, seconds = run_one(kind, name, path, outputs, tmp)
        if ok:
            tmp.replace(capture)
            key_file.write_text(want)
            (outputs / f"{name}.failed.txt").unlink(missing_ok=True)
            print(f"ok ({seconds:.1f} s)")
        else:
            capture.unlink(missing_ok=True)
            key_file.unlink(missing_ok=True)
            failed_log = outputs / f"{name}.failed.txt"
            tmp.replace(failed_log)
            print("FAILED")
            for line in failed_log.read_text(errors="replace").splitlines()[-20:]:
                print(f"      | {line}")
            print(f"=== {name} ({path.relative_to(HERE)}): FAILED; output in {failed_log}", file=sys.stderr)
            failed.append(name)
    if failed:
        print(f"book-python: {len(failed)} file(s) failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
