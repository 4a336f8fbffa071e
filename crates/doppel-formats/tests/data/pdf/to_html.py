"""Write chapters FIRST..LAST of a Gutenberg-style text as an HTML page
(paragraphs, chapter headings) for chromium to print.
Usage: html.py TEXT FIRST LAST > out.html
"""
import html, sys

text_path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(text_path, encoding="utf-8").read().split("\n")
out, cur, chapter = [], [], 0
for line in lines:
    s = line.strip()
    if s.startswith("Chapter ") or s.startswith("CHAPTER "):
        chapter += 1
        if chapter > last:
            break
        if chapter >= first:
            out.append(f"<h2>{html.escape(s)}</h2>")
        continue
    if chapter < first:
        continue
    if s == "":
        if cur:
            out.append("<p>" + html.escape(" ".join(cur)) + "</p>")
            cur = []
    else:
        cur.append(s)
if cur:
    out.append("<p>" + html.escape(" ".join(cur)) + "</p>")
print("""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Persuasion</title>
<style>
@page { size: 5.5in 8.5in; margin: 0.7in 0.6in; }
body { font-family: "DejaVu Serif", serif; font-size: 11pt; line-height: 1.35;
       font-variant-ligatures: common-ligatures; text-align: justify; hyphens: manual; }
h2 { text-align: center; font-weight: normal; font-size: 13pt; }
p { margin: 0; text-indent: 1.5em; }
</style></head><body>""")
print("\n".join(out))
print("</body></html>")
