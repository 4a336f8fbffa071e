#!/usr/bin/env python3
"""Build PDF collections for the format-reader benchmarks in BENCHMARKS.md.

Two kinds, both written by fpdf2 (a real PDF writer: core Helvetica font,
FlateDecode content streams, one page object per page):

  many  OUT N      N PDFs of consecutive text from ../shared/corpus, ~8 pages each,
                   every one distinct (a folder of 1,000 PDFs read in parallel).
  pages OUT P...   one PDF per page count P, the same text repeated, so peak
                   memory can be set against the number of pages.

Needs `pip install fpdf2` (the benchmark's own venv, not the build's). The corpus
is read from SHARED (default ../shared/corpus beside the repository).
"""

import os
import sys
from pathlib import Path

from fpdf import FPDF

SHARED = Path(os.environ.get("SHARED", Path(__file__).resolve().parents[2] / "shared" / "corpus"))
CHUNK = 20_000  # bytes of text per PDF in `many`: ~8 pages at 11 pt


def corpus_text():
    """Every corpus file in a fixed order, as latin-1-safe text (the core fonts' range)."""
    for path in sorted(SHARED.rglob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        yield path.stem, text.encode("latin-1", errors="replace").decode("latin-1")


def write_pdf(path, text, title):
    pdf = FPDF(format="A4")
    pdf.set_title(title)
    pdf.set_auto_page_break(True, margin=15)
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 5, text)
    pdf.output(str(path))
    return pdf.pages_count


def many(out, count):
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    pages = 0
    for stem, text in corpus_text():
        for start in range(0, len(text) - CHUNK // 2, CHUNK):
            if written == count:
                print(f"{written} PDFs, {pages} pages")
                return
            chunk = text[start : start + CHUNK]
            pages += write_pdf(out / f"{written:04}-{stem}.pdf", chunk, stem)
            written += 1
    print(f"{written} PDFs, {pages} pages (the corpus ran out)")


def by_pages(out, counts):
    out.mkdir(parents=True, exist_ok=True)
    text = next(t for s, t in corpus_text() if s == "emma")
    page_text = text[:2_400]  # about one page at 11 pt
    for count in counts:
        written = write_pdf(out / f"pages-{count:05}.pdf", "\n".join([page_text] * count), "pages")
        print(f"pages-{count:05}.pdf: {written} pages")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("many", "pages"):
        sys.exit(__doc__)
    out = Path(sys.argv[2])
    if sys.argv[1] == "many":
        many(out, int(sys.argv[3]))
    else:
        by_pages(out, [int(p) for p in sys.argv[3:]])


if __name__ == "__main__":
    main()
