#!/usr/bin/python3
"""Unit tests of the grader's safety helpers (scripts/grade_safe.py) and of the reports built with them
(scripts/grade_report.py): what a student sees holds no hidden test and no unfiltered learner string.

    test_grade_safe.py          (standard library only; < 5 s)
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import grade_safe as gs  # noqa: E402
from grade_report import Chapter, Exercise, GradedTest, table, write_reports  # noqa: E402
from grade_run import Outcome  # noqa: E402

NASTY = ("\x1b]0;TITLE\x07\x1b[2J\x1b[31mred\x1b[0m \x9b2J \u202eevil\u202c \x00nul \r\x08over \ud800 "
         "\ufeff\u200bzero \ufffe\x7f\x85 end")


class Clean(unittest.TestCase):
    def test_escapes_and_controls_go(self):
        c = gs.clean(NASTY)
        for bad in ("\x1b", "\x9b", "\x07", "\x00", "\r", "\x08", "\u202e", "\u202c", "\ufeff", "\u200b", "\ufffe",
                    "\x7f", "\x85", "TITLE"):
            self.assertNotIn(bad, c)
        self.assertIn("red", c)
        self.assertIn("evil", c)
        self.assertIn("end", c)
        self.assertIn("\ufffd", c)  # the lone surrogate, replaced
        c.encode("utf-8")  # valid UTF-8: encoding must not raise

    def test_newlines_and_tabs_stay(self):
        self.assertEqual(gs.clean("a\tb\r\nc\nd"), "a\tb\nc\nd")
        self.assertEqual(gs.clean("a\tb\nc", keep_newlines=False), "a b c")

    def test_bytes_and_objects(self):
        self.assertEqual(gs.clean(b"ok \xff\xfe"), "ok \ufffd\ufffd")
        self.assertEqual(gs.clean(42), "42")

    def test_clipped_with_a_note(self):
        c = gs.clean("x" * 100_000, 500)
        self.assertLessEqual(len(c), 500)
        self.assertIn("more characters cut", c)

    def test_idempotent(self):
        once = gs.clean(NASTY * 300, 1000)
        self.assertEqual(gs.clean(once, 1000), once)

    def test_unterminated_osc_is_bounded(self):
        c = gs.clean("\x1b]0;" + "t" * 600 + " tail")
        self.assertIn("tail", c)
        self.assertNotIn("\x1b", c)

    def test_excerpt_keeps_the_end(self):
        e = gs.excerpt("\n".join(f"line {i}" for i in range(1000)), 5, 10_000)
        self.assertTrue(e.endswith("line 999"))
        self.assertIn("earlier output not shown", e)
        self.assertLessEqual(len(gs.excerpt("y" * 100_000, 5, 300)), 400)

    def test_xml_accepts_the_result(self):
        el = ET.Element("t", message=gs.clean(NASTY))
        el.text = gs.clean(NASTY)
        ET.fromstring(ET.tostring(el))  # must parse back


class ReadOutput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.host = os.path.join(self.dir, "host-secret")
        with open(self.host, "w") as f:
            f.write("HOST-SECRET")
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, name: str, cap: int = 1 << 20) -> str:
        with self.assertRaises(gs.UnsafeOutput) as e:
            gs.read_output(self.out, name, cap)
        self.assertNotIn("HOST-SECRET", str(e.exception))
        return str(e.exception)

    def test_regular_file(self):
        Path(self.out, "ok.txt").write_text("fine")
        self.assertEqual(gs.read_output(self.out, "ok.txt", 100), b"fine")
        self.assertEqual(gs.read_output_text(os.path.join(self.out, "ok.txt"), 100), "fine")

    def test_missing(self):
        with self.assertRaises(FileNotFoundError):
            gs.read_output(self.out, "none", 100)

    def test_symlink_to_a_host_file(self):
        os.symlink(self.host, os.path.join(self.out, "link"))
        self.assertIn("symbolic link", self.refused("link"))

    def test_symlink_to_a_device(self):
        os.symlink("/dev/zero", os.path.join(self.out, "zero"))
        self.refused("zero")

    def test_fifo_does_not_block(self):
        os.mkfifo(os.path.join(self.out, "fifo"))
        done = []
        t = threading.Thread(target=lambda: done.append(self.refused("fifo")), daemon=True)
        t.start()
        t.join(5)
        self.assertTrue(done and "FIFO" in done[0], "reading a FIFO blocked or was not refused")

    def test_folder_and_paths(self):
        os.mkdir(os.path.join(self.out, "sub"))
        self.refused("sub")
        for name in ("../host-secret", "a/b", "", ".."):
            self.refused(name)

    def test_size_cap(self):
        with open(os.path.join(self.out, "big"), "wb") as f:
            f.truncate(10_000)
        self.assertIn("more than", self.refused("big", cap=1000))

    def test_folder_replaced_by_a_link(self):
        # Without the sandbox a program could replace its out/ folder by a link to another folder.
        os.symlink(self.dir, os.path.join(self.dir, "out-link"))
        with self.assertRaises(OSError):
            gs.read_output(os.path.join(self.dir, "out-link"), "host-secret", 100)


def chapter_with_hidden() -> Chapter:
    visible = GradedTest(name="visible: fine", chapter="ch99", exercise="ex1", pts=1, hidden=False, tags=[],
                         max_score=5, outcome=Outcome("passed"))
    hidden = GradedTest(name="SECRET-HIDDEN-NAME", chapter="ch99", exercise="ex1", pts=1, hidden=True, tags=[],
                        file="hidden/ch99/t.cpp", line=3, max_score=5,
                        outcome=Outcome("failed", "SECRET-HIDDEN-VALUES: expected 7, got 8",
                                        output="SECRET-HIDDEN-OUTPUT\n" + NASTY))
    loud = GradedTest(name="visible: loud", chapter="ch99", exercise="ex2", pts=1, hidden=False, tags=[],
                      max_score=10, outcome=Outcome("failed", NASTY + "y" * 1_000_000,
                                                    output=("z" * 5000 + "\n") * 400 + NASTY))
    ex1 = Exercise("ex1", "one", ["nudge"], 10, [visible, hidden],
                   test_hints={"SECRET-HIDDEN": "SECRET-HIDDEN-HINT"})
    ex2 = Exercise("ex2", "two", ["nudge"], 10, [loud])
    return Chapter("ch99", "Fixture", [ex1, ex2])


class Reports(unittest.TestCase):
    def test_visible_reports_hold_nothing_hidden_or_unfiltered(self):
        with tempfile.TemporaryDirectory() as out:
            chapters = [chapter_with_hidden()]
            summary = table(chapters, out, os.path.join(out, "instructor"))
            write_reports(chapters, out, summary, os.path.join(out, "instructor"))
            visible = {"table": summary}
            for name in ("results.json", "junit.xml", "ch99.txt"):
                visible[name] = Path(out, name).read_text()
            for where, text in visible.items():
                for secret in ("SECRET-HIDDEN", "hidden/ch99", "\x1b", "\x00", "\u202e", "TITLE"):
                    self.assertNotIn(secret, text, f"{where} shows {secret!r}")
            res = json.loads(visible["results.json"])
            ET.fromstring(visible["junit.xml"].encode())
            self.assertLess(len(visible["results.json"]), 200_000)
            for t in res["tests"]:
                self.assertLess(len(t["output"]), 6000)
            names = [t["name"] for t in res["tests"]]
            self.assertIn("ch99 ex1 one: hidden test 1", names)
            self.assertEqual(res["score"], 5)  # the hidden test's loss still counts
            self.assertIn("hidden test(s) did not", " ".join(summary.split()))
            self.assertLess(len(summary), 4000)  # a megabyte-long message is clipped in the table
            # The instructor's copy has the hidden test in full (still cleaned).
            full = Path(out, "instructor", "results.json").read_text()
            self.assertIn("SECRET-HIDDEN-NAME", full)
            self.assertIn("SECRET-HIDDEN-VALUES", full)
            self.assertNotIn("\\u001b", full)
            self.assertIn("SECRET-HIDDEN-VALUES", Path(out, "instructor", "ch99.txt").read_text())
            ET.parse(os.path.join(out, "instructor", "junit.xml"))

    def test_no_instructor_folder_without_hidden_tests(self):
        with tempfile.TemporaryDirectory() as out:
            ch = chapter_with_hidden()
            ch.exercises[0].tests = [t for t in ch.exercises[0].tests if not t.hidden]
            write_reports([ch], out, table([ch], out))
            self.assertFalse(os.path.exists(os.path.join(out, "instructor")))


if __name__ == "__main__":
    unittest.main(verbosity=1)
