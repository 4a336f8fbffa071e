#!/bin/sh
# Regenerates the OCR fixtures of doppel-formats' XML readers: two small
# page images of Pride and Prejudice's first chapter (public domain),
# with a running head, a page number and line-end hyphenations, rendered
# by Pillow and read by Tesseract into ALTO, hOCR and plain text.
#
#   sh make-ocr.sh        (from this folder; needs /usr/bin/python3 with
#                      Pillow, tesseract with its English data, pandoc)
#
# Tesseract is given a list of the two images, so each output holds both
# pages (one ALTO Page, one hOCR ocr_page each).
set -eu
cd "$(dirname "$0")"

/usr/bin/python3 - <<'PY'
from PIL import Image, ImageDraw, ImageFont

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
body = ImageFont.truetype(SERIF, 26)
small = ImageFont.truetype(SERIF, 20)

pages = [
    ("PRIDE AND PREJUDICE", "41", [
        ["It is a truth universally acknowledged, that a",
         "single man in possession of a good fortune, must",
         "be in want of a wife."],
        ["However little known the feelings or views of",
         "such a man may be on his first entering a neigh-",
         "bourhood, this truth is so well fixed in the minds",
         "of the surrounding families, that he is considered",
         "the rightful property of some one or other of their",
         "daughters."],
    ]),
    ("CHAPTER I", "42", [
        ["\u201cMy dear Mr. Bennet,\u201d said his lady to him one",
         "day, \u201chave you heard that Netherfield Park is let",
         "at last?\u201d Mr. Bennet replied that he had not."],
        ["\u201cBut it is,\u201d returned she; \u201cfor Mrs. Long has just",
         "been here, and she told me all about it.\u201d Mr. Ben-",
         "net made no answer."],
    ]),
]

for number, (head, folio, paragraphs) in enumerate(pages, start=1):
    image = Image.new("L", (900, 620), 255)
    draw = ImageDraw.Draw(image)
    draw.text((450, 40), head, font=small, fill=0, anchor="mt")
    y = 100
    for paragraph in paragraphs:
        for line in paragraph:
            draw.text((70, y), line, font=body, fill=0)
            y += 38
        y += 18
    draw.text((450, 570), folio, font=small, fill=0, anchor="mt")
    image.save(f"page{number}.png", optimize=True)
PY

printf 'page1.png\npage2.png\n' > pages.txt
tesseract pages.txt austen -l eng alto hocr txt
rm pages.txt
mv austen.xml austen.alto.xml

# TEI from pandoc, of a short Markdown text.
pandoc -f markdown -t tei -s -o austen.tei.xml <<'MD'
---
title: Pride and Prejudice
author: Jane Austen
---

# Chapter 1

It is a truth universally acknowledged, that a single man in possession
of a good fortune, must be in want of a wife.

However little known the feelings or views of such a man may be on his
first entering a neighbourhood, this truth is so well fixed in the minds
of the surrounding families, that he is considered the rightful property
of some one or other of their daughters.

> "My dear Mr. Bennet," said his lady to him one day, "have you heard that
> Netherfield Park is let at last?"

- Mr. Bennet replied that he had not.
- Mr. Bennet made no answer.
MD
