"""Render the start of Persuasion, chapter 1, as book pages (PNG, 200 dpi).

Each page has a running head and a page number, is rotated a little and
blurred, then made bilevel as a scanner would: what Tesseract then reads.
Usage: render.py TEXT OUTDIR PAGES
"""
import sys, textwrap
from PIL import Image, ImageDraw, ImageFilter, ImageFont

text_path, out, pages = sys.argv[1], sys.argv[2], int(sys.argv[3])
DPI = 200
W, H = int(5.5 * DPI), int(8.5 * DPI)
body = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf", 32)
head = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSerif-Italic.ttf", 28)

lines = open(text_path, encoding="utf-8").read().split("\n")
start = lines.index("Chapter 1")
paras, cur = [], []
for line in lines[start + 1:]:
    if line.strip() == "":
        if cur:
            paras.append(" ".join(cur))
            cur = []
    else:
        cur.append(line.strip())

margin, top, leading = 110, 190, 44
width_chars = 54
rows = []
for p in paras:
    rows.extend(textwrap.wrap(p, width_chars))
    rows.append("")
per_page = (H - top - 150) // leading

for n in range(pages):
    img = Image.new("L", (W, H), 255)
    d = ImageDraw.Draw(img)
    d.text((W // 2, 100), "PERSUASION", font=head, fill=0, anchor="mm")
    y = top
    if n == 0:
        d.text((W // 2, y), "CHAPTER I", font=body, fill=0, anchor="mt")
        y += 2 * leading
    chunk = rows[:(H - 150 - y) // leading]
    del rows[:len(chunk)]
    for r in chunk:
        d.text((margin, y), r, font=body, fill=0)
        y += leading
    d.text((W // 2, H - 90), str(n + 1), font=body, fill=0, anchor="mm")
    img = img.rotate(0.4 * (-1) ** n, resample=Image.BICUBIC, fillcolor=255)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    img = img.point(lambda v: 255 if v > 150 else 0).convert("1")
    img.save(f"{out}/page{n + 1}.png", dpi=(DPI, DPI))
