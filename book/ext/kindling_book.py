"""Sphinx helpers for the Kindling book: what the book shows, and the checks that keep it true.

Directives and roles (see book/README.md for how chapter authors use them)

``snippet``            ```{snippet} strides.cpp create``` -- the lines between ``[snippet: create]``
                       and its ``[end]`` in a compiled file, captioned with the file's path, which links
                       to a page with the whole file. ``literalinclude`` with ``:start-after:
                       "[snippet: x]"`` / ``:end-before: "[end]"`` works the same way.
``program-output``     what a chapter program (``ch01_strides``) or its PyTorch twin
                       (``ch01_strides.py``) printed during this build; lines longer than the page
                       are wrapped and marked with ``↪``. ``:lines:`` and ``:grep: REGEX`` select lines.
``captured``           a committed capture (a full training run, a benchmark run) with its header:
                       date, machine, command; stale captures (program changed since) fail the build.
``check-output``       a claim the prose makes about a captured output, checked at build time.
``{measured}``         a number in the prose, taken from a captured output.
``{api}``              a link into the API reference: ``{api}`Tensor::view``` -> kindling::Tensor::view.

Checks (each a warning, so the -W build fails)

- every line of code or output fits the page (``kindling_max_code_columns``, measured with
  scripts/book-fit.py at 1280 px; narrower screens wrap lines, see static/kindling.css);
- snippet markers are balanced, unique per file and all used (kindling_snippets.py);
- chapter pages follow the frame (``kindling_frame``);
- the reader never meets our workshop words or chapters that do not exist yet (``kindling_words``);
- chapters link only to API entries that exist.
"""
import hashlib
import html
import math
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.directives.code import LiteralInclude
from sphinx.util import logging, parselinenos
from sphinx.util.docutils import SphinxDirective

import kindling_snippets as snippets

logger = logging.getLogger(__name__)

LANGUAGES = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".py": "python", ".cmake": "cmake",
             ".sh": "bash", ".txt": "text"}
WRAP_MARK = "↪ "


# ---- paths ---------------------------------------------------------------------------------------

def _root(env):
    return Path(env.config.kindling_source_root)


def _repo_path(env, filename):
    """The path of `filename` (absolute, maybe through the staging symlinks) relative to the repository."""
    real = Path(filename).resolve()
    try:
        return real.relative_to(_root(env)).as_posix()
    except ValueError:
        return None


def source_docname(repo_path):
    return "sources/" + repo_path


def _source_link(env, repo_path, text=None):
    """A reference to the generated page that shows all of `repo_path`."""
    ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + source_docname(repo_path),
                                refexplicit=True, refwarn=True)
    ref += nodes.literal(text or repo_path, text or repo_path)
    return ref


# ---- snippets ------------------------------------------------------------------------------------

SNIPPET_START = re.compile(r"^\[snippet:\s*([^\]]+?)\s*\]$")


def _note_use(env, path, name):
    uses = env.__dict__.setdefault("kindling_snippet_uses", {})
    uses.setdefault(env.docname, set()).add((str(Path(path).resolve()), name))


def brace_balance(code):
    """{ minus } of C++ code, outside strings, character literals and comments."""
    depth, i, n = 0, 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            i = code.find("\n", i)
            i = n if i < 0 else i
            continue
        if code.startswith("/*", i):
            i = code.find("*/", i + 2)
            i = n if i < 0 else i + 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            i = j + 1
            continue
        depth += (c == "{") - (c == "}")
        i += 1
    return depth


class KindlingLiteralInclude(LiteralInclude):
    """``literalinclude`` that understands snippet markers (nesting-aware, checked, recorded as used),
    and captions every listing of a repository file with its path, linked to the whole file."""

    option_spec = dict(LiteralInclude.option_spec)

    def run(self):
        start = self.options.get("start-after", "")
        m = SNIPPET_START.match(start.strip())
        rel, filename = self.env.relfn2path(self.arguments[0])
        if m:
            name = m.group(1)
            if self.options.get("end-before", "[end]").strip() != "[end]":
                raise self.error("literalinclude: a snippet ends at its own `[end]` (leave :end-before: "
                                 "\"[end]\")")
            try:
                first, last = snippets.lines_of(filename, name)
            except (KeyError, ValueError, OSError) as err:
                raise self.error(f"snippet: {err}")
            _note_use(self.env, filename, name)
            self.options.pop("start-after", None)
            self.options.pop("end-before", None)
            if "lines" in self.options:
                raise self.error("snippet: choose the lines with markers, not with :lines:")
            self.options["lines"] = f"{first}-{last}"
            self.options.setdefault("lineno-match", True)
            if "linenos" not in self.options:
                self.options.pop("lineno-match", None)
        repo_path = _repo_path(self.env, filename)
        captioned = "caption" in self.options
        if not captioned and repo_path and not self.env.docname.startswith("sources/"):
            self.options["caption"] = repo_path
        if "language" not in self.options:
            self.options["language"] = LANGUAGES.get(Path(filename).suffix, "text")
        result = super().run()
        if m and self.options.get("language") == "cpp":
            for block in (n for node in result for n in node.findall(nodes.literal_block)):
                balance = brace_balance(block.astext())
                if balance:
                    logger.warning(f"snippet '{m.group(1)}' of {repo_path or filename} leaves "
                                   f"{abs(balance)} brace(s) {'open' if balance > 0 else 'unopened'}: "
                                   "a listing should be a complete piece of code (move its [end])",
                                   location=(self.env.docname, self.lineno))
        if repo_path and not captioned and not self.env.docname.startswith("sources/"):
            for caption in (n for node in result for n in node.findall(nodes.caption)):
                caption.children = []
                caption += _source_link(self.env, repo_path)
        return result


class Snippet(KindlingLiteralInclude):
    """```{snippet} FILE NAME``` -- shorthand for literalinclude of one snippet, dedented."""

    required_arguments = 2
    optional_arguments = 0

    def run(self):
        name = self.arguments.pop()
        self.options["start-after"] = f"[snippet: {name}]"
        self.options["end-before"] = "[end]"
        self.options.setdefault("dedent", None)
        return super().run()


# ---- program outputs -----------------------------------------------------------------------------

PROGRAM = re.compile(r"ch\d\d_[A-Za-z0-9_]+(\.py)?")


def _output_path(directive_or_env, program):
    env = getattr(directive_or_env, "env", directive_or_env)
    return Path(env.config.kindling_outputs_dir) / f"{program}.txt"


def _program_source(env, program):
    """chNN_stem[.py] -> repository path of its source (chapters/NN-*/stem.cpp or .py), or None."""
    m = re.fullmatch(r"ch(\d\d)_([A-Za-z0-9_]+)(\.py)?", program)
    if not m:
        return None
    for chapter in sorted((_root(env) / "chapters").glob(f"{m.group(1)}-*")):
        candidate = chapter / (m.group(2) + (".py" if m.group(3) else ".cpp"))
        if candidate.is_file():
            return candidate.relative_to(_root(env)).as_posix()
    return None


def read_output(directive, program):
    if not PROGRAM.fullmatch(program):
        raise directive.error(f"'{program}' is not a chapter program name (expected chNN_<file stem>, e.g. "
                              "ch00_doctor, or chNN_<stem>.py for a PyTorch twin)")
    path = _output_path(directive, program)
    if not path.is_file():
        kind = "python twin" if program.endswith(".py") else "program"
        raise directive.error(
            f"no captured output for {kind} {program} ({path} is missing). Is its source built and run by "
            "scripts/run-chapters.sh or scripts/book-python.py (is it marked `// book: skip-run`)?")
    directive.env.note_dependency(str(path))
    return path.read_text(encoding="utf-8", errors="replace")


def wrap_line(line, width):
    """Wraps one output line at spaces to `width` columns; continuation lines start with ↪."""
    line = line.expandtabs()
    if len(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    prefix = " " * min(indent, width // 3) + WRAP_MARK
    out, rest, first = [], line, True
    while len(rest) > (width if first else width - len(prefix)):
        room = width if first else width - len(prefix)
        cut = rest.rfind(" ", 0, room + 1)
        if cut <= len(rest) - len(rest.lstrip(" ")) or cut < room // 2:
            cut = room
        out.append((rest[:cut] if first else prefix + rest[:cut]).rstrip())
        rest = rest[cut:].lstrip(" ") if rest[cut:cut + 1] == " " else rest[cut:]
        first = False
    if rest:
        out.append(rest if first else prefix + rest)
    return out


def _select_lines(directive, text, spec, what):
    lines = text.splitlines()
    if spec:
        try:
            wanted = parselinenos(spec, len(lines))
        except ValueError as err:
            raise directive.error(f"{what}: bad :lines: ({err})")
        if not wanted or max(wanted) >= len(lines):
            raise directive.error(f"{what}: :lines: {spec} is out of range (the output has {len(lines)} lines)")
        lines = [lines[i] for i in wanted]
    return lines


def _output_block(directive, lines, caption_nodes):
    width = directive.config.kindling_max_code_columns
    wrapped = [piece for line in lines for piece in wrap_line(line.rstrip(), width)]
    body = "\n".join(wrapped)
    block = nodes.literal_block(body, body)
    block["language"] = "text"
    block["classes"].append("program-output")
    directive.set_source_info(block)
    container = nodes.container("", literal_block=True, classes=["literal-block-wrapper", "program-output"])
    caption = nodes.caption("", "")
    caption.extend(caption_nodes)
    container += caption
    container += block
    return container


class ProgramOutput(SphinxDirective):
    """```{program-output} ch02_backward``` -- what the program printed during this build."""

    required_arguments = 1
    has_content = False
    option_spec = {"lines": directives.unchanged, "caption": directives.unchanged,
                   "grep": directives.unchanged}

    def run(self):
        program = self.arguments[0]
        text = read_output(self, program)
        lines = _select_lines(self, text, self.options.get("lines"), f"program-output {program}")
        if "grep" in self.options:  # only the lines that match (e.g. ^ShapeError)
            pattern = re.compile(self.options["grep"])
            lines = [line for line in lines if pattern.search(line)]
            if not lines:
                raise self.error(f"program-output {program}: no line matches {self.options['grep']!r}")
        if "caption" in self.options:
            caption = [nodes.Text(self.options["caption"])]
        else:
            source = _program_source(self.env, program)
            what = "Output of " if not program.endswith(".py") else "Output of the PyTorch twin "
            caption = [nodes.Text(what)]
            caption.append(_source_link(self.env, source, program) if source else nodes.literal(program, program))
            caption.append(nodes.Text(", captured while this book was built"))
        return [_output_block(self, lines, caption)]


# ---- committed captures (full runs, benchmark runs) ----------------------------------------------

def parse_capture(path):
    """A capture file: `# key: value` header lines, then the output."""
    header, body, in_header = {}, [], True
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = re.match(r"^# ([a-z0-9-]+): (.*)$", line) if in_header else None
        if m:
            header.setdefault(m.group(1), []).append(m.group(2))
        else:
            in_header = False
            body.append(line)
    return header, body


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def check_capture_fresh(env, path, header):
    """Every `# source-sha256: FILE=HASH` line must match the file now, or the capture is stale."""
    stale = []
    for entry in header.get("source-sha256", []):
        rel, _, digest = entry.partition("=")
        file = _root(env) / rel
        env.note_dependency(str(file))
        if not file.is_file() or sha256_of(file) != digest.strip():
            stale.append(rel)
    return stale


class Captured(SphinxDirective):
    """```{captured} captured/ch05_cnn.txt``` -- a committed capture, with where and when it was made.

    Options: ``:lines:`` (of the output), ``:grep:`` (a regex: only matching lines), ``:caption:``;
    ``:agrees-with: PROGRAM`` with ``:compare: REGEX``: every line of this build's (shorter) run of
    PROGRAM that matches REGEX must match the capture's line of the same rank, number for number
    within ``:tolerance:`` (relative, default 0.01) — the short run reproduces the start of the full
    one, or the capture is out of date."""

    required_arguments = 1
    option_spec = {"lines": directives.unchanged, "grep": directives.unchanged,
                   "caption": directives.unchanged, "agrees-with": directives.unchanged,
                   "compare": directives.unchanged, "tolerance": directives.unchanged}

    def check_agreement(self, path, body):
        program, pattern = self.options["agrees-with"], self.options.get("compare")
        if not pattern:
            raise self.error("captured: :agrees-with: needs :compare: REGEX")
        regex = re.compile(pattern)
        tolerance = float(self.options.get("tolerance", 0.01))
        ours = [m for m in map(regex.search, read_output(self, program).splitlines()) if m]
        theirs = [m for m in map(regex.search, body) if m]
        if not ours:
            raise self.error(f"captured: no line of {program}'s output matches {pattern!r}")
        for k, m in enumerate(ours):
            if k >= len(theirs):
                logger.warning(f"captured: {path} has fewer matching lines than {program}'s run",
                               location=(self.env.docname, self.lineno))
                return
            for a, b in zip(m.groups(), theirs[k].groups()):
                try:
                    x, y = float(a), float(b)
                    same = abs(x - y) <= tolerance * max(abs(x), abs(y), 1e-12)
                except ValueError:
                    same = a == b
                if not same:
                    logger.warning(f"captured: {path} is out of date: this build's {program} printed "
                                   f"{m.group(0)!r} where the capture has {theirs[k].group(0)!r} "
                                   "(re-capture it)", location=(self.env.docname, self.lineno))
                    return

    def run(self):
        rel, path = self.env.relfn2path(self.arguments[0])
        if not Path(path).is_file():
            raise self.error(f"captured: no file {path}")
        self.env.note_dependency(rel)
        header, body = parse_capture(path)
        for key in ("captured", "machine", "command"):
            if key not in header:
                raise self.error(f"captured: {path} has no `# {key}:` header line (write captures with "
                                 "scripts/capture-run.sh)")
        stale = check_capture_fresh(self.env, path, header)
        if stale:
            logger.warning(f"captured: {path} is stale: {', '.join(stale)} changed since it was captured "
                           f"(re-capture: {header.get('recapture', ['scripts/capture-run.sh'])[0]})",
                           location=(self.env.docname, self.lineno))
        if "agrees-with" in self.options:
            self.check_agreement(path, body)
        lines = _select_lines(self, "\n".join(body), self.options.get("lines"), f"captured {path}")
        if "grep" in self.options:
            pattern = re.compile(self.options["grep"])
            lines = [line for line in lines if pattern.search(line)]
            if not lines:
                raise self.error(f"captured: no line of {path} matches {self.options['grep']!r}")
        if "caption" in self.options:
            caption = [nodes.Text(self.options["caption"])]
        else:
            caption = [nodes.Text("Captured "), nodes.Text(header["captured"][0]), nodes.Text(" on "),
                       nodes.Text(header["machine"][0]), nodes.Text(": "),
                       nodes.literal(header["command"][0], header["command"][0])]
        return [_output_block(self, lines, caption)]


# ---- measured claims -----------------------------------------------------------------------------

def _capture_text(directive, source):
    """The text of a program's output (chNN_x, chNN_x.py) or of a committed capture (a path)."""
    if PROGRAM.fullmatch(source):
        return read_output(directive, source)
    rel, path = directive.env.relfn2path(source)
    if not Path(path).is_file():
        raise directive.error(f"no capture {path}")
    directive.env.note_dependency(rel)
    return "\n".join(parse_capture(path)[1])


def _find_once(directive, source, pattern, text):
    try:
        regex = re.compile(pattern, re.M)
    except re.error as err:
        raise directive.error(f"bad regex {pattern!r}: {err}")
    hits = list(regex.finditer(text))
    if len(hits) != 1:
        raise directive.error(f"{source}: {pattern!r} matches {len(hits)} times in the output (it must "
                              "match exactly once)")
    m = hits[0]
    return m.group(1) if regex.groups else m.group(0)


class _RoleShim:
    """Just enough of a directive for the helpers above, inside a role."""

    def __init__(self, inliner, lineno):
        self.env = inliner.document.settings.env
        self.config = self.env.config
        self.inliner, self.lineno = inliner, lineno

    def error(self, message):
        return ValueError(message)


def measured_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """{measured}`ch04_throughput: num_workers=0: +(\\S+)` -- the regex's group 1 (or whole match),
    found exactly once in the program's captured output, inserted as text."""
    shim = _RoleShim(inliner, lineno)
    source, _, pattern = text.partition(": ")
    try:
        value = _find_once(shim, source.strip(), pattern, _capture_text(shim, source.strip()))
    except Exception as err:  # directive.error or ValueError
        msg = inliner.reporter.warning(f"measured: {err}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = nodes.inline(value, value, classes=["measured"])
    return [node], []


class CheckOutput(SphinxDirective):
    """A claim in the prose, checked against an output. Renders nothing::

        ```{check-output} ch05_zero_grad
        adam: Adam .* moved by ([0-9.e-]+)
        assert adam > 0.01
        ```

    With ``:same-as: OTHER`` (and optionally ``:lines:`` / ``:other-lines:``) the two outputs must be
    the same, line for line (trailing spaces aside).

    Each `name: regex` line binds a value (group 1, a number when it parses as one) found exactly once;
    each `assert EXPR` line must hold (plain Python over those names, plus abs/min/max/round)."""

    required_arguments = 1
    has_content = True
    option_spec = {"same-as": directives.unchanged, "lines": directives.unchanged,
                   "other-lines": directives.unchanged}

    def run(self):
        source = self.arguments[0]
        text = _capture_text(self, source)
        if "same-as" in self.options:
            other = self.options["same-as"]
            theirs = _capture_text(self, other)
            mine = _select_lines(self, text, self.options.get("lines"), f"check-output {source}")
            spec = self.options.get("other-lines", self.options.get("lines"))
            theirs = _select_lines(self, theirs, spec, f"check-output {other}")
            if [l.rstrip() for l in mine] != [l.rstrip() for l in theirs]:
                logger.warning(f"check-output: the prose says {source} and {other} print the same, "
                               "but their outputs differ", location=(self.env.docname, self.lineno))
        names = {}
        for line in self.content:
            line = line.strip()
            if not line:
                continue
            if line.startswith("assert "):
                expr = line[len("assert "):]
                try:
                    ok = eval(expr, {"__builtins__": {}, "abs": abs, "min": min, "max": max,
                                     "round": round, "len": len}, dict(names))
                except Exception as err:
                    raise self.error(f"check-output {source}: cannot evaluate {expr!r}: {err}")
                if not ok:
                    shown = ", ".join(f"{k} = {v!r}" for k, v in names.items())
                    logger.warning(f"check-output {source}: the prose claims `{expr}`, but the output "
                                   f"says {shown}", location=(self.env.docname, self.lineno))
                continue
            key, sep, pattern = line.partition(": ")
            if not sep or not key.isidentifier():
                raise self.error(f"check-output: expected `name: regex` or `assert EXPR`, got {line!r}")
            value = _find_once(self, source, pattern, text)
            try:
                value = float(value.replace(",", ""))
            except ValueError:
                pass
            names[key] = value
        return []


class NotRun(SphinxDirective):
    """```{not-run} needs a GPU``` around a PyTorch listing that this build cannot run: the reader is
    told so. Every other PyTorch listing in a chapter must come from a twin file that ran."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self):
        box = nodes.container("", classes=["not-run"])
        note = nodes.paragraph("", "", nodes.emphasis("", f"PyTorch, not run for this book: "
                                                         f"{self.arguments[0]}"))
        note["classes"].append("not-run-note")
        box += note
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


def check_python_listings(app, doctree, docname):
    """A PyTorch listing in a chapter either was run (cut from a twin file) or says it was not."""
    if not docname.startswith("chapters/"):
        return
    for block in doctree.findall(nodes.literal_block):
        if block.get("language") not in ("python", "py", "python3"):
            continue
        if block.get("source", "").endswith(".py"):
            continue
        parent, inside = block.parent, False
        while parent is not None:
            if "not-run" in parent.get("classes", []):
                inside = True
                break
            parent = parent.parent
        if not inside:
            logger.warning("python: a PyTorch listing typed into the page; cut it from a twin file that "
                           "the build runs (```{snippet} NAME.py SNIPPET```), or wrap it in "
                           "```{not-run} REASON``` to tell the reader it was not run", location=block)


# ---- API links -----------------------------------------------------------------------------------

def api_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """{api}`Tensor::view` or {api}`view() <Tensor::view>`: a cpp:any link to kindling::..."""
    m = re.fullmatch(r"\s*(.*?)\s*<([^<>]+)>\s*", text)
    title, target = (m.group(1), m.group(2)) if m else (None, text.strip())
    if not target.startswith("kindling::"):
        target = "kindling::" + target
    env = inliner.document.settings.env
    role = env.get_domain("cpp").role("any")
    new_text = f"{title} <{target}>" if title else target
    nodes_, messages = role("cpp:any", rawtext, new_text, lineno, inliner, options or {}, content or [])
    for node in nodes_:
        for ref in node.findall(addnodes.pending_xref) if not isinstance(node, addnodes.pending_xref) else [node]:
            ref["kindling_api"] = True
    return nodes_, messages


def warn_missing_api(app, env, node, contnode):
    if node.get("kindling_api"):
        logger.warning(f"api: no API entry {node['reftarget']!r} (is it declared in a public header?)",
                       location=node)
    return None


# ---- math with KaTeX (Debian's libjs-katex, copied into the book: nothing loads from the network) ---

KATEX = Path("/usr/share/javascript/katex")


def _math_inline(self, node):
    self.body.append('<span class="math notranslate nohighlight" data-tex="%s"></span>'
                     % html.escape(node.astext(), quote=True))
    raise nodes.SkipNode


def _math_block(self, node):
    if node.get("label"):
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    self.body.append('<div class="math notranslate nohighlight" data-tex="%s" data-display="1"></div>'
                     % html.escape(node.astext(), quote=True))
    raise nodes.SkipNode


def _install_katex(app):
    if app.builder.format != "html":
        return
    if not (KATEX / "katex.min.js").is_file():
        logger.warning("math: Debian's libjs-katex is not installed (run: make deps)")
        return
    out = Path(app.outdir).parent / "katex-static"
    target = out / "katex"
    if not (target / "katex.min.js").is_file():
        (target / "fonts").mkdir(parents=True, exist_ok=True)
        for name in ("katex.min.js", "katex.min.css"):
            shutil.copyfile(KATEX / name, target / name)
        for font in (KATEX / "fonts").resolve().glob("*.woff2"):
            shutil.copyfile(font, target / "fonts" / font.name)
    app.config.html_static_path.append(str(out))


# ---- generated pages: whole source files, API reference by layer ---------------------------------

def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def scanned_files(root):
    """Files whose snippets must all be shown, and which get a whole-file page."""
    files = []
    for chapter in sorted((root / "chapters").glob("[0-9][0-9]-*")):
        if not (chapter / "chapter.md").is_file():
            continue
        for pattern in ("*.cpp", "*.hpp", "*.py", "figures/*.py"):
            # mine.cpp is a learner's scratch program (make scratch), not part of the book
            files.extend(sorted(f for f in chapter.glob(pattern) if f.name != "mine.cpp"))
    for path in sorted((root / "lib").rglob("*")):
        if path.suffix in (".cpp", ".hpp") and "[snippet:" in path.read_text(encoding="utf-8", errors="replace"):
            files.append(path)
    return files


def _generate_source_pages(app):
    root = Path(app.config.kindling_source_root)
    src = Path(app.srcdir)
    wanted = set()
    for path in scanned_files(root):
        rel = path.relative_to(root).as_posix()
        wanted.add(rel)
        chapter = re.match(r"chapters/(\d\d)-", rel)
        where = (f"It belongs to [chapter {int(chapter.group(1))}](/{rel.rsplit('/', 1)[0].split('/figures')[0]}"
                 "/chapter.md)." if chapter else "It is part of the library the chapters build.")
        kind = ("the plotting script" if "/figures/" in rel else
                "the PyTorch twin" if rel.endswith(".py") else "the file")
        text = (f"---\norphan: true\n---\n\n# {rel}\n\nThis is {kind} `{rel}` in full, as this build of the book "
                f"compiled and ran it (snippet marker comments are left out). {where}\n\n"
                f"```{{literalinclude}} /{rel}\n:language: {LANGUAGES.get(path.suffix, 'text')}\n"
                + (":class: kindling-soft-wrap\n" if rel.startswith("lib/") else "") + "```\n")
        _write_if_changed(src / "sources" / f"{rel}.md", text)
    for old in (src / "sources").rglob("*.md"):
        if old.relative_to(src / "sources").as_posix()[:-3] not in wanted:
            old.unlink()


def _generate_api_pages(app):
    """api/index.md and one page per layer (the layers' Breathe projects are made by book/conf.py)."""
    src = Path(app.srcdir) / "api"
    namespaces = app.config.kindling_api_namespaces
    toc = []
    for layer, title, chapter, folders in app.config.kindling_api_layers:
        if layer not in namespaces:
            continue
        toc.append(layer)
        parts = [f"# {title} (`kindling_{layer}`)\n",
                 f"The public API of the `kindling_{layer}` layer, which chapter {chapter} builds "
                 f"(`#include <kindling/{layer}.hpp>`): its classes first, then the functions, types "
                 "and constants of each namespace. Generated by Doxygen from the `///` comments of the "
                 "headers in " + ", ".join(f"`lib/include/kindling/{f}/`" for f in folders if f != ".")
                 + ".\n"]
        classes = sorted(namespaces[layer].get("classes", []), key=lambda c: (c[2], c[1]))
        if classes:
            parts.append("## Classes\n")
        for kind, name, header in classes:
            directive = "doxygenstruct" if kind == "struct" else "doxygenclass"
            parts.append(f"```{{{directive}}} {name}\n:project: {layer}\n:members:\n:undoc-members:\n```\n")
        for name in sorted(namespaces[layer].get("namespaces", {}), key=lambda n: (n != "kindling", n)):
            parts.append(f"## Functions and types in `{name}`\n\n```{{doxygennamespace}} {name}\n"
                         f":project: {layer}\n:content-only:\n:members:\n:undoc-members:\n```\n")
        _write_if_changed(src / f"{layer}.md", "\n".join(parts))
    root = Path(app.config.kindling_source_root)
    extras = sorted(h.name for h in (root / "lib" / "include" / "kindling").glob("*.hpp"))
    index = ["# API reference\n",
             "Everything in `namespace kindling` (the book writes `namespace kd = kindling;`), one page per "
             "layer, generated by Doxygen from the `///` comments of the public headers in "
             "`lib/include/kindling/`. Internals (`kindling::detail`) are left out. Each layer has an "
             "umbrella header; " + ", ".join(f"`<kindling/{h}>`" for h in extras) + " are the top-level "
             "headers.\n",
             "```{toctree}\n:maxdepth: 2\n\n" + "\n".join(toc) + "\n```\n"]
    _write_if_changed(src / "index.md", "\n".join(index))


def generate_pages(app):
    _generate_source_pages(app)
    _generate_api_pages(app)
    _install_katex(app)


# ---- checks on every page ------------------------------------------------------------------------

CLANG_FORMAT = re.compile(r"^\s*// clang-format (off|on)\s*$")


def strip_snippet_markers(app, doctree):
    for block in doctree.findall(nodes.literal_block):
        text = block.astext()
        if "[snippet:" not in text and "[end]" not in text and "clang-format" not in text:
            continue
        kept = [line for line in text.split("\n")
                if not snippets.is_marker(line) and not CLANG_FORMAT.match(line)]
        new = "\n".join(kept)
        if new != text:
            same = block.rawsource == text  # keep Sphinx's "highlight me" condition (rawsource == text)
            block.children = [nodes.Text(new)]
            if same:
                block.rawsource = new


def _chapter_numbers(root):
    return sorted(int(p.parent.name[:2]) for p in (root / "chapters").glob("[0-9][0-9]-*/chapter.md"))


CHAPTER_REF = re.compile(r"\b[Cc]hapters?\s+(\d+)((?:\s*(?:[–—-]|,|and|or|to)\s*\d+)*)")


def _where(node, docname):
    """A location for a warning: the node's own source line when it has one, else the page."""
    return node if node is not None and node.line else (docname, None)


def check_words(app, doctree, docname):
    root = Path(app.config.kindling_source_root)
    last = max(_chapter_numbers(root))
    banned = [re.compile(p, re.I) for p in app.config.kindling_banned_words]
    for text in doctree.findall(nodes.Text):
        value = text.astext()
        for pattern in banned:
            m = pattern.search(value)
            if m:
                logger.warning(f"words: {m.group(0)!r} is our workshop's word, not the reader's "
                               f"(in: {value.strip()[:80]!r})", location=_where(text.parent, docname))
        for m in CHAPTER_REF.finditer(value):
            numbers = [int(m.group(1))] + [int(n) for n in re.findall(r"\d+", m.group(2) or "")]
            if max(numbers) > last:
                logger.warning(f"words: {m.group(0)!r} refers to a chapter that does not exist yet (the book "
                               f"has chapters 0-{last}; in: {value.strip()[:80]!r})",
                               location=_where(text.parent, docname))


def check_width(app, doctree, docname):
    if any(docname.startswith(p) for p in app.config.kindling_soft_wrap_docs):
        return
    width = app.config.kindling_max_code_columns
    for block in doctree.findall(nodes.literal_block):
        for number, line in enumerate(block.astext().split("\n"), 1):
            if len(line.expandtabs()) > width:
                where = block.get("source") or ""
                logger.warning(f"width: a line of {len(line.expandtabs())} characters, but the page shows "
                               f"{width} (scripts/book-fit.py measures it). Wrap it in the source"
                               f"{' ' + Path(where).name if where else ''}: {line.strip()[:70]!r}",
                               location=block)
                break


def _norm(title):
    return title.replace("’", "'").strip()


def check_frame(app, doctree, docname):
    m = re.fullmatch(r"chapters/(\d\d)-[^/]+/chapter", docname)
    if not m:
        return
    number = m.group(1)
    pending = app.config.kindling_frame_pending.get(number, [])
    if pending == "all":
        return
    root = Path(app.config.kindling_source_root)
    top = next(iter(doctree.findall(nodes.section)), None)
    if top is None:
        return
    titles = [_norm(s[0].astext()) for s in top.children if isinstance(s, nodes.section)]
    first, last = list(app.config.kindling_frame[0]), list(app.config.kindling_frame[1])
    if number == "00" or not (root / "lib" / "src").is_dir():
        last = [t for t in last if t != "Where this lives"]
    if not (root / "solutions" / f"ch{number}").is_dir():
        # No exercises yet: the section is optional (a table of the planned ones).
        last = [t for t in last if t != "Exercises"]
        titles = [t for t in titles if t != "Exercises"]
    first = [t for t in first if t not in pending]
    last = [t for t in last if t not in pending]
    problems = []
    if titles[:len(first)] != first:
        problems.append(f"it should open with the sections {first}, but opens with {titles[:len(first)]}")
    if titles[-len(last):] != last:
        problems.append(f"it should end with the sections {last}, but ends with {titles[-len(last):]}")
    for problem in problems:
        logger.warning(f"frame: chapter {int(number)}: {problem} (the chapter frame, book/README.md)",
                       location=(docname, 1))


def check_snippets(app, env):
    """All snippet markers are well formed and every snippet of a scanned file is shown somewhere."""
    root = Path(app.config.kindling_source_root)
    used = set()
    for uses in getattr(env, "kindling_snippet_uses", {}).values():
        used |= uses
    for path in scanned_files(root):
        parsed = snippets.parse(path)
        rel = path.relative_to(root).as_posix()
        for line, message in parsed.errors:
            logger.warning(f"snippet markers: {rel}:{line}: {message}")
        for name, snippet in parsed.snippets.items():
            if (str(path.resolve()), name) not in used:
                logger.warning(f"snippet markers: {rel}:{snippet.start}: snippet '{name}' is never shown in "
                               "the book (show it, or remove its markers)")


def purge_doc(app, env, docname):
    getattr(env, "kindling_snippet_uses", {}).pop(docname, None)


def merge_info(app, env, docnames, other):
    mine = env.__dict__.setdefault("kindling_snippet_uses", {})
    for docname, uses in getattr(other, "kindling_snippet_uses", {}).items():
        if docname in docnames:
            mine[docname] = uses


def on_doctree_read(app, doctree):
    strip_snippet_markers(app, doctree)
    docname = app.env.docname
    check_width(app, doctree, docname)
    check_words(app, doctree, docname)
    check_frame(app, doctree, docname)
    check_python_listings(app, doctree, docname)


def setup(app):
    app.add_config_value("kindling_outputs_dir", "", "env")
    app.add_config_value("kindling_source_root", "", "env")
    app.add_config_value("kindling_max_code_columns", 88, "env")
    app.add_config_value("kindling_soft_wrap_docs", ["sources/lib/"], "env")
    app.add_config_value("kindling_banned_words", [], "env")
    app.add_config_value("kindling_frame", ([], []), "env")
    app.add_config_value("kindling_frame_pending", {}, "env")
    app.add_config_value("kindling_api_layers", [], "env")
    app.add_config_value("kindling_api_namespaces", {}, "env")
    app.add_directive("literalinclude", KindlingLiteralInclude, override=True)
    app.add_directive("snippet", Snippet)
    app.add_directive("program-output", ProgramOutput)
    app.add_directive("captured", Captured)
    app.add_directive("check-output", CheckOutput)
    app.add_directive("not-run", NotRun)
    app.add_role("measured", measured_role)
    app.add_role("api", api_role)
    app.add_html_math_renderer("katex", (_math_inline, None), (_math_block, None))
    app.connect("builder-inited", generate_pages)
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-check-consistency", check_snippets)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    app.connect("missing-reference", warn_missing_api)
    app.add_css_file("katex/katex.min.css")
    app.add_js_file("katex/katex.min.js", defer="defer")
    app.add_js_file("kindling-math.js", defer="defer")
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
