#!/bin/sh
# Regenerates the HTML, EPUB and page-zip fixtures of doppel-formats'
# tests/html_epub.rs and tests/page_zip.rs from the repository's corpus.
# Made with pandoc 2.17.1.1 and Python 3.11.7 (zipfile, zlib); run from
# anywhere: sh crates/doppel-formats/tests/data/make-html-epub.sh
# webpage.html is written by hand (a news page's furniture around an
# article) and not regenerated here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../../tests/data/corpus"
cd "$here"

# The source: the opening paragraphs of Persuasion's first three
# chapters, as markdown (a title block, a heading per chapter).
python3 - "$corpus/austen/persuasion.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
chapters = re.split(r"\n(Chapter \d+)\n", text)
out = ["---", "title: Persuasion", "author: Jane Austen", "---", ""]
for i in range(1, 7, 2):
    name, body = chapters[i], chapters[i + 1]
    paras = [" ".join(p.split()) for p in body.strip().split("\n\n")]
    # Plain prose only: no indented (quoted) lines, which markdown would
    # read as code.
    paras = [p for p in paras if p and not p.startswith('"')][:3]
    out += ["# " + name, ""] + [p + "\n" for p in paras]
open("persuasion.md", "w", encoding="utf-8").write("\n".join(out))
PY

# A cover image for the EPUB with a cover page: a 2x2 grey PNG.
python3 - <<'PY'
import struct, zlib
def chunk(kind, data):
    c = kind + data
    return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c))
raw = b"".join(b"\x00" + b"\x80\x80\x80" * 2 for _ in range(2))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open("/tmp/doppel-cover.png", "wb").write(png)
PY

pandoc -f markdown -t html -s persuasion.md -o persuasion.html
pandoc -f markdown persuasion.md -o persuasion-epub3.epub
pandoc -f markdown -t epub2 persuasion.md -o persuasion-epub2.epub
pandoc -f markdown persuasion.md --epub-cover-image=/tmp/doppel-cover.png -o persuasion-cover.epub
rm /tmp/doppel-cover.png

# Zips, with Python's zipfile.
python3 - <<'PY'
import zipfile, io

src = open("persuasion.md", encoding="utf-8").read().split("---", 2)[2]
words = src.replace("#", "").split()
pages = [" ".join(words[i * 60:(i + 1) * 60]) for i in range(10)]

def z(name, entries, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(name, "w", method) as f:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, (2024, 1, 1, 0, 0, 0))
            info.compress_type = method
            f.writestr(info, data)

def lines(text):
    # A page's text as OCR gives it: lines of about eight words.
    w = text.split()
    return "\n".join(" ".join(w[i:i + 8]) for i in range(0, len(w), 8)) + "\n"

# HathiTrust-like: pages 1-10 without 7, zero-padded names stored out of
# order; page 2 with a UTF-8 BOM, page 3 in windows-1252; file managers'
# litter, a folder entry and a zip inside the zip.
inner = io.BytesIO()
with zipfile.ZipFile(inner, "w") as f:
    f.writestr("1.txt", "not followed")
entries = [("vol/", b"")]
for n in [10, 2, 1, 3, 4, 5, 6, 8, 9]:
    data = lines(pages[n - 1]).encode("utf-8")
    if n == 2:
        data = b"\xef\xbb\xbf" + data
    if n == 3:
        data = lines(pages[2] + " Caf\u00e9 na\u00efve \u201cquoted\u201d").encode("cp1252")
    entries.append((f"vol/{n:08d}.txt", data))
entries += [("vol/.DS_Store", b"\x00\x00\x00\x01Bud1"), ("vol/Thumbs.db", b"\xd0\xcf\x11\xe0"),
            ("__MACOSX/vol/._00000001.txt", b"\x00\x05\x16\x07"), ("vol/extra.zip", inner.getvalue())]
z("pages-gap.zip", entries)

# Natural order: 1.txt .. 12.txt, unpadded.
z("pages-natural.zip", [(f"{n}.txt", f"page {n} text\n") for n in [12, 1, 10, 2, 11, 3, 4, 5, 6, 7, 8, 9]])

# METS gives the order and labels: front matter i, ii, then 1, 2; the
# file names sort otherwise.
names = ["p-a.txt", "p-b.txt", "p-c.txt", "p-d.txt"]
order = [("p-c.txt", "i"), ("p-a.txt", "ii"), ("p-d.txt", "1"), ("p-b.txt", "2")]
files = "".join(f'<mets:file ID="f{i}" MIMETYPE="text/plain"><mets:FLocat LOCTYPE="URL" xlink:href="{n}"/></mets:file>'
                for i, n in enumerate(names))
divs = "".join(f'<mets:div TYPE="page" ORDER="{k + 1}" ORDERLABEL="{label}"><mets:fptr FILEID="f{names.index(n)}"/></mets:div>'
               for k, (n, label) in enumerate(order))
mets = f'''<?xml version="1.0" encoding="UTF-8"?>
<mets:mets xmlns:mets="http://www.loc.gov/METS/" xmlns:xlink="http://www.w3.org/1999/xlink">
<mets:fileSec><mets:fileGrp USE="ocr">{files}</mets:fileGrp></mets:fileSec>
<mets:structMap TYPE="physical"><mets:div TYPE="volume">{divs}</mets:div></mets:structMap>
</mets:mets>
'''
z("pages-mets.zip", [("mets.xml", mets)] + [(n, f"text of {n}\n") for n in names])

# Mixed formats: text pages and an ALTO page.
alto = '''<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#"><Layout><Page ID="p3"><PrintSpace>
<TextBlock><TextLine><String CONTENT="Three"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>
'''
z("pages-mixed.zip", [("1.txt", "One\n"), ("2.txt", "Two\n"), ("3.xml", alto)])

# Hostile names: never written anywhere, read like any other page.
z("pages-evil-names.zip", [("../1.txt", "first\n"), ("/etc/2.txt", "second\n"), ("C:\\3.txt", "third\n")])

# A zip bomb: 30 MB of zeros in about 30 KB.
z("bomb.zip", [("1.txt", b"\x00" * (30 << 20))])

# An EPUB with DRM: encryption.xml names a chapter (AES), which is not
# font obfuscation.
enc = '''<?xml version="1.0" encoding="UTF-8"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
<enc:CipherData><enc:CipherReference URI="EPUB/text/ch001.xhtml"/></enc:CipherData></enc:EncryptedData>
</encryption>
'''
with zipfile.ZipFile("persuasion-epub3.epub") as src_zip, zipfile.ZipFile("encrypted.epub", "w") as out:
    for info in src_zip.infolist():
        out.writestr(info, src_zip.read(info))
    out.writestr(zipfile.ZipInfo("META-INF/encryption.xml", (2024, 1, 1, 0, 0, 0)), enc)
PY
ls -l
