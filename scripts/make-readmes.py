#!/usr/bin/python3
"""Each chapter as a Git host shows it: chapters/NN-name/README.md, generated from the book's source
chapters/NN-name/chapter.md with every listing and output inlined.

    make-readmes.py [--outputs build/book/outputs]   write the READMEs (and their figures) from a book build
    make-readmes.py --check                            fail when a README is not what chapter.md makes now

The book (`make book`) is the full experience: PyTorch twins in tabs, the API reference, outputs from the
reader's own machine. A Git host renders none of MyST's directives, so this script turns each into plain
Markdown:

  {snippet} / literalinclude   the lines between the markers, as a fenced block captioned with its file
  {program-output}             what the program printed in the book build it is given (--outputs)
  {captured}                   the committed capture's lines, captioned with where and when it was made
  {figure} {image} {graphviz}  the picture, copied (or drawn with dot) into chapters/NN-name/figures/
  :::{tab}                     the first tab of a group shown, the others folded in <details>
  {measured}`...`              the number, from the same outputs
  {check-output}               nothing (the book build checks the claim)
  {api}`name`                  `name`

What a run printed (program outputs, measured numbers, the line that names the machine) sits between
`<!--run-->` and `<!--/run-->`. --check compares everything else -- the prose, the listings, the
captures -- with what chapter.md and the files it cuts from make now, so the test fails when a chapter or
a listed file changed without `make readmes`; the run's outputs are refreshed whenever `make readmes` runs.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "ext"))
import kindling_snippets as snippets  # noqa: E402
from kindling_book import parse_capture  # noqa: E402  (the book's reading of a capture file)

LANGUAGES = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".py": "python", ".cmake": "cmake",
             ".sh": "bash", ".txt": "text"}
OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}\s*(?P<args>.*?)\s*$")
OPTION = re.compile(r"^:(?P<key>[a-z-]+):\s?(?P<value>.*)$")
PLAIN_FENCE = re.compile(r"^(`{3,}|~{3,})")
CLANG_FORMAT = re.compile(r"^\s*// clang-format (off|on)\s*$")
RUN_OPEN, RUN_CLOSE = "<!--run-->", "<!--/run-->"
RUN_SPAN = re.compile(re.escape(RUN_OPEN) + r".*?" + re.escape(RUN_CLOSE), re.S)
GENERATED = ("<!-- Generated from chapter.md by scripts/make-readmes.py: edit chapter.md, then run "
             "`make readmes`. -->")


class Problem(Exception):
    pass


def fence_for(text: str, char: str = "`") -> str:
    longest = max((len(m.group(0)) for m in re.finditer(re.escape(char) + "{3,}", text)), default=2)
    return char * max(3, longest + 1)


def code_block(text: str, language: str, info: str = "") -> str:
    fence = fence_for(text)
    return f"{fence}{language}{(' ' + info) if info else ''}\n{text}\n{fence}"


def select_lines(lines: list[str], spec: str | None, what: str) -> list[str]:
    """Sphinx's :lines: ("1-12", "18-", "-4", "3,5-7"), 1-based."""
    if not spec:
        return lines
    keep: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        a, dash, b = part.partition("-")
        first = int(a) if a else 1
        last = (int(b) if b else len(lines)) if dash else first
        if first < 1 or last > len(lines) or first > last:
            raise Problem(f"{what}: :lines: {spec} is out of range ({len(lines)} lines)")
        keep += range(first - 1, last)
    return [lines[i] for i in keep]


class Chapter:
    def __init__(self, folder: Path, outputs: Path | None, write_figures: bool):
        self.folder = folder
        self.number = folder.name[:2]
        self.outputs = outputs
        self.write_figures = write_figures
        self.figures: list[str] = []  # files this README needs in figures/
        self.diagrams = 0

    # ---- paths ---------------------------------------------------------------------------------------
    def resolve(self, arg: str) -> Path:
        """A directive's path: relative to the chapter, or /-rooted in the book's staging folder."""
        if arg.startswith("/outputs/"):
            if self.outputs is None:
                return Path("/nonexistent") / arg
            return self.outputs / arg[len("/outputs/"):]
        if arg.startswith("/"):
            return ROOT / arg[1:]
        return self.folder / arg

    def link(self, path: Path) -> str:
        """A relative link from the chapter folder to a repository file."""
        return Path(*([".."] * 2), path.resolve().relative_to(ROOT)).as_posix() \
            if not path.resolve().is_relative_to(self.folder.resolve()) \
            else path.resolve().relative_to(self.folder.resolve()).as_posix()

    def output_text(self, program: str) -> str:
        if self.outputs is None:
            return ""
        path = self.outputs / f"{program}.txt"
        if not path.is_file():
            raise Problem(f"no captured output of {program} in {self.outputs} (run `make book` first)")
        return path.read_text(encoding="utf-8", errors="replace")

    # ---- directives ------------------------------------------------------------------------------------
    def listing(self, file_arg: str, name: str | None, options: dict[str, str]) -> str:
        path = self.resolve(file_arg)
        if not path.is_file():
            raise Problem(f"listing: no file {file_arg}")
        lines = path.read_text(encoding="utf-8").splitlines()
        if name is not None:
            first, last = snippets.lines_of(path, name)
            lines = lines[first - 1:last]
        lines = [l for l in lines if not snippets.is_marker(l) and not CLANG_FORMAT.match(l)]
        text = "\n".join(lines)
        if "dedent" in options or name is not None:
            text = textwrap.dedent(text)
        language = options.get("language") or LANGUAGES.get(path.suffix, "text")
        rel = path.resolve().relative_to(ROOT).as_posix()
        return f"[`{rel}`]({self.link(path)})\n\n{code_block(text.strip(chr(10)), language)}"

    def program_output(self, program: str, options: dict[str, str]) -> str:
        text = self.output_text(program)
        if self.outputs is not None:
            lines = select_lines(text.splitlines(), options.get("lines"), f"program-output {program}")
            if "grep" in options:
                lines = [l for l in lines if re.search(options["grep"], l)]
                if not lines:
                    raise Problem(f"program-output {program}: no line matches {options['grep']!r}")
            text = "\n".join(l.rstrip() for l in lines)
        caption = options.get("caption")
        if not caption:
            m = re.fullmatch(r"ch(\d\d)_([A-Za-z0-9_]+)(\.py)?", program)
            source = None
            if m:
                for chapter in sorted((ROOT / "chapters").glob(f"{m.group(1)}-*")):
                    cand = chapter / (m.group(2) + (".py" if m.group(3) else ".cpp"))
                    if cand.is_file():
                        source = cand
            what = "Output of the PyTorch twin" if program.endswith(".py") else "Output of"
            name = f"[`{program}`]({self.link(source)})" if source else f"`{program}`"
            caption = f"{what} {name}"
        return f"*{caption}:*\n\n{RUN_OPEN}\n\n{code_block(text, 'text')}\n\n{RUN_CLOSE}"

    def captured(self, arg: str, options: dict[str, str]) -> str:
        path = self.resolve(arg)
        if not path.is_file():
            raise Problem(f"captured: no file {arg}")
        header, body = parse_capture(path)
        lines = select_lines(body, options.get("lines"), f"captured {arg}")
        if "grep" in options:
            lines = [l for l in lines if re.search(options["grep"], l)]
        caption = options.get("caption") or (f"Captured {header['captured'][0]} on {header['machine'][0]}: "
                                              f"`{header['command'][0]}`")
        rel = path.resolve().relative_to(ROOT).as_posix()
        return f"*{caption}* ([`{rel}`]({self.link(path)}))\n\n" + code_block("\n".join(l.rstrip() for l in lines),
                                                                               "text")

    def picture(self, source: Path | None, name: str, alt: str, caption: str) -> str:
        """Copies (or, for a .dot file, draws) the picture into figures/ and shows it."""
        target = self.folder / "figures" / name
        self.figures.append(name)
        if self.write_figures:
            if source is None or not source.is_file():
                raise Problem(f"picture: no file {source} (run `make book` first)")
            target.parent.mkdir(exist_ok=True)
            if source.suffix == ".dot":
                svg = subprocess.run(["dot", "-Tsvg", str(source)], check=True, capture_output=True).stdout
                target.write_bytes(svg)
            else:
                shutil.copyfile(source, target)
        out = f"![{alt}](figures/{name})"
        if caption.strip():
            out += "\n\n" + "\n".join("> " + l if l else ">" for l in self.convert(caption).splitlines())
        return out

    def graphviz(self, args: str, content: str) -> str:
        if args:
            source = self.resolve(args)
            return self.picture(source, Path(args).stem + ".svg", Path(args).stem, "")
        self.diagrams += 1
        name = f"ch{self.number}_diagram{self.diagrams}"
        dot = None
        if self.write_figures:
            dot = Path(self.outputs or "/tmp") / f".{name}.dot"
            dot.parent.mkdir(parents=True, exist_ok=True)
            dot.write_text(content)
        return self.picture(dot, name + ".svg", "diagram", "")

    # ---- the page ----------------------------------------------------------------------------------------
    def inline(self, text: str) -> str:
        text = re.sub(r"\{api\}`([^`]*)`", r"`\1`", text)

        def measured(m: re.Match) -> str:
            source, _, pattern = m.group(1).partition(": ")
            value = ""
            if self.outputs is not None:
                source = source.strip()
                body = (self.output_text(source) if re.fullmatch(r"ch\d\d_[A-Za-z0-9_]+(\.py)?", source)
                        else "\n".join(parse_capture(self.resolve(source))[1]))
                hits = list(re.finditer(pattern, body, re.M))
                if len(hits) != 1:
                    raise Problem(f"measured: {pattern!r} matches {len(hits)} times in {source}")
                value = hits[0].group(1) if hits[0].re.groups else hits[0].group(0)
            return f"{RUN_OPEN}{value}{RUN_CLOSE}"

        text = re.sub(r"\{measured\}`((?:[^`\\]|\\.)*)`", measured, text)
        # Links between chapters go to the other chapter's README; the API reference is in the book only.
        text = re.sub(r"\]\((\.\./[0-9]{2}-[a-z-]+/)chapter\.md", r"](\1README.md", text)
        text = text.replace("](../../api/index.md)", "](../../lib/include/kindling/)")
        return text

    def convert(self, source: str) -> str:
        lines = source.splitlines()
        out: list[str] = []
        i = 0
        tab_group: list[tuple[str, str]] = []

        def block(text: str) -> None:
            """A block-level piece, with a blank line on either side (an HTML block such as <details>
            runs on to the next blank line, so it must be followed by one)."""
            if out and out[-1] != "":
                out.append("")
            out.append(text)
            out.append("")

        def flush_tabs() -> None:
            if not tab_group:
                return
            (title, body), rest = tab_group[0], tab_group[1:]
            block(f"**{title}**\n\n{body}")
            for title, body in rest:
                block(f"<details><summary>{title}</summary>\n\n{body}\n\n</details>")
            tab_group.clear()

        while i < len(lines):
            line = lines[i]
            m = OPEN.match(line)
            plain = PLAIN_FENCE.match(line) if not m else None
            if plain:  # an ordinary code block: copied as it is
                j = i + 1
                while j < len(lines) and not lines[j].startswith(plain.group(1)):
                    j += 1
                flush_tabs()
                out.append("\n".join(lines[i:j + 1]))
                i = j + 1
                continue
            if not m:
                if line.strip() and tab_group:
                    flush_tabs()
                if line.strip() or not out or out[-1] != "":
                    out.append(self.inline(line))
                i += 1
                continue
            fence, name, args = m.group("fence"), m.group("name"), m.group("args")
            j = i + 1
            depth = 0
            while j < len(lines):  # the closing fence: the same character, at least as long, nothing else
                inner = OPEN.match(lines[j])
                bare = re.fullmatch(re.escape(fence[0]) + "{3,}", lines[j].strip())
                if inner and inner.group("fence")[0] == fence[0]:
                    depth += 1
                elif bare and depth > 0:
                    depth -= 1
                elif bare and len(bare.group(0)) >= len(fence):
                    break
                j += 1
            body = lines[i + 1:j]
            options: dict[str, str] = {}
            while body and OPTION.match(body[0]):
                o = OPTION.match(body[0])
                options[o.group("key")] = o.group("value").strip().strip('"')
                body = body[1:]
            content = "\n".join(body).strip("\n")
            i = j + 1
            if name == "tab":
                tab_group.append((args, self.convert(content)))
                continue
            flush_tabs()
            if name == "snippet":
                file_arg, snippet_name = args.split()
                block(self.listing(file_arg, snippet_name, options))
            elif name == "literalinclude":
                sm = re.fullmatch(r"\[snippet: ([a-z0-9-]+)\]", options.get("start-after", ""))
                block(self.listing(args, sm.group(1) if sm else None, options))
            elif name == "program-output":
                block(self.program_output(args, options))
            elif name == "captured":
                block(self.captured(args, options))
            elif name == "check-output":
                continue
            elif name == "figure":
                block(self.picture(self.resolve(args), Path(args).name, options.get("alt", ""), content))
            elif name == "image":
                block(self.picture(self.resolve(args), Path(args).name, options.get("alt", ""), ""))
            elif name == "graphviz":
                block(self.graphviz(args, content))
            elif name == "not-run":
                block(f"> Not run for the book: {args}\n\n{self.convert(content)}")
            elif name in ("note", "tip", "warning", "important", "caution"):
                body_md = self.convert(content)
                block(f"> [!{name.upper()}]\n" + "\n".join("> " + l if l else ">" for l in body_md.splitlines()))
            else:
                raise Problem(f"{self.folder.name}/chapter.md: no Markdown form for the directive {{{name}}}")
        flush_tabs()
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out)

    def readme(self, machine: str) -> str:
        source = (self.folder / "chapter.md").read_text(encoding="utf-8")
        body = self.convert(source)
        title, _, rest = body.partition("\n")
        note = (f"> **Reading this on a Git host?** This page is made from [`chapter.md`](chapter.md), the "
                "book's source, with every listing cut from the compiled files beside it and every output "
                f"from a run of the programs ({RUN_OPEN}{machine}{RUN_CLOSE}). The book itself (`make book`, "
                "then open `build/book/html/index.html`) is the full version: the PyTorch twins in tabs, "
                "the API reference, and outputs from your own machine.")
        return f"{GENERATED}\n{title}\n\n{note}\n{rest.rstrip()}\n"


def machine_line() -> str:
    cpu, family, model = "an unknown CPU", "", ""
    try:
        for line in open("/proc/cpuinfo"):
            key, _, value = (part.strip() for part in line.partition(":"))
            cpu = value if key == "model name" else cpu
            family = value if key == "cpu family" and not family else family
            model = value if key == "model" and not model else model
            if key == "flags":
                break
    except OSError:
        pass
    if family:
        cpu += f" (family {family} model {model})"
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return f"{cpu}, {date}, commit {commit}"


def masked(text: str) -> str:
    return RUN_SPAN.sub(RUN_OPEN + RUN_CLOSE, text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--outputs", type=Path, default=ROOT / "build" / "book" / "outputs",
                    help="a book build's captured outputs (default build/book/outputs)")
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--chapter", action="append", default=[], help="only these chapters (e.g. 05)")
    args = ap.parse_args()
    folders = [f for f in sorted((ROOT / "chapters").glob("[0-9][0-9]-*")) if (f / "chapter.md").is_file()]
    if args.chapter:
        folders = [f for f in folders if f.name[:2] in {c[-2:] for c in args.chapter}]
    problems: list[str] = []
    machine = machine_line()
    for folder in folders:
        rel = folder.relative_to(ROOT).as_posix()
        chapter = Chapter(folder, None if args.check else args.outputs.resolve(), write_figures=not args.check)
        try:
            text = chapter.readme(machine)
        except (Problem, KeyError, ValueError, OSError, subprocess.CalledProcessError) as err:
            problems.append(f"{rel}: {err}")
            continue
        readme = folder / "README.md"
        if args.check:
            have = readme.read_text(encoding="utf-8") if readme.is_file() else ""
            if masked(have) != masked(text):
                a, b = masked(have).splitlines(), masked(text).splitlines()
                k = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                problems.append(f"{rel}/README.md is not what chapter.md makes now (first difference at line "
                                f"{k + 1}: {(a[k] if k < len(a) else '<end>')[:90]!r} vs "
                                f"{(b[k] if k < len(b) else '<end>')[:90]!r})")
            empty = [s for s in RUN_SPAN.findall(have) if not re.sub(r"[`\s]|text|<!--/?run-->", "", s)]
            if empty:
                problems.append(f"{rel}/README.md has {len(empty)} output(s) that no run filled in")
            for name in chapter.figures:
                if not (folder / "figures" / name).is_file():
                    problems.append(f"{rel}/README.md shows figures/{name}, which is not committed")
        else:
            readme.write_text(text, encoding="utf-8")
            print(f"wrote {readme.relative_to(ROOT)} ({len(chapter.figures)} picture(s))")
    for p in problems:
        print(f"make-readmes: {p}", file=sys.stderr)
    if problems and args.check:
        print("make-readmes: run `make readmes` (it builds the book, then writes every chapter's README.md "
              "from its chapter.md) and commit the result", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
