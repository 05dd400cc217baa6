# Sphinx configuration for the Kindling book. Built by scripts/build-book.sh (`make book`):
#
#   sphinx-build -W -c book  $BUILD/book/src  $BUILD/book/html
#
# $BUILD/book/src is a staging folder of symlinks made by build-book.sh: index.md and api.md from book/,
# chapters/NN-name/ (each chapter's README.md is its page, next to the programs it includes), and
# outputs/ (what the chapter programs printed, captured during this build). Doxygen runs first (XML for
# Breathe). Warnings are errors: a missing snippet, a missing program output or a broken link fails.
import os
import re
import subprocess
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parent
SOURCE = BOOK.parent
BUILD = Path(os.environ.get("KINDLING_BUILD_DIR", SOURCE / "build")).resolve()
sys.path.insert(0, str(BOOK / "ext"))

project = "Kindling"
author = "The Kindling authors"
copyright = "Kindling authors"


def _version():
    for line in (SOURCE / "CMakeLists.txt").read_text().splitlines():
        if line.startswith("project(Kindling VERSION"):
            return line.split()[2]
    return "unknown"


version = release = _version()

extensions = [
    "myst_parser",
    "breathe",
    "sphinx.ext.graphviz",
    "kindling_book",
]
root_doc = "index"
source_suffix = {".md": "markdown"}
# Only the book's pages: the staging folder also holds the chapters' programs and other files.
include_patterns = ["index.md", "api.md", "chapters/*/README.md"]
exclude_patterns = []

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"Kindling {release}"
html_static_path = [str(BOOK / "static")]
html_css_files = ["kindling.css"]
pygments_style = "friendly"
pygments_dark_style = "monokai"
highlight_language = "cpp"
graphviz_output_format = "svg"

# The outputs the chapter programs printed (scripts/run-chapters.sh --capture).
kindling_outputs_dir = str(BUILD / "book" / "outputs")

# ---- Doxygen (XML) for the API reference --------------------------------------------------------
DOXYGEN_OUT = BUILD / "book" / "doxygen"
breathe_projects = {"kindling": str(DOXYGEN_OUT / "xml")}
breathe_default_project = "kindling"
breathe_default_members = ("members",)
breathe_show_include = True


def _run_doxygen():
    DOXYGEN_OUT.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ,
               KINDLING_SOURCE_DIR=str(SOURCE),
               KINDLING_GENERATED_INCLUDE=str(BUILD / "lib" / "generated" / "kindling"),
               KINDLING_DOXYGEN_OUT=str(DOXYGEN_OUT))
    result = subprocess.run(["doxygen", str(BOOK / "Doxyfile")], env=env, cwd=str(DOXYGEN_OUT),
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"doxygen failed:\n{result.stdout}\n{result.stderr}")
    if result.stderr.strip():
        # Doxygen reports malformed comments (bad \param names, unterminated commands) here.
        print("doxygen warnings:\n" + result.stderr, file=sys.stderr)
        if os.environ.get("KINDLING_DOXYGEN_STRICT", "1") == "1":
            raise RuntimeError("doxygen reported warnings (fix the /// comments above, or set "
                               "KINDLING_DOXYGEN_STRICT=0 to look at the book anyway)")


def _unescape(text):
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _strip_template_args(name):
    previous = None
    while previous != name:
        previous, name = name, re.sub(r"\s*<[^<>]*>", "", name)
    return name


def _sanitize_doxygen_xml():
    """Works around two C++ constructs Breathe/Sphinx cannot render (either would break the -W build):

    - two members with the same Doxygen id (e.g. two constructor templates ``template <class T>
      Scalar(T)`` that differ only in their enable_if): the second copy gets a unique id;
    - members a class re-exports with a using-declaration (``using Optimizer::set_lr;``): Doxygen
      copies the base class's declarations into the derived class, where they clash with the
      derived class's overrides; they are dropped there (the base class documents them);
    - designated initialisers as default arguments (``TensorOptions options = {.dtype = kInt64}``),
      which Sphinx's C++ parser rejects: shown as ``{dtype = kInt64}``.
    """
    member_id = re.compile(r'(<memberdef [^>]*\bid=")([^"]+)(")')
    defval = re.compile(r"<(defval|argsstring)>(.*?)</\1>", re.S)
    designator = re.compile(r"([{,]\s*)\.(?=[A-Za-z_]\w*\s*=)")
    for path in (DOXYGEN_OUT / "xml").glob("*.xml"):
        text = path.read_text(encoding="utf-8")
        seen = {}

        def unique(match):
            ident = match.group(2)
            seen[ident] = seen.get(ident, 0) + 1
            suffix = "" if seen[ident] == 1 else f"_dup{seen[ident]}"
            return match.group(1) + ident + suffix + match.group(3)

        new = member_id.sub(unique, text)
        compound = re.search(r'<compounddef [^>]*kind="(class|struct)"[^>]*>\s*<compoundname>([^<]+)<', new)
        if compound:
            own_scope = _strip_template_args(compound.group(2)) + "::"

            def keep_own(match):
                definition = re.search(r"<definition>(.*?)</definition>", match.group(0), re.S)
                name = re.search(r"<name>(.*?)</name>", match.group(0), re.S)
                if definition and name:
                    qualified = _strip_template_args(_unescape(definition.group(1))).split()[-1]
                    member = _unescape(name.group(1))
                    if qualified.endswith("::" + member) and not qualified.startswith(own_scope):
                        return ""  # a base class's member, re-exported by a using-declaration
                return match.group(0)

            new = re.sub(r"<memberdef [^>]*>.*?</memberdef>\s*", keep_own, new, flags=re.S)
        new = defval.sub(lambda m: "<%s>%s</%s>" % (m.group(1), designator.sub(r"\1", m.group(2)), m.group(1)),
                         new)
        if new != text:
            path.write_text(new, encoding="utf-8")


_run_doxygen()
_sanitize_doxygen_xml()
