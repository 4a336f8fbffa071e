#!/usr/bin/env python3
"""Typeset a chapter's e-text as the pages of a printed book and scan them.

Usage::

    render_pages.py --text CHAPTER.txt --out DIR --regular FONT.ttf --italic FONT.ttf
                    [--dpi 300] [--lines 30] [--seed emma] [--markdown OUT.md]

Writes ``DIR/00000001.tif`` ... (one bitonal CCITT G4 TIFF per page, the
resolution recorded in the file, as a bitonal book scanner delivers them) and
``DIR/pages.tsv`` (physical number, printed page label, image name) and, with
``--markdown``, the chapter as pandoc markdown with TEI page breaks.

How the page is made, like a printed book rather than a text dump:

- the chapter heading centred on a sunk chapter-opening page, paragraphs
  indented and justified, ``_italic_`` words set in the italic face, straight
  quotes set as curly ones, long words hyphenated at line ends (pyphen's
  en_US patterns, the LibreOffice hyphenation dictionary) and compounds broken
  at their own hyphen;
- a running head: verso (even) pages "EMMA" with the folio at the left, recto
  (odd) pages "VOLUME I" with the folio at the right; the chapter's first
  page has no head and its folio at the foot;
- then the scan: a rotation below one degree, a slight blur, grain and a few
  specks, thresholded to black and white.  Every random choice comes from a
  ``random.Random`` seeded with ``--seed`` and the page number, so the images
  are the same on every run with the same Pillow, FreeType and fonts.

Needs Pillow (Debian ``python3-pil``, with libtiff) and pyphen
(``python3-pyphen``).
"""

import argparse
import os
import random
import re
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont
import pyphen

# Page geometry in points (1/72 in): a small octavo page.
PAGE_W, PAGE_H = 5.5 * 72, 8.5 * 72
MARGIN_X = 0.8 * 72
TOP = 1.0 * 72  # first text line's top
HEAD_Y = 0.6 * 72  # running head's top
FOOT_Y = PAGE_H - 0.7 * 72  # folio on the chapter's first page
SIZE = 10.5  # body type
LEADING = 13.5
HEAD_SIZE = 8.5
INDENT = 1.5  # paragraph indent, in ems
SINK = 7  # lines left blank above the chapter heading on its opening page
GRAIN = 50  # scanner grain, grey levels peak to peak
THRESHOLD = 140  # bitonal cut: darker is ink

HEADS = {0: "EMMA", 1: "VOLUME I"}  # by page parity: verso, recto


def curly(text):
    """Set straight quotes as a printer would (opening after a space, a dash
    or a line start, closing or apostrophe elsewhere) and ``--`` as an em
    dash."""
    text = text.replace("--", "\u2014")
    text = re.sub(r'(^|[\s(\-—])"', "\\1\u201c", text)
    text = text.replace('"', "\u201d")
    text = re.sub(r"(^|[\s(\-—])'", "\\1\u2018", text)
    return text.replace("'", "\u2019")


def paragraphs(text):
    """The heading (first paragraph) and the body paragraphs, each a list of
    (word, italic) pairs; ``_..._`` marks italics as in Gutenberg e-texts."""
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip())]
    out = []
    for p in paras:
        words, italic = [], False
        for w in curly(p).split(" "):
            start = italic or w.lstrip("\u201c\u2018(").startswith("_")
            closes = w.rstrip(".,;:!?\u201d\u2019)").endswith("_")
            words.append((w.replace("_", ""), start, len(words), True))
            italic = start and not closes
        out.append(words)
    return out[0], out[1:]


class Setter:
    """Breaks paragraphs into justified lines of at most ``measure`` pixels."""

    def __init__(self, regular, italic, px_per_pt):
        self.fonts = {
            False: ImageFont.truetype(regular, round(SIZE * px_per_pt)),
            True: ImageFont.truetype(italic, round(SIZE * px_per_pt)),
        }
        self.space = self.fonts[False].getlength(" ")
        self.measure = (PAGE_W - 2 * MARGIN_X) * px_per_pt
        self.indent = INDENT * SIZE * px_per_pt
        self.hyph = pyphen.Pyphen(lang="en_US", left=2, right=3)

    def width(self, piece):
        return self.fonts[piece[1]].getlength(piece[0])

    def with_text(self, piece, text, starts):
        return (text, piece[1], piece[2], starts)

    def splits(self, word):
        """Ways to break ``word`` at a line end, longest first part first:
        at its own hyphens, else at pyphen's points (letters only)."""
        if "-" in word.strip("-—"):
            parts = word.split("-")
            return [("-".join(parts[:i]) + "-", "-".join(parts[i:]))
                    for i in range(len(parts) - 1, 0, -1)]
        m = re.fullmatch(r"([^A-Za-z]*)([A-Za-z]{6,})([^A-Za-z]*)", word)
        if not m:
            return []
        lead, core, tail = m.groups()
        return [(lead + a + "-", b + tail) for a, b in self.hyph.iterate(core)]

    def lines(self, words, first_indent):
        """Yield (pieces, indent, justify) per line; a piece is (text, italic,
        index of its word in the paragraph, whether it starts the word)."""
        line, used, indent = [], first_indent, first_indent
        queue = list(words)
        while queue:
            w = queue.pop(0)
            need = self.width(w) + (self.space if line else 0)
            if used + need <= self.measure:
                line.append(w)
                used += need
                continue
            for a, b in self.splits(w[0]):
                head = self.with_text(w, a, w[3])
                if used + self.width(head) + (self.space if line else 0) <= self.measure:
                    line.append(head)
                    queue.insert(0, self.with_text(w, b, False))
                    break
            else:
                queue.insert(0, w)
            yield line, indent, True
            line, used, indent = [], 0, 0
        if line:
            yield line, indent, False


def typeset(text, setter):
    """The chapter as pages: each page a list of lines, a line being
    ("heading", text) or ("body", pieces, indent, justify)."""
    heading, body = paragraphs(text)
    heading = " ".join(w[0] for w in heading)
    pages = [[("blank",)] * SINK + [("heading", heading), ("blank",), ("blank",)]]
    for i, para in enumerate(body):
        for pieces, indent, justify in setter.lines(para, 0 if i == 0 else setter.indent):
            if len(pages[-1]) >= ARGS.lines:
                pages.append([])
            pages[-1].append(("body", pieces, indent, justify, i))
    return pages


def draw_page(n, lines, setter, px):
    """Render page ``n`` (1-based) at ``px`` pixels per point, greyscale."""
    w, h = round(PAGE_W * px), round(PAGE_H * px)
    img = Image.new("L", (w, h), 255)
    d = ImageDraw.Draw(img)
    x0 = MARGIN_X * px
    head_font = ImageFont.truetype(ARGS.regular, round(HEAD_SIZE * px))
    if n == 1:
        label = str(n)
        d.text((w / 2, FOOT_Y * px), label, font=head_font, fill=0, anchor="ma")
    else:
        title = " ".join(HEADS[n % 2])  # letter-spaced capitals
        d.text((w / 2, HEAD_Y * px), title, font=head_font, fill=0, anchor="ma")
        if n % 2 == 0:
            d.text((x0, HEAD_Y * px), str(n), font=head_font, fill=0, anchor="la")
        else:
            d.text((w - x0, HEAD_Y * px), str(n), font=head_font, fill=0, anchor="ra")
    for i, line in enumerate(lines):
        y = (TOP + i * LEADING) * px
        if line[0] == "heading":
            f = ImageFont.truetype(ARGS.regular, round(SIZE * 1.3 * px))
            d.text((w / 2, y), line[1], font=f, fill=0, anchor="ma")
        elif line[0] == "body":
            _, pieces, indent, justify, _ = line
            natural = sum(setter.width(p) for p in pieces)
            gaps = len(pieces) - 1
            slack = setter.measure - indent - natural
            space = slack / gaps if justify and gaps else setter.space
            x = x0 + indent
            for text, italic, _, _ in pieces:
                d.text((x, y), text, font=setter.fonts[italic], fill=0, anchor="la")
                x += setter.fonts[italic].getlength(text) + space
    return img


def scan(img, rng, dpi):
    """A flatbed's page: slight skew, optics blur, grain, dust, bitonal.
    Blur and specks are sized in pixels at 300 dpi and scaled to ``dpi``."""
    scale = dpi / 300
    angle = rng.uniform(-0.8, 0.8)
    img = img.rotate(angle, resample=Image.BICUBIC, fillcolor=255)
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.0) * scale))
    grain = Image.frombytes("L", img.size, rng.randbytes(img.size[0] * img.size[1]))
    grain = grain.point(lambda v: v * GRAIN // 255)
    img = ImageChops.subtract(img, grain, offset=GRAIN // 2)  # +-GRAIN/2 around the ink
    d = ImageDraw.Draw(img)
    for _ in range(rng.randrange(40, 120)):
        x, y = rng.randrange(img.size[0]), rng.randrange(img.size[1])
        r = max(1, round(rng.choice([1, 1, 1, 2, 2, 3]) * scale))
        d.ellipse((x, y, x + r, y + r), fill=0)
    return img.point(lambda v: 255 if v > THRESHOLD else 0).convert("1", dither=Image.NONE), angle


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--text", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--regular", required=True)
    ap.add_argument("--italic", required=True)
    ap.add_argument("--dpi", type=int, default=300)
    ap.add_argument("--lines", type=int, default=30)
    ap.add_argument("--seed", default="emma")
    ap.add_argument("--markdown", help="also write the chapter as pandoc markdown here")
    ARGS = ap.parse_args()
    with open(ARGS.text, encoding="utf-8") as f:
        text = f.read()
    px = ARGS.dpi / 72
    setter = Setter(ARGS.regular, ARGS.italic, px)
    pages = typeset(text, setter)
    os.makedirs(ARGS.out, exist_ok=True)
    rows = []
    for n, lines in enumerate(pages, 1):
        img, angle = scan(draw_page(n, lines, setter, px),
                          random.Random(f"{ARGS.seed}-{n}"), ARGS.dpi)
        name = f"{n:08d}.tif"
        img.save(os.path.join(ARGS.out, name), compression="group4",
                 dpi=(ARGS.dpi, ARGS.dpi))
        rows.append(f"{n}\t{n}\t{name}")
        print(f"page {n}: {sum(l[0] == 'body' for l in lines)} lines, "
              f"skew {angle:+.2f} deg", file=sys.stderr)
    with open(os.path.join(ARGS.out, "pages.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    if ARGS.markdown:
        write_markdown(text, pages, ARGS.markdown)


def write_markdown(text, pages, path):
    """The chapter as pandoc markdown: the heading as ``#``, one paragraph a
    line, and a raw TEI page break (``<pb n facs>``, dropped by the other
    writers) before the heading and before the first word that starts on
    each later page, so the TEI edition records the pagination of the scan."""
    breaks = {}  # (paragraph, word) -> page number
    for n, lines in enumerate(pages[1:], 2):
        for line in lines:
            if line[0] != "body":
                continue
            piece = next((p for p in line[1] if p[3]), None)
            if piece:
                breaks[(line[4], piece[2])] = n
                break
    paras = [p.split() for p in re.split(r"\n\s*\n", text.strip())]
    first = '<pb n="1" facs="00000001.tif"/>'
    out = ["```{=tei}\n" + first + "\n```", "# " + " ".join(paras[0])]
    for i, words in enumerate(paras[1:]):
        for j in range(len(words)):
            n = breaks.get((i, j))
            if n:
                words[j] = f'`<pb n="{n}" facs="{n:08d}.tif"/>`{{=tei}}' + words[j]
        out.append(" ".join(words))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(out) + "\n")


if __name__ == "__main__":
    main()
