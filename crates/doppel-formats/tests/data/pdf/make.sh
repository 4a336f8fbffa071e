#!/bin/sh
# Regenerates the PDF fixtures from Persuasion (tests/data/corpus/austen).
# Made with: Pillow 9.4.0 (Debian python3-pil), tesseract 5.3.0 (eng),
# poppler-utils 22.12.0 (pdfunite, pdftotext), Chromium 156 headless
# (Skia/PDF m156), qpdf 11.3.0, on Debian 12. Needs /usr/bin/python3 with
# PIL and the fonts-liberation and fonts-dejavu fonts.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
text="$root/tests/data/corpus/austen/persuasion.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"

# (a) Searchable PDF as a scanning workflow makes it: three rendered,
# slightly rotated, bilevel pages at 200 dpi (running head, page number),
# each OCR'd by Tesseract (image + invisible text, render mode 3), joined.
/usr/bin/python3 render.py "$text" "$work" 3
for n in 1 2 3; do
    tesseract "$work/page$n.png" "$work/p$n" -l eng pdf 2>/dev/null
done
pdfunite "$work/p1.pdf" "$work/p2.pdf" "$work/p3.pdf" tesseract.pdf

# (b) Born-digital: Chromium prints chapter 1 as HTML in DejaVu Serif,
# whose fi/fl/ff ligature glyphs Skia maps to U+FB00..FB02 in ToUnicode.
/usr/bin/python3 to_html.py "$text" 1 1 > "$work/ch1.html"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    --print-to-pdf="$work/born.pdf" "file://$work/ch1.html" 2>/dev/null
cp "$work/born.pdf" born-digital.pdf

# (c) Image only: the first scanned page, no text layer.
/usr/bin/python3 -c "from PIL import Image; import sys; Image.open(sys.argv[1]).save(sys.argv[2], resolution=200)" \
    "$work/page1.png" image-only.pdf

# (d) Encrypted: AES-256 with a user password; and with an owner password
# only (an empty user password: opens for reading, printing restricted).
qpdf --encrypt secret owner 256 -- born-digital.pdf encrypted.pdf
qpdf --encrypt "" owner 256 --print=none -- born-digital.pdf encrypted-empty-user.pdf

# (e) Damaged: the born-digital PDF cut after 40 % of its bytes (no xref,
# no trailer, the last pages' objects gone).
size=$(wc -c < born-digital.pdf)
head -c $((size * 40 / 100)) born-digital.pdf > truncated.pdf

# The reference: what poppler's pdftotext reads (tests compare words).
pdftotext -enc UTF-8 tesseract.pdf tesseract.pdftotext.txt
pdftotext -enc UTF-8 born-digital.pdf born-digital.pdftotext.txt
