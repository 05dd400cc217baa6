#!/usr/bin/python3
"""Unit tests of scripts/make_exercises.py: stubs, markers, errors, --check, never overwriting a learner's
work. Run: test_make_exercises.py -v"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import make_exercises as mx  # noqa: E402


def dedent(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


class TransformTest(unittest.TestCase):
    def test_statement_region_becomes_throw_at_marker_indent(self):
        src = dedent("""
            int add(int a, int b) {
              // BEGIN SOLUTION ex1: add two integers
              int s = a + b;
              return s;
              // END SOLUTION
            }
            """)
        out = mx.transform(src, "ch02", "f.cpp", None)
        self.assertEqual(out, 'int add(int a, int b) {\n  throw kindling::NotImplemented("ch02.ex1 (add two integers) '
                              '-- run make grade CH=02");\n}\n')

    def test_what_is_the_manifest_title_and_is_escaped(self):
        src = "// BEGIN SOLUTION ch02.ex3: a nudge the learner does not see\nx;\n// END SOLUTION\n"
        out = mx.transform(src, "ch02", "f.cpp", {"ex3": 'say "hi" \\ there'})
        self.assertIn(r'NotImplemented("ch02.ex3 (say \"hi\" \\ there) -- run make grade CH=02");', out)
        self.assertNotIn("nudge", out)

    def test_stub_section_replaces_region_and_expands_not_implemented(self):
        src = dedent("""
            struct S {
              // BEGIN SOLUTION ex2: members
              int calls = 0;
              // STUB
              // // ex2: your members here
              //
              // int f() { $NOT_IMPLEMENTED; }
              // END SOLUTION
            };
            """)
        out = mx.transform(src, "ch01", "s.hpp", None)
        self.assertEqual(out, dedent("""
            struct S {
              // ex2: your members here

              int f() { throw kindling::NotImplemented("ch01.ex2 (members) -- run make grade CH=01"); }
            };
            """))

    def test_text_outside_regions_is_verbatim(self):
        src = "a\n  b  \n\n// BEGIN SOLUTION ex1\nsecret\n// END SOLUTION\nc"
        out = mx.transform(src, "ch01", "f.cpp", None)
        self.assertTrue(out.startswith("a\n  b  \n\n") and out.endswith("\nc"))
        self.assertNotIn("secret", out)

    def test_malformed_markers_name_file_and_line(self):
        cases = {
            "// BEGIN SOLUTION\nx\n// END SOLUTION\n": "f.cpp:1: `// BEGIN SOLUTION` needs an exercise id",
            "// BEGIN SOLUTION ex1\nx\n": "f.cpp:1: `// BEGIN SOLUTION ex1` is never closed",
            "// BEGIN SOLUTION ex1\n// BEGIN SOLUTION ex2\n// END SOLUTION\n": "f.cpp:2: nested",
            "x\n// END SOLUTION\n": "f.cpp:2: `// END SOLUTION` without",
            "// BEGIN SOLUTION ch03.ex1\n// END SOLUTION\n": "marker names ch03 but the file is in ch02/",
            "// BEGIN SOLUTION ex1\n// STUB\nnot a comment\n// END SOLUTION\n": "f.cpp:3: lines after `// STUB`",
            "// BEGIN SOLUTION ex9\n// END SOLUTION\n": "ex9 is not listed in tests/grading/ch02/exercises.json",
        }
        for src, msg in cases.items():
            with self.subTest(src=src), self.assertRaises(mx.MarkerError) as cm:
                mx.transform(src, "ch02", "f.cpp", {"ex1": "t", "ex2": "u"})
            self.assertIn(msg, str(cm.exception))


class LibraryModelTest(unittest.TestCase):
    """A chapter in the library model: one answer file per exercise, as its manifest names."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "solutions" / "ch01").mkdir(parents=True)
        (self.root / "tests" / "grading" / "ch01").mkdir(parents=True)
        (self.root / "tests" / "grading" / "ch01" / "exercises.json").write_text(json.dumps(
            {"title": "T", "model": "library", "layer": "tensor",
             "exercises": {"ex1": {"title": "one", "file": "ex1_a.cpp"}, "ex2": {"title": "two", "file": "ex2_b.cpp"}}}))
        (self.root / "solutions" / "ch01" / "ex1_a.cpp").write_text(
            "namespace kindling {\nint f() {\n  // BEGIN SOLUTION ex1\n  return 1;\n  // END SOLUTION\n}\n}\n")
        (self.root / "solutions" / "ch01" / "ex2_b.cpp").write_text(
            "namespace kindling {\nint g() {\n  // BEGIN SOLUTION ex1\n  return 1;\n  // END SOLUTION\n}\n}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_answer_files_must_match_the_manifest(self):
        problems = mx.lint(self.root)
        self.assertTrue(any("ex2_b.cpp: is ex2's answer file but its SOLUTION regions name ex1" in p for p in problems),
                        problems)
        self.assertFalse(any("namespace kindling::exercises" in p for p in problems), problems)
        (self.root / "solutions" / "ch01" / "ex3_c.hpp").write_text("// BEGIN SOLUTION ex1\n// END SOLUTION\n")
        problems = mx.lint(self.root)
        self.assertTrue(any("ex3_c.hpp: not listed" in p for p in problems), problems)
        self.assertTrue(any("answer files are .cpp files" in p for p in problems), problems)


class TreeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "solutions" / "ch02").mkdir(parents=True)
        (self.root / "tests" / "grading" / "ch02").mkdir(parents=True)
        (self.root / "tests" / "grading" / "ch02" / "exercises.json").write_text(
            json.dumps({"title": "T", "exercises": {"ex1": {"title": "one", "hint": "h"}}}))
        (self.root / "solutions" / "ch02" / "a.cpp").write_text(
            "namespace kindling::exercises::ch02 {\nint f() {\n  // BEGIN SOLUTION ex1\n  return 1;\n"
            "  // END SOLUTION\n}\n}\n")
        (self.root / "solutions" / "ch02" / "notes.md").write_text("# notes\n")

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *args: str) -> tuple[int, str]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            rc = mx.main(["--root", str(self.root), *args])
        return rc, buf.getvalue()

    def test_generate_then_check_in_sync(self):
        self.assertEqual(self.run_tool()[0], 0)
        a = (self.root / "exercises" / "ch02" / "a.cpp").read_text()
        self.assertTrue(a.startswith("// Generated by scripts/make_exercises.py from solutions/ch02/a.cpp"))
        self.assertIn('throw kindling::NotImplemented("ch02.ex1 (one) -- run make grade CH=02");', a)
        self.assertTrue(mx.is_untouched(a))
        self.assertEqual((self.root / "exercises" / "ch02" / "notes.md").read_text(), "# notes\n")
        self.assertEqual(self.run_tool("--check")[0], 0)
        self.assertEqual(self.run_tool("--check", "--strict")[0], 0)

    def test_an_edited_file_is_never_overwritten(self):
        self.run_tool()
        a = self.root / "exercises" / "ch02" / "a.cpp"
        mine = a.read_text().replace("throw", "return 2; // throw")
        a.write_text(mine)
        (self.root / "solutions" / "ch02" / "a.cpp").write_text(
            (self.root / "solutions" / "ch02" / "a.cpp").read_text().replace("return 1;", "return 11;"))
        rc, out = self.run_tool()
        self.assertEqual(rc, 1)
        self.assertIn("refusing to overwrite", out)
        self.assertIn("exercises/ch02/a.cpp", out)
        self.assertEqual(a.read_text(), mine)  # the learner's work is intact
        rc, out = self.run_tool("--force")  # FORCE=1: a backup first, then the fresh stub
        self.assertEqual(rc, 0)
        backups = list(a.parent.glob("a.cpp.backup-*"))
        self.assertEqual(len(backups), 1)
        self.assertEqual(backups[0].read_text(), mine)
        self.assertTrue(mx.is_untouched(a.read_text()))

    def test_a_stale_stub_is_regenerated_but_an_edit_only_listed(self):
        self.run_tool()
        sol = self.root / "solutions" / "ch02" / "a.cpp"
        sol.write_text(sol.read_text().replace("int f()", "int f(int unused)"))
        rc, out = self.run_tool("--check")  # an untouched stub that is out of date: a real drift
        self.assertEqual(rc, 1)
        self.assertIn("differs: exercises/ch02/a.cpp", out)
        self.assertIn("never overwrites an edited file", out)
        self.assertEqual(self.run_tool()[0], 0)  # untouched: simply regenerated
        self.assertIn("int f(int unused)", (self.root / "exercises" / "ch02" / "a.cpp").read_text())
        ex = self.root / "exercises" / "ch02" / "a.cpp"
        ex.write_text(ex.read_text().replace("throw", "return 2; // throw"))
        rc, out = self.run_tool("--check")  # a learner at work: listed, not a failure (make test stays green)
        self.assertEqual(rc, 0, out)
        self.assertIn("edited by a learner", out)
        rc, out = self.run_tool("--check", "--strict")  # CI and handouts: exactly the stubs
        self.assertEqual(rc, 1)

    def test_check_detects_missing_and_stale(self):
        self.run_tool()
        ex = self.root / "exercises" / "ch02"
        (ex / "notes.md").unlink()
        (ex / "old.cpp").write_text(mx.banner("solutions/ch02/old.cpp", "ch02", "int g();\n") + "int g();\n")
        rc, out = self.run_tool("--check")
        self.assertEqual(rc, 1)
        self.assertIn("missing: exercises/ch02/notes.md", out)
        self.assertIn("stale (no solutions/ counterpart): exercises/ch02/old.cpp", out)
        self.run_tool()  # regenerating repairs everything and removes the stale generated file
        self.assertFalse((ex / "old.cpp").exists())
        self.assertEqual(self.run_tool("--check")[0], 0)

    def test_out_writes_pristine_stubs_elsewhere(self):
        self.run_tool()
        a = self.root / "exercises" / "ch02" / "a.cpp"
        a.write_text("my work\n")
        out = self.root / "build" / "stubs"
        self.assertEqual(self.run_tool("--out", str(out))[0], 0)
        self.assertTrue(mx.is_untouched((out / "ch02" / "a.cpp").read_text()))
        self.assertEqual(a.read_text(), "my work\n")

    def test_marker_error_exits_2(self):
        (self.root / "solutions" / "ch02" / "b.cpp").write_text("// BEGIN SOLUTION ex1\n")
        rc, out = self.run_tool()
        self.assertEqual(rc, 2)
        self.assertIn("solutions/ch02/b.cpp:1", out)

    def test_hidden_tests_outside_hidden_folder_fail_the_check(self):
        self.run_tool()
        (self.root / "tests" / "grading" / "ch02" / "t.cpp").write_text('TEST_CASE("x", "[ch02][ex1][pts=1][hidden]") {}')
        rc, out = self.run_tool("--check")
        self.assertEqual(rc, 1)
        self.assertIn("belong in tests/grading/hidden/ch02/", out)

    def test_exercise_code_outside_its_namespace_fails_the_check(self):
        (self.root / "solutions" / "ch02" / "b.cpp").write_text("int g() {\n// BEGIN SOLUTION ex1\n// END SOLUTION\n}\n")
        self.run_tool()
        rc, out = self.run_tool("--check")
        self.assertEqual(rc, 1)
        self.assertIn("solutions/ch02/b.cpp: exercise code belongs in namespace kindling::exercises::ch02", out)

    def test_no_solutions_folder_is_a_handout(self):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(mx.main(["--root", str(self.root / "tests"), "--check"]), 0)
        self.assertIn("no solutions/", buf.getvalue())


if __name__ == "__main__":
    unittest.main()
