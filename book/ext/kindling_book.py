"""Sphinx helpers for the Kindling book.

``program-output``
    Shows what a chapter program printed during this build of the book::

        ```{program-output} ch00_doctor
        ```

    reads ``<kindling_outputs_dir>/ch00_doctor.txt`` (written by ``scripts/run-chapters.sh --capture``).
    Options: ``:lines: 1-10`` (a Sphinx line selection), ``:caption: text``. A missing output file is an
    error, so the book can never show an output that was not produced by the program it names.

Snippet markers
    Code comes from ``literalinclude`` between ``// [snippet: name]`` and ``// [end]``. Marker lines of
    *other* snippets inside the included range (nested or overlapping snippets) are removed from the
    rendered block, so readers never see them.
"""
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective
from sphinx.util import parselinenos

MARKER = re.compile(r"^\s*(//|#)\s*\[(snippet: [^\]]+|end)\]\s*$")


class ProgramOutput(SphinxDirective):
    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec = {"lines": directives.unchanged, "caption": directives.unchanged}

    def run(self):
        program = self.arguments[0]
        if not re.fullmatch(r"ch\d\d_[A-Za-z0-9_]+", program):
            raise self.error(f"program-output: '{program}' is not a chapter program name "
                             "(expected chNN_<file stem>, e.g. ch00_doctor)")
        outputs = Path(self.config.kindling_outputs_dir)
        path = outputs / f"{program}.txt"
        if not path.is_file():
            raise self.error(
                f"program-output: no captured output for {program} ({path} is missing). Is "
                f"chapters/*/{program.split('_', 1)[1]}.cpp built, and did scripts/run-chapters.sh "
                "--capture run it (is it marked `// book: skip-run`)?")
        self.env.note_dependency(str(path))
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        if "lines" in self.options:
            try:
                wanted = parselinenos(self.options["lines"], len(lines))
            except ValueError as err:
                raise self.error(f"program-output {program}: bad :lines: ({err})")
            if not wanted or max(wanted) >= len(lines):
                raise self.error(f"program-output {program}: :lines: {self.options['lines']} is out of "
                                 f"range (the output has {len(lines)} lines)")
            lines = [lines[i] for i in wanted]
        body = "\n".join(lines)
        block = nodes.literal_block(body, body)
        block["language"] = "text"
        block["classes"].append("program-output")
        caption = self.options.get("caption", f"Output of {program}")
        container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
        container += nodes.caption(caption, "", nodes.Text(caption))
        container += block
        self.set_source_info(block)
        return [container]


def strip_snippet_markers(app, doctree):
    for block in doctree.findall(nodes.literal_block):
        text = block.astext()
        if "[snippet:" not in text and "[end]" not in text:
            continue
        kept = [line for line in text.split("\n") if not MARKER.match(line)]
        new = "\n".join(kept)
        if new != text:
            same = block.rawsource == text  # keep Sphinx's "highlight me" condition (rawsource == text)
            block.children = [nodes.Text(new)]
            if same:
                block.rawsource = new


def setup(app):
    app.add_config_value("kindling_outputs_dir", "", "env")
    app.add_directive("program-output", ProgramOutput)
    app.connect("doctree-read", strip_snippet_markers)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
