"""What the grader does with anything a learner's program left behind (used by grade.py, grade_run.py,
grade_compare.py, grade_report.py and the milestone checkers, tests/grading/milestones.py).

Two rules, one function each, so that no reader or report forgets one:

  * read_output(folder, name, cap): a file a program wrote is read only when it is a regular file right
    in `folder` (no symlink, FIFO, device or folder; opened with O_NOFOLLOW relative to the folder, which
    is itself opened with O_NOFOLLOW), and only up to `cap` bytes. The readers run outside the sandbox:
    a symlink `out/repr.txt -> /etc/shadow` (or -> the expected values, or -> a hidden test) would
    otherwise be followed with the grader's rights, a FIFO would hang it and /dev/zero would fill its
    memory. Failures raise UnsafeOutput, whose message names the file and the rule, never its contents.
  * clean(text, limit): every learner-controlled string (an exception's message, a program's output, the
    compiler's words, a reported result's name or value) goes through it before it reaches the table, a
    details file, results.json or junit.xml: valid UTF-8 (lone surrogates and undecodable bytes become
    U+FFFD), no terminal escape sequence (CSI, OSC, DCS ... removed whole), no other control character
    (only \\n and \\t are kept; \\r\\n becomes \\n), no bidirectional override or zero-width character
    (they make text read differently from what it is), nothing XML 1.0 forbids, and at most `limit`
    characters (a note says how much was cut).

Standard library only.
"""
from __future__ import annotations

import os
import re
import stat

# How much of a learner's text the reports keep, per field.
DETAIL_LIMIT = 2000     # a verdict's detail (first failure, exception message, compiler excerpt)
OUTPUT_LIMIT = 1000     # a test's output excerpt in the visible results.json / junit.xml
DETAILS_FILE_OUTPUT_LIMIT = 6000   # a test's output excerpt in the details file chNN.txt
NAME_LIMIT = 200        # a name the program reported (a result, a rogue test)
TOTAL_LIMIT = 1 << 20   # all visible per-test outputs of one results.json together

# Escape sequences: CSI (ESC [ ... final byte), OSC / DCS / SOS / PM / APC strings (up to BEL or ST),
# two-byte escapes (ESC + one character), and their 8-bit C1 forms.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?"          # CSI ... final
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"          # OSC, DCS, SOS, PM, APC ...
    r"[^\x07\x1b\x9c]{0,512}(?:\x07|\x1b\\|\x9c)?"       # ... up to BEL or ST (bounded)
    r"|\x1b[\x20-\x7e]?")                                # ESC + one character (or a lone ESC)
# Control characters but \n and \t; C1; DEL; bidirectional controls; zero-width characters; BOM; the
# line/paragraph separators; XML's non-characters U+FFFE/U+FFFF; lone surrogates.
_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                  "\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]")


def clean(text, limit: int | None = DETAIL_LIMIT, keep_newlines: bool = True) -> str:
    """`text` (str, bytes or anything printable) made safe to show: see the module's docstring."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    text = text.replace("\r\n", "\n")
    text = _ESCAPES.sub("", text)
    # A lone surrogate (from JSON "\ud800") cannot be encoded: replace it rather than crash the reports.
    text = _BAD.sub(lambda m: "\ufffd" if "\ud800" <= m.group() <= "\udfff" else "", text)
    if not keep_newlines:
        text = " ".join(text.replace("\t", " ").split())
    return clip(text, limit)


def clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    note = f" [... {len(text) - limit} more characters cut]"
    return text[: max(0, limit - len(note))] + note


def excerpt(text, lines: int, limit: int) -> str:
    """The last `lines` lines of a program's output, cleaned and at most `limit` characters (the end is kept:
    that is where a failure is)."""
    text = clean(text, None)
    shown = text.splitlines()
    cut = len(shown) > lines
    text = "\n".join(shown[-lines:])
    if len(text) > limit:
        text, cut = text[-limit:], True
    return ("[... earlier output not shown]\n" if cut else "") + text


class UnsafeOutput(ValueError):
    """A program's output file that the grader refuses to read (its message never quotes the file)."""


def read_output(folder: str, name: str, cap: int) -> bytes:
    """The bytes of `folder`/`name`, a regular file of at most `cap` bytes; UnsafeOutput otherwise, and
    FileNotFoundError when there is nothing by that name."""
    if not name or "/" in name or name in (".", ".."):
        raise UnsafeOutput(f"{name!r} is not a plain file name")
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        try:
            st = os.lstat(name, dir_fd=dir_fd)
        except FileNotFoundError:
            raise
        if not stat.S_ISREG(st.st_mode):
            kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a folder" if stat.S_ISDIR(st.st_mode) else "a device or socket")
            raise UnsafeOutput(f"{name} is {kind}, not a regular file: it is not read")
        if st.st_size > cap:
            raise UnsafeOutput(f"{name} holds {st.st_size} bytes, more than the {cap} allowed")
        # O_NONBLOCK: should the name have become a FIFO since lstat, open must not wait for a writer.
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError as e:
            raise UnsafeOutput(f"{name} cannot be opened safely ({e.strerror})") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
                raise UnsafeOutput(f"{name} changed while it was read: it is not read")
            chunks, total = [], 0
            while total <= cap:
                chunk = os.read(fd, min(1 << 20, cap + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            if total > cap:
                raise UnsafeOutput(f"{name} grew past the {cap} bytes allowed while it was read")
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def read_output_path(path: str, cap: int) -> bytes:
    """read_output for a path (its folder and its name)."""
    folder, name = os.path.split(os.path.abspath(path))
    return read_output(folder, name, cap)


def read_output_text(path: str, cap: int) -> str:
    """read_output_path, decoded as UTF-8 (undecodable bytes replaced; clean() the text before showing it)."""
    return read_output_path(path, cap).decode("utf-8", errors="replace")
