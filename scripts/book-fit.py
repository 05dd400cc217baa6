#!/usr/bin/env python3
"""Measures the built book in headless Chromium: for every code/output block of every page, at each
width, how many monospace characters fit on one line, the longest line, and whether any line is cut
or wrapped.

    /usr/bin/python3 scripts/book-fit.py [BOOK_HTML_DIR] [--widths 1280,400] [--page NAME]

This is the measurement behind `kindling_max_code_columns` in book/conf.py (the build-time check
that fails on a code or output line longer than the page shows at the widest width this book is
laid out for). It needs `chromium` (not a build dependency: the build check itself is static).
Prints one summary line per page and width, then the blocks whose lines do not fit unwrapped.
"""
import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = r"""
<script>
window.addEventListener('load', () => {
  const out = [];
  const probe = document.createElement('span');
  document.querySelectorAll('pre').forEach((pre, i) => {
    const cs = getComputedStyle(pre);
    probe.style.font = cs.font; probe.style.whiteSpace = 'pre'; probe.style.position = 'absolute';
    probe.style.visibility = 'hidden'; probe.textContent = 'x'.repeat(200);
    document.body.appendChild(probe);
    const ch = probe.getBoundingClientRect().width / 200;
    probe.remove();
    const inner = pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const lines = pre.textContent.replace(/\n$/, '').split('\n');
    const longest = Math.max(...lines.map(l => l.length));
    const box = pre.getBoundingClientRect();
    out.push({i, fits: Math.floor(inner / ch + 0.01), longest,
              overflow: pre.scrollWidth > pre.clientWidth + 1,
              visible: box.width > 0, wrap: cs.whiteSpace,
              first: lines.find(l => l.length === longest).slice(0, 60)});
  });
  const r = document.createElement('pre'); r.id = 'kindling-fit-report';
  r.textContent = JSON.stringify(out); document.body.appendChild(r);
});
</script>
"""


def measure(page: Path, width: int, chromium: str):
    with tempfile.TemporaryDirectory() as tmp:
        # A copy next to the original (same folder: relative CSS links keep working).
        probe = page.with_name(f".fit-{page.name}")
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
                         encoding="utf-8")
        try:
            dom = subprocess.run(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--user-data-dir={tmp}", f"--window-size={width},1000", "--virtual-time-budget=4000",
                 "--dump-dom", probe.as_uri()],
                capture_output=True, text=True, timeout=120).stdout
        finally:
            probe.unlink()
    m = re.search(r'<pre id="kindling-fit-report">(.*?)</pre>', dom, re.S)
    if not m:
        raise RuntimeError(f"no report from {page} at {width} px")
    return json.loads(html.unescape(m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("html", nargs="?", default="build/book/html")
    ap.add_argument("--widths", default="1280,400")
    ap.add_argument("--page", action="append", default=[])
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("book-fit: needs chromium (apt-get install chromium)")
    root = Path(args.html).resolve()
    pages = sorted(p for p in root.rglob("*.html")
                   if not p.name.startswith((".", "genindex", "search")) and "_" not in p.parts[len(root.parts)][:1])
    if args.page:
        pages = [p for p in pages if any(name in str(p) for name in args.page)]
    bad = 0
    for page in pages:
        for width in (int(w) for w in args.widths.split(",")):
            blocks = [b for b in measure(page, width, chromium) if b["visible"]]
            if not blocks:
                continue
            too_long = [b for b in blocks if b["longest"] > b["fits"]]
            cut = [b for b in too_long if b["overflow"]]
            print(f"{page.relative_to(root)} @ {width}px: {len(blocks)} blocks, {min(b['fits'] for b in blocks)}"
                  f" chars fit, longest line {max(b['longest'] for b in blocks)}; {len(too_long)} wrap, "
                  f"{len(cut)} cut")
            for b in cut:
                print(f"    CUT  block {b['i']}: {b['longest']} > {b['fits']}: {b['first']!r}")
            bad += len(cut)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
