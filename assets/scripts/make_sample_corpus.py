#!/usr/bin/env python3
"""Regenerate doppel's sample corpus (``sample-corpus/``) from the shared
public-domain corpus (``../shared/corpus``).

Usage (from the repository root)::

    python3 assets/scripts/make_sample_corpus.py [--corpus PATH] [--out PATH]

The output is deterministic: every random choice comes from a
``random.Random`` seeded with a fixed string, and the PNG is written with
uncompressed (stored) deflate blocks so that it does not depend on the zlib
build.  Standard library only.

Every generated file is an excerpt cut on line boundaries from a book listed in
the corpus ``manifest.json`` (whose sha256 is checked), or a transformation of
such an excerpt.  The script also writes ``README.md`` (provenance, licence,
case demonstrated) and ``expected.json`` (what doppel must find) into the output
folder, and finally prints a small shingle-similarity self-check.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import struct
import sys
import unicodedata

# The repository this script is in (its fixtures are copied from there).
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zlib

SCRIPT = "assets/scripts/make_sample_corpus.py"


# --------------------------------------------------------------------------
# Source access
# --------------------------------------------------------------------------

class Corpus:
    def __init__(self, root):
        self.root = root
        with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
            entries = json.load(f)
        self.by_path = {e["path"]: e for e in entries}

    def entry(self, path):
        if path not in self.by_path:
            sys.exit(f"error: {path} is not listed in {self.root}/manifest.json")
        return self.by_path[path]

    def text(self, path):
        """Return the text of a manifest file after checking its sha256."""
        e = self.entry(path)
        with open(os.path.join(self.root, path), "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).hexdigest()
        if digest != e["sha256"]:
            sys.exit(f"error: sha256 of {path} does not match the manifest "
                     f"({digest} != {e['sha256']}); expected.json would be wrong")
        return data.decode("utf-8")


def line_list(text):
    """Lines of an LF text, without the empty string after a final LF."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def cut(lines, start, end):
    """Lines start..end (1-based, inclusive), trailing blank lines dropped,
    returned with a final LF, together with the effective last line number."""
    block = lines[start - 1:end]
    while block and not block[-1].strip():
        block.pop()
        end -= 1
    return "\n".join(block) + "\n", end


def chapter_spans(lines, pattern):
    """[(heading, first_line, last_line)] for every line matching pattern
    (1-based; a chapter runs up to the line before the next heading)."""
    rx = re.compile(pattern)
    starts = [i for i, l in enumerate(lines) if rx.match(l)]
    spans = []
    for k, i in enumerate(starts):
        j = starts[k + 1] if k + 1 < len(starts) else len(lines)
        spans.append((lines[i].strip(), i + 1, j))
    return spans


def chapters(text, pattern, first, last):
    """Cut chapters first..last (1-based chapter numbers) of a book."""
    lines = line_list(text)
    spans = chapter_spans(lines, pattern)
    s = spans[first - 1][1]
    e = spans[last - 1][2]
    excerpt, e = cut(lines, s, e)
    return excerpt, s, e, spans[first - 1:last]


# --------------------------------------------------------------------------
# Transformations
# --------------------------------------------------------------------------

TOKEN = re.compile(r"\S+|\s+")
CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


def light_edits(text, rng, rate=0.02):
    """Insert, delete or replace ~rate of the words at random positions.
    Replacement and inserted words come from the text's own vocabulary."""
    toks = TOKEN.findall(text)
    words = [i for i, t in enumerate(toks) if not t.isspace()]
    vocab = sorted({w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)})
    n = max(1, round(rate * len(words)))
    chosen = sorted(rng.sample(words, n))
    ops = {"insert": 0, "delete": 0, "replace": 0}
    for i in chosen:
        op = rng.choice(("insert", "delete", "replace"))
        ops[op] += 1
        lead, core, trail = CORE.match(toks[i]).groups()
        if op == "replace":
            new = rng.choice(vocab)
            while new == core.lower():
                new = rng.choice(vocab)
            if core[:1].isupper():
                new = new.capitalize()
            toks[i] = lead + new + trail
        elif op == "insert":
            toks[i] = toks[i] + " " + rng.choice(vocab)
        else:  # delete the word and one adjacent run of plain spaces
            toks[i] = ""
            if i + 1 < len(toks) and toks[i + 1].isspace() and "\n" not in toks[i + 1]:
                toks[i + 1] = ""
            elif i > 0 and toks[i - 1].isspace() and "\n" not in toks[i - 1]:
                toks[i - 1] = ""
    return "".join(toks), ops, n, len(words)


# OCR confusions: (name, pattern in the word, replacement)
OCR_SUBS = [
    ("m->rn", "m", "rn"),
    ("rn->m", "rn", "m"),
    ("l->1", "l", "1"),
    ("1->l", "1", "l"),
    ("I->l", "I", "l"),
    ("e->c", "e", "c"),
    ("c->e", "c", "e"),
    ("O->0", "O", "0"),
    ("0->O", "0", "O"),
    ("h->li", "h", "li"),
]
# share of the word-level errors by kind
OCR_KINDS = (("confusion", 0.70), ("extra space", 0.12), ("dropped space", 0.18))
LIGATURES = (("fi", "\ufb01"), ("fl", "\ufb02"))  # LATIN SMALL LIGATURE FI / FL


def ocr_noise(text, rng, header, word_rate=0.05, ligature_rate=0.5,
              hyphen_rate=0.25, page_lines=40, first_page=1):
    """Simulate an OCR'd scan of a printed book: character confusions,
    dropped/extra spaces, fi/fl ligatures, words hyphenated across line ends,
    a running page header every `page_lines` lines, and CRLF line ends."""
    stats = {}

    def bump(k):
        stats[k] = stats.get(k, 0) + 1

    # 1. word-level confusions and spacing errors, then ligatures
    # An error kind is drawn (by OCR_KINDS weight) for ~word_rate of the
    # words and applied to the first word from there on where it fits.
    toks = TOKEN.findall(text)
    pending = None
    for i, t in enumerate(toks):
        if not t or t.isspace():
            continue
        if pending is None:
            if rng.random() >= word_rate:
                continue
            x = rng.random()
            for pending, w in OCR_KINDS:
                x -= w
                if x < 0:
                    break
        if pending == "extra space":
            if len(t) < 4:
                continue
            k = rng.randrange(1, len(t) - 1)
            toks[i] = t[:k] + " " + t[k:]
            bump(pending)
        elif pending == "dropped space":
            if not (i + 2 < len(toks) and toks[i + 1] == " "
                    and not toks[i + 2].isspace()):
                continue
            toks[i + 1] = ""
            bump(pending)
        else:
            subs = [s for s in OCR_SUBS if s[1] in t]
            if not subs:
                continue
            name, pat, rep = rng.choice(subs)
            k = rng.choice([m.start() for m in re.finditer(re.escape(pat), t)])
            toks[i] = t[:k] + rep + t[k + len(pat):]
            bump(name)
        pending = None
    for i, t in enumerate(toks):
        for pat, lig in LIGATURES:
            if pat in t and rng.random() < ligature_rate:
                toks[i] = t = t.replace(pat, lig)
                bump(pat + " ligature")
    lines = "".join(toks).split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    # 2. hyphenate the last word of a line across the line end ("digi-\ntized")
    for n in range(len(lines) - 1):
        cur, nxt = lines[n], lines[n + 1]
        if not cur.strip() or not nxt.strip() or rng.random() >= hyphen_rate:
            continue
        head, sep, last = cur.rpartition(" ")
        if not sep or not re.fullmatch(r"[A-Za-z]{6,}", last):
            continue
        k = rng.randrange(3, len(last) - 2)
        lines[n] = head + " " + last[:k] + "-"
        lines[n + 1] = last[k:] + " " + nxt
        bump("hyphenated")

    # 3. running page header every page_lines lines
    out = []
    page = first_page
    for n, line in enumerate(lines):
        if n % page_lines == 0:
            out.append(f"{header}  {page}")
            out.append("")
            page += 1
            bump("page header")
        out.append(line)
    # 4. CRLF
    return "\r\n".join(out) + "\r\n", stats



# A digital library's licence: our own generic wording, one fixed sequence
# of sentences drawn (seeded) from the lists below under section headings.
LICENCE_NAME = "Open Shelf Digital Library"
LICENCE_SUBJECTS = (
    "This file", "Any copy of this file", "The text of this file",
    "Every derived edition", "A reader who shares this file",
    "The volunteers who prepared this file", "The library",
)
LICENCE_PREDICATES = (
    "may be copied, printed and given away without charge",
    "is offered as is, with no warranty of any kind",
    "must keep this notice and the library's name intact",
    "may not be sold under the library's name",
    "is believed to be free of copyright in most countries",
    "should be checked against the laws of the reader's country",
    "is maintained by volunteers who give their time freely",
    "accepts corrections sent to the address in the catalogue",
)
LICENCE_CONDITIONS = (
    "as long as this licence travels with it",
    "unless the library has given written permission",
    "wherever the file is stored or displayed",
    "for as long as the library keeps its catalogue",
    "in every format the file is converted to",
    "whether or not a fee is charged for the medium",
)


def licence_text(part, size, rng):
    """`size` bytes (about) of licence sentences under numbered headings."""
    out, n = [], 0
    while sum(len(x) + 1 for x in out) < size:
        if n % 4 == 0:
            out.append(f"\nSection {n // 4 + 1}. {part} of the {LICENCE_NAME}\n")
        out.append(f"{rng.choice(LICENCE_SUBJECTS)} {rng.choice(LICENCE_PREDICATES)} "
                   f"{rng.choice(LICENCE_CONDITIONS)}.")
        n += 1
    return "\n".join(out).strip()


def etext(body, title, author, release):
    """`body` wrapped in the library's licence header and footer, as an
    e-text library publishes every file (only the title lines and the
    release number differ from one file to the next)."""
    # One seed for every file: the licence is the same text in each.
    rng = random.Random("doppel-sample:licence")
    header = licence_text("Terms of use", 1800, rng)
    footer = licence_text("Licence", 3600, rng)
    upper = LICENCE_NAME.upper()
    return (f"The {LICENCE_NAME}: {title}, by {author}\n\n{header}\n\n"
            f"Title: {title}\nAuthor: {author}\nRelease number: {release}\n"
            f"Language: English\n\n=== {upper} TEXT BEGINS: {title.upper()} ===\n\n"
            f"{body.rstrip()}\n\n=== {upper} TEXT ENDS: {title.upper()} ===\n\n"
            f"{footer}\n\nEnd of the licence of the {LICENCE_NAME}.\n")


# OCR confusions of a page scan: a pattern inside a word and what was read.
SCAN_CONFUSIONS = (("rn", "m"), ("m", "rn"), ("l", "1"), ("I", "l"),
                   ("e", "c"), ("c", "e"), ("h", "li"), ("cl", "d"))


def page_scan(text, title, author, rng, rate=0.03, lines_per_page=36, width=64,
              first_page=9):
    """A page scan's OCR output: ~rate of the words with one confusion,
    paragraphs re-wrapped at `width` with long words hyphenated across line
    ends, a scanning notice on the first page, and every later page opened
    by a form feed and a running head (the title on even pages, the chapter
    on odd ones) with the page number."""
    words = text.split(" ")
    for i, w in enumerate(words):
        opts = [(k.start(), a, b) for a, b in SCAN_CONFUSIONS for k in re.finditer(re.escape(a), w)]
        if opts and rng.random() < rate:
            k, a, b = rng.choice(opts)
            words[i] = w[:k] + b + w[k + len(a):]
    text = " ".join(words)
    lines, chapter = [], title.upper()
    for para in text.rstrip().split("\n\n"):
        flat = " ".join(para.split())
        if flat.upper().startswith("CHAPTER "):
            chapter = flat.upper()[:40]
            lines += [("", chapter), (flat.center(width).rstrip(), chapter), ("", chapter)]
            continue
        line = ""
        rest = flat.split(" ")[::-1]
        while rest:
            w = rest.pop()
            room = width - len(line) - (1 if line else 0)
            if len(w) <= room or not line:
                line = f"{line} {w}" if line else w
                continue
            if w.isalpha() and len(w) >= 7 and room >= 5 and rng.random() < 0.3:
                k = min(3 + rng.randrange(len(w) - 5), room - 2)
                lines.append((f"{line} {w[:k]}-", chapter))
                rest.append(w[k:])
            else:
                lines.append((line, chapter))
                rest.append(w)
            line = ""
        if line:
            lines.append((line, chapter))
        lines.append(("", chapter))
    notice = ("This volume was scanned by the Riverside Reading Room from a copy "
              "held in its lending collection. The scan is offered for private "
              "study; page images are available on request.")
    words, cur, wrapped = notice.split(), "", []
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            wrapped.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    wrapped.append(cur)
    pages = ["\n".join(wrapped) + "\n\n\n" + title.upper().center(width).rstrip()
             + "\n\n" + f"by {author}".center(width).rstrip() + "\n"]
    for k in range(0, len(lines), lines_per_page):
        page = lines[k:k + lines_per_page]
        number = first_page + k // lines_per_page
        head = title.upper() if number % 2 == 0 else page[0][1]
        if number % 2 == 0:
            top = f"{number:<6}{head:>{width - 6}}"
        else:
            top = f"{head:<{width - 6}}{number:>6}"
        pages.append("\f" + top + "\n\n" + "".join(l + "\n" for l, _ in page))
    return "".join(pages)


def affected_words(original, copy, drop_prefix=None):
    """Share of the original's whitespace-separated words that are not kept
    unchanged in the copy (difflib alignment); lines of the copy starting with
    drop_prefix (page headers) are ignored."""
    import difflib
    lines = copy.replace("\r\n", "\n").split("\n")
    if drop_prefix:
        lines = [l for l in lines if not l.startswith(drop_prefix)]
    a, c = original.split(), "\n".join(lines).split()
    sm = difflib.SequenceMatcher(None, a, c, autojunk=False)
    kept = sum(m.size for m in sm.get_matching_blocks())
    return len(a) - kept, len(a)


def png_scan(rng, width=120, height=80):
    """A small valid greyscale PNG that looks like a scanned page: light paper
    noise with dark 'text line' bands.  Stored deflate blocks (level 0) keep
    the bytes identical whatever zlib implementation is installed."""
    rows = []
    for y in range(height):
        in_text = 8 <= y < height - 8 and (y - 8) % 9 < 4
        row = bytearray([0])  # filter type None
        for x in range(width):
            if in_text and 6 <= x < width - 6 and rng.random() < 0.55:
                row.append(rng.randrange(10, 90))
            else:
                row.append(255 - rng.randrange(0, 24))
        rows.append(bytes(row))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 0))
            + chunk(b"IEND", b""))


def fake_pdf(rng, n=1536):
    """A truncated 'PDF' (header + random stream bytes, NULs included) that
    someone saved with a .txt name."""
    body = bytearray(rng.randrange(256) for _ in range(n))
    for k in (3, 64, 65, 500):  # make sure NUL bytes occur early
        body[k] = 0
    return (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
            b"1 0 obj\n<< /Length 1536 /Filter /FlateDecode >>\nstream\n"
            + bytes(body))


# --------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------

class Builder:
    def __init__(self, corpus):
        self.corpus = corpus
        self.files = []        # dicts: path, data, case, how, sources
        self.groups = []
        self.containment = []
        self.distinct = []
        self.skipped = {}
        self.notes = []

    def add(self, path, data, case, how, sources=()):
        if isinstance(data, str):
            data = data.encode("utf-8")
        srcs = []
        for src, where in sources:
            e = self.corpus.entry(src)
            srcs.append({"path": src, "id": e["id"], "title": e["title"],
                         "license": e["license"], "where": where})
        self.files.append({"path": path, "data": data, "case": case,
                           "how": how, "sources": srcs})
        return path


def build(corpus):
    b = Builder(corpus)

    # -- 1. exact copy ------------------------------------------------------
    src = "austen/persuasion.txt"
    txt, s, e, _ = chapters(corpus.text(src), r"^Chapter \d+$", 1, 1)
    where = f"Chapter 1, lines {s}-{e}"
    a = b.add("austen/persuasion-ch1.txt", txt, "exact copy (original)",
              "verbatim excerpt", [(src, where)])
    c = b.add("copies/persuasion-ch1 (copy).txt", txt, "exact copy",
              "byte-identical copy of austen/persuasion-ch1.txt "
              "(name has spaces and parentheses)", [(src, where)])
    b.groups.append([a, c])

    # -- 2. light edits -------------------------------------------------------
    src = "austen/emma.txt"
    txt, s, e, _ = chapters(corpus.text(src), r"^CHAPTER [IVXLC]+$", 1, 1)
    where = f"Volume I, Chapter I, lines {s}-{e}"
    a = b.add("austen/emma-ch1.txt", txt, "light edits (original)",
              "verbatim excerpt", [(src, where)])
    edited, ops, n, nw = light_edits(txt, random.Random("doppel-sample:emma-edits"))
    c = b.add("edited/emma-ch1-edited.txt", edited, "light edits",
              f"{n} edits on {nw} words ({100 * n / nw:.1f}%) at random positions: "
              f"{ops['insert']} insertions, {ops['delete']} deletions, "
              f"{ops['replace']} replacements (words drawn from the excerpt's "
              f"own vocabulary)", [(src, where)])
    b.groups.append([a, c])
    # The same chapter as a library holds it: the searchable PDF, ALTO and
    # EPUB that Tesseract and pandoc made of it (tests/data/formats, by
    # assets/scripts/make-format-fixtures.sh), copied as they are.
    made = os.path.join(REPO, "tests", "data", "formats")
    for name, case, how in [
        ("emma_scan.pdf", "a scan (searchable PDF)",
         "the chapter's pages rendered and read by Tesseract 5 into a PDF with a text layer"),
        ("emma_scan.xml", "a scan (ALTO XML)",
         "the same pages read by Tesseract 5 into ALTO (11 pages)"),
        ("emma.epub", "an e-book (EPUB 3)", "the chapter made into an EPUB by pandoc"),
    ]:
        with open(os.path.join(made, name), "rb") as f:
            b.groups[-1].append(b.add("formats/" + name, f.read(), case, how, [(src, where)]))

    # -- 3. OCR-noised copy ---------------------------------------------------
    src = "austen/prideprejudice.txt"
    txt, s, e, _ = chapters(corpus.text(src), r"^Chapter \d+$", 1, 3)
    where = f"Chapters 1-3, lines {s}-{e}"
    a = b.add("austen/pride-prejudice-ch1-3.txt", txt, "OCR copy (original)",
              "verbatim excerpt", [(src, where)])
    ocr, st = ocr_noise(txt, random.Random("doppel-sample:pp-ocr"),
                        "PRIDE AND PREJUDICE")
    bad, nw = affected_words(txt, ocr, "PRIDE AND PREJUDICE  ")
    detail = ", ".join(f"{k} {v}" for k, v in sorted(st.items()))
    c = b.add("scans/pride-prejudice-ch1-3-ocr.txt", ocr, "OCR-noised copy",
              f"simulated OCR, {bad} of {nw} words ({100 * bad / nw:.1f}%) "
              f"affected [{detail}]; running header 'PRIDE AND PREJUDICE  N' "
              f"every 40 lines; CRLF line ends", [(src, where)])
    b.groups.append([a, c])

    # Austen distractor: another novel's first chapter, also about a family
    # estate and inheritance
    src = "austen/sensesensibility.txt"
    txt, s, e, _ = chapters(corpus.text(src), r"^CHAPTER \d+$", 1, 1)
    ss = b.add("austen/sense-sensibility-ch1.txt", txt,
               "distractor / singleton (same author and topic)",
               "verbatim excerpt", [(src, f"Chapter 1, lines {s}-{e}")])
    b.distinct.append(["austen/persuasion-ch1.txt", ss])
    b.distinct.append(["austen/emma-ch1.txt", "austen/pride-prejudice-ch1-3.txt"])

    # -- 4. a text split into parts (containment) ---------------------------
    src = "kjv/20_Proverbs.txt"
    prov = corpus.text(src)
    whole, s, e, spans = chapters(prov, r"^Chapter \d+$", 1, 31)
    assert whole == prov, "Proverbs 1-31 should be the whole book file"
    w = b.add("bible/proverbs-kjv-ch01-31.txt", whole,
              "split parts (the whole)", "verbatim: the whole book",
              [(src, f"Chapters 1-31, lines {s}-{e} (whole file)")])
    p1, s1, e1, _ = chapters(prov, r"^Chapter \d+$", 1, 16)
    p2, s2, e2, _ = chapters(prov, r"^Chapter \d+$", 17, 31)
    assert p1 + "\n" + p2 == whole  # a blank line separates chapters
    a = b.add("bible/proverbs-kjv-ch01-16.txt", p1, "split parts (part)",
              "verbatim excerpt; wholly contained in proverbs-kjv-ch01-31.txt",
              [(src, f"Chapters 1-16, lines {s1}-{e1}")])
    c = b.add("bible/proverbs-kjv-ch17-31.txt", p2, "split parts (part)",
              "verbatim excerpt; wholly contained in proverbs-kjv-ch01-31.txt; "
              "disjoint from proverbs-kjv-ch01-16.txt (concatenated they give "
              "the whole)", [(src, f"Chapters 17-31, lines {s2}-{e2}")])
    b.containment += [[a, w], [c, w]]
    b.distinct.append([a, c])

    # US Constitution with and without its preamble (Roth's second example)
    src = "misc/us_constitution.txt"
    con = corpus.text(src)
    lines = line_list(con)
    assert lines[0].startswith("We the People") and lines[2] == "Article. I."
    full, e = cut(lines, 1, len(lines))
    assert full == con
    w = b.add("misc/us-constitution.txt", full,
              "near-duplicate + containment (the whole)",
              "verbatim: the whole file (preamble + Articles I-VII)",
              [(src, f"lines 1-{e} (whole file)")])
    nopre, e = cut(lines, 3, len(lines))
    a = b.add("misc/us-constitution-no-preamble.txt", nopre,
              "near-duplicate + containment (part)",
              "the same text with the one-paragraph preamble (line 1) removed",
              [(src, f"lines 3-{e}")])
    b.groups.append([w, a])
    b.containment.append([a, w])

    # -- 5. reordered chapters -----------------------------------------------
    src = "misc/carroll_alice.txt"
    txt, s, e, spans = chapters(corpus.text(src), r"^CHAPTER [IVX]+\.", 1, 3)
    lines = line_list(corpus.text(src))
    blocks = [cut(lines, cs, min(ce, e))[0].rstrip("\n") for _, cs, ce in spans]
    assert "\n\n".join(blocks) + "\n" == txt
    order = [2, 0, 1]
    reordered = "\n\n".join(blocks[k] for k in order) + "\n"
    a = b.add("misc/alice-ch1-3.txt", txt, "reordered chapters (original)",
              "verbatim excerpt", [(src, f"Chapters I-III, lines {s}-{e}")])
    c = b.add("misc/alice-ch1-3-reordered.txt", reordered, "reordered chapters",
              "the same three chapters in the order III, I, II (text unchanged)",
              [(src, f"Chapters I-III, lines {s}-{e}")])
    b.groups.append([a, c])

    # -- 6. different encodings ----------------------------------------------
    src = "moby/moby_dick.txt"
    txt, s, e, _ = chapters(corpus.text(src), r"^CHAPTER \d+\. ", 1, 1)
    where = f"Chapter 1 'Loomings', lines {s}-{e}"
    dashes = txt.count("\u2014")
    assert dashes > 0 and all(ord(ch) < 128 or ch == "\u2014" for ch in txt)
    a = b.add("moby/moby-dick-ch1.txt", txt, "encodings (original, UTF-8)",
              f"verbatim excerpt (UTF-8, LF; {dashes} em dashes U+2014)",
              [(src, where)])
    u16 = b"\xff\xfe" + txt.replace("\n", "\r\n").encode("utf-16-le")
    c1 = b.add("moby/other-encodings/moby-dick-ch1-utf16le.txt", u16,
               "different encoding",
               "the same text saved as UTF-16LE with BOM (FF FE) and CRLF "
               "line ends, as Windows Notepad's 'Unicode' does", [(src, where)])
    cp = txt.encode("cp1252")
    c2 = b.add("moby/other-encodings/moby-dick-ch1-windows1252.txt", cp,
               "different encoding",
               "the same text saved as windows-1252 (no BOM, LF); each em dash "
               "is the single byte 0x97, which is invalid UTF-8 and is a C1 "
               "control in strict ISO-8859-1, so the decoder must fall back to "
               "windows-1252", [(src, where)])
    b.groups.append([a, c1, c2])

    # -- 7. distractors -------------------------------------------------------
    k = b.add("bible/ruth-kjv.txt", corpus.text("kjv/08_Ruth.txt"),
              "distractor (same book, other translation)",
              "verbatim: the whole book (King James Version)",
              [("kjv/08_Ruth.txt", "whole file")])
    w = b.add("bible/ruth-web.txt", corpus.text("web/008_Ruth.txt"),
              "distractor (same book, other translation)",
              "verbatim: the whole book (World English Bible)",
              [("web/008_Ruth.txt", "whole file")])
    b.distinct.append([k, w])
    s1 = b.add("sotu/1790-washington.txt",
               corpus.text("sotu/1790_george_washington_n.txt"),
               "distractor (same president, other year)", "verbatim: whole address",
               [("sotu/1790_george_washington_n.txt", "whole file")])
    s2 = b.add("sotu/1791-washington.txt",
               corpus.text("sotu/1791_george_washington_n.txt"),
               "distractor (same president, other year)", "verbatim: whole address",
               [("sotu/1791_george_washington_n.txt", "whole file")])
    b.distinct.append([s1, s2])

    # -- 8. files to skip -----------------------------------------------------
    b.add("empty.txt", b"", "skipped: empty", "0 bytes")
    b.skipped["empty.txt"] = "empty"
    b.add("scan-page-017.png", png_scan(random.Random("doppel-sample:png")),
          "skipped: binary",
          "valid 120x80 greyscale PNG of random 'scan' pixels (seeded)")
    b.skipped["scan-page-017.png"] = "binary"
    b.add("broken.txt", fake_pdf(random.Random("doppel-sample:pdf")),
          "skipped: a damaged PDF (despite the .txt name)",
          "fake PDF header followed by 1,536 seeded random bytes incl. NULs")
    b.skipped["broken.txt"] = "damaged"

    # -- 9. nested folder and singletons -------------------------------------
    src = "misc/devils_dictionary.txt"
    lines = line_list(corpus.text(src))
    heads = [(i, l.split(",")[0]) for i, l in enumerate(lines)
             if re.match(r"^[A-Z][A-Z' -]+, [a-z]", l)]
    stop = next(k for k, (i, _) in enumerate(heads) if i >= 235)  # ~9 KB
    dd, e = cut(lines, 1, heads[stop][0])
    b.add("misc/reference/devils-dictionary-a.txt", dd,
          "singleton in a nested folder",
          f"verbatim excerpt: entries {heads[0][1]} to {heads[stop - 1][1]}",
          [(src, f"lines 1-{e}")])
    b.add("misc/gettysburg.txt", corpus.text("misc/gettysburg.txt"),
          "singleton (very short text)", "verbatim: whole file",
          [("misc/gettysburg.txt", "whole file")])

    # -- 10. e-texts wrapped in a library's licence ---------------------------
    # Three different works carry the same licence header and footer, so the
    # licence is boilerplate learned from the collection (it sits beside three
    # different bodies): each e-text pairs with its own work on the body, and
    # two e-texts that share only the licence never pair. Gettysburg is the
    # short work inside a licence three times its length.
    wrapped = (
        ("etexts/devils-dictionary-a-etext.txt", "misc/reference/devils-dictionary-a.txt",
         "The Devil's Dictionary, A", "Ambrose Bierce", 1101),
        ("etexts/sense-sensibility-ch1-etext.txt", "austen/sense-sensibility-ch1.txt",
         "Sense and Sensibility, Chapter 1", "Jane Austen", 1102),
        ("etexts/gettysburg-etext.txt", "misc/gettysburg.txt",
         "The Gettysburg Address", "Abraham Lincoln", 1103),
    )
    by_path = {f["path"]: f for f in b.files}
    etexts = []
    for path, original, title, author, release in wrapped:
        f = by_path[original]
        body = f["data"].decode("utf-8")
        text = etext(body, title, author, release)
        src = f["sources"][0]
        b.add(path, text, "licence-wrapped e-text",
              f"{original} between a licence header and footer of the "
              f"'{LICENCE_NAME}' ({len(text) - len(body)} bytes of licence, "
              f"the same in every e-text of this folder)",
              [(src["path"], src["where"])])
        group = next((g for g in b.groups if original in g), None)
        if group is None:
            b.groups.append([original, path])
        else:
            group.append(path)
        etexts.append(path)
    b.distinct.append([etexts[0], etexts[1]])
    b.distinct.append([etexts[1], etexts[2]])

    # -- 11. a page scan with running heads ----------------------------------
    src = "misc/carroll_alice.txt"
    alice = by_path["misc/alice-ch1-3.txt"]
    scan = page_scan(alice["data"].decode("utf-8"), "Alice's Adventures in Wonderland",
                     "Lewis Carroll", random.Random("doppel-sample:alice-scan"))
    s = b.add("scans/alice-ch1-3-scan.txt", scan, "page scan with running heads",
              "OCR output of a page scan: ~3% of the words with one OCR confusion "
              "(rn/m, l/1, e/c, h/li, cl/d), paragraphs re-wrapped at 64 columns with "
              "line-end hyphens, a scanning notice on the first page, and every later "
              "page opened by a form feed and a running head (the title on even "
              "pages, the chapter on odd ones) with its page number",
              [(src, alice["sources"][0]["where"])])
    next(g for g in b.groups if "misc/alice-ch1-3.txt" in g).append(s)
    return b


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def write_readme(b, out_rel):
    L = []
    L.append("# doppel sample corpus")
    L.append("")
    L.append("A small collection that shows every case a curator meets when looking "
             "for near-duplicate documents. **Generated, do not edit by hand:** run")
    L.append("")
    L.append(f"    python3 {SCRIPT}")
    L.append("")
    L.append("from the repository root (options `--corpus PATH`, default "
             "`../shared/corpus`, and `--out PATH`, default `sample-corpus`). "
             "The script is deterministic (fixed seeds, standard library only); it "
             "deletes and recreates this whole folder.")
    L.append("")
    L.append("`README.md` and `expected.json` are metadata, not documents: doppel "
             "excludes them from scanning (ignore rule). `expected.json` lists what "
             "the engine must find and is read by the engine tests:")
    L.append("")
    L.append("- `groups`: files that must end up in the same duplicate cluster "
             "(one source excerpt and its near-copies);")
    L.append("- `containment`: `[part, whole]` pairs, the part's text being wholly "
             "contained in the whole;")
    L.append("- `distinct`: pairs that must NOT be reported as duplicates "
             "(same topic, different text);")
    L.append("- `skipped`: files that must be skipped, with the reason.")
    L.append("")
    L.append("All excerpts are cut on line boundaries from the public-domain books "
             "in `../shared/corpus` (ids and licences from its `manifest.json`; its "
             "sha256 sums are checked). Line numbers are 1-based and inclusive. "
             "Derived files are public domain like their sources; the three skipped "
             "files contain no text.")
    L.append("")
    L.append("## Files")
    L.append("")
    L.append("| file | bytes | case | transformation | source (manifest id, lines) | licence |")
    L.append("|---|---:|---|---|---|---|")
    for f in sorted(b.files, key=lambda f: f["path"]):
        if f["sources"]:
            src = "; ".join(f"`{s['path']}` ({s['id']}, {s['where']})" for s in f["sources"])
            lic = "; ".join(s["license"] for s in f["sources"])
        else:
            src, lic = "generated by the script (no text)", "CC0"
        L.append(f"| `{f['path']}` | {len(f['data'])} | {f['case']} | {f['how']} "
                 f"| {src} | {lic} |")
    L.append("")
    L.append("## Expected results")
    L.append("")
    L.append("Duplicate groups:")
    L.append("")
    for g in b.groups:
        L.append("- " + ", ".join(f"`{p}`" for p in g))
    L.append("")
    L.append("Containment (part ⊂ whole). Each Proverbs part is about half of the "
             "whole, so it is contained in it without resembling it; the "
             "Constitution without its preamble is both contained and a "
             "near-duplicate (it is also in a group):")
    L.append("")
    for p, w in b.containment:
        L.append(f"- `{p}` ⊂ `{w}`")
    L.append("")
    L.append("Must not match:")
    L.append("")
    for x, y in b.distinct:
        L.append(f"- `{x}` vs `{y}`")
    L.append("")
    L.append("Skipped: " + ", ".join(f"`{p}` ({r})" for p, r in sorted(b.skipped.items()))
             + ". The UTF-16 file contains NUL bytes too but has a BOM, so it is "
             "text, not binary.")
    L.append("")
    related = {p for g in b.groups for p in g}
    related |= {p for pair in b.containment for p in pair} | set(b.skipped)
    single = sorted(f["path"] for f in b.files if f["path"] not in related)
    L.append("Singletons (match nothing): " + ", ".join(f"`{p}`" for p in single) + ".")
    L.append("")
    L.append("## Similarity check")
    L.append("")
    L.append("Computed by the script on word shingles (text decoded, NFKC, casefolded, "
             "split on non-alphanumerics): resemblance J = |A∩B|/|A∪B| for 3- and "
             "5-word shingles, and containment C5 = |A∩B|/|A| of the first file in "
             "the second. Note the KJV/WEB Ruth pair: the translations share "
             "phrases and names, a hard but real distractor.")
    L.append("")
    L.append("| kind | first | second | J3 | J5 | C5 |")
    L.append("|---|---|---|---:|---:|---:|")
    for kind, x, y, r3, r5, c5 in similarities(b):
        L.append(f"| {kind} | `{x}` | `{y}` | {r3:.2f} | {r5:.2f} | {c5:.2f} |")
    L.append("")
    return "\n".join(L)


def expected_json(b):
    doc = {
        "groups": [sorted(g) for g in b.groups],
        "containment": b.containment,
        "distinct": b.distinct,
        "skipped": dict(sorted(b.skipped.items())),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def prepare_out(out):
    """Delete a previous output folder (only if it looks like one)."""
    if os.path.exists(out):
        names = [n for n in os.listdir(out) if n != ".gitkeep"]
        if names and not os.path.exists(os.path.join(out, "expected.json")):
            sys.exit(f"error: {out} is not empty and has no expected.json; "
                     f"refusing to delete it")
        for n in os.listdir(out):
            p = os.path.join(out, n)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.remove(p)
    else:
        os.makedirs(out)


# --------------------------------------------------------------------------
# Self-check: word-shingle resemblance / containment of the expected pairs
# --------------------------------------------------------------------------

def decode(data):
    if data.startswith(b"\xff\xfe"):
        return data[2:].decode("utf-16-le")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252")


def shingles(data, k):
    t = unicodedata.normalize("NFKC", decode(data)).casefold()
    w = re.findall(r"[^\W_]+", t)
    return {tuple(w[i:i + k]) for i in range(len(w) - k + 1)}


def similarities(b):
    """[(kind, first, second, J3, J5, C5)] for the expected pairs."""
    data = {f["path"]: f["data"] for f in b.files}

    def sim(x, y, k):
        a, c = shingles(data[x], k), shingles(data[y], k)
        inter = len(a & c)
        return inter / len(a | c), inter / len(a)

    # Files in a structured format (PDF, ALTO, EPUB) need doppel's readers
    # to become text: they are left out of this check.
    pairs = [("group", g[0], y) for g in b.groups for y in g[1:]
             if not y.startswith("formats/")]
    pairs += [("containment", p, w) for p, w in b.containment]
    pairs += [("distinct", x, y) for x, y in b.distinct]
    rows = []
    for kind, x, y in pairs:
        r3, _ = sim(x, y, 3)
        r5, c5 = sim(x, y, 5)
        rows.append((kind, x, y, r3, r5, c5))
    return rows


def self_check(b):
    print("\nself-check (word shingles, NFKC+casefold): "
          "resemblance J and containment C(first in second)")
    for kind, x, y, r3, r5, c5 in similarities(b):
        print(f"  {kind:11} J3={r3:.2f} J5={r5:.2f} C5={c5:.2f}  {x}  ~  {y}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="../shared/corpus",
                    help="shared public-domain corpus (default: ../shared/corpus)")
    ap.add_argument("--out", default="sample-corpus",
                    help="output folder, recreated (default: sample-corpus)")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the similarity self-check printout")
    args = ap.parse_args()

    b = build(Corpus(args.corpus))
    paths = [f["path"] for f in b.files]
    assert len(set(paths)) == len(paths)
    prepare_out(args.out)
    total = 0
    for f in b.files:
        p = os.path.join(args.out, *f["path"].split("/"))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(f["data"])
        total += len(f["data"])
        print(f"{len(f['data']):8d}  {f['path']}")
    for name, text in (("README.md", write_readme(b, args.out)),
                       ("expected.json", expected_json(b)),
                       # Metadata, not documents: doppel's walker skips them.
                       (".doppelignore", "README.md\nexpected.json\n")):
        with open(os.path.join(args.out, name), "wb") as fh:
            fh.write(text.encode("utf-8"))
        total += len(text.encode("utf-8"))
        print(f"{len(text.encode('utf-8')):8d}  {name}")
    print(f"{total:8d}  total bytes in {len(b.files) + 3} files")
    if not args.no_check:
        self_check(b)


if __name__ == "__main__":
    main()
