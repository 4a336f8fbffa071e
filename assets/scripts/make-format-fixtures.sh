#!/usr/bin/env bash
# Make the format fixtures (tests/data/formats) with the real tools: chapter I
# of Emma typeset and scanned (render_pages.py), OCR'd by Tesseract into a
# searchable PDF, ALTO, hOCR and text, a METS/ALTO page folder, a
# HathiTrust-style zip of page texts; EPUB, HTML and TEI by pandoc; a gzipped
# e-text and a part of it; and a small web family (make_web_family.py).
#
# Usage (from anywhere): assets/scripts/make-format-fixtures.sh [OUT]
#   OUT defaults to tests/data/formats (relative to the repository root).
# Environment: DPI (scan resolution, default 200), SOURCE_DATE_EPOCH (dates
# written into the files, default 2023-11-14), PYTHON (a python3 with Pillow
# and pyphen; default: the first of python3, /usr/bin/python3 that has them).
# Debian packages: tesseract-ocr tesseract-ocr-eng pandoc poppler-utils
# python3-pil python3-pyphen fonts-liberation (fontconfig's fc-match).
set -euo pipefail

start=$(date +%s.%N)
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/tests/data/formats}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
scripts="$root/assets/scripts"
source_book="$root/tests/data/corpus/austen/emma.txt"
dpi="${DPI:-200}"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-1700000000}"
# One thread per Tesseract process: the pages run in parallel instead, and
# OpenMP's spinning threads only slow a shared machine down.
export OMP_THREAD_LIMIT=1
jobs="$(nproc 2>/dev/null || echo 2)"

die() {
    echo "make-format-fixtures: $*" >&2
    exit 1
}
for tool in tesseract pandoc pdftotext fc-match gzip; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (Debian: see the header of $0)"
done
tesseract --list-langs 2>/dev/null | grep -qx eng || die "Tesseract has no English model (tesseract-ocr-eng)"
python="${PYTHON:-}"
if [ -z "$python" ]; then
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c 'import PIL, pyphen' >/dev/null 2>&1; then
            python="$candidate"
            break
        fi
    done
fi
[ -n "$python" ] || die "no python3 with Pillow and pyphen (python3-pil, python3-pyphen)"

# The face: Liberation Serif (Times metrics, a book face), else DejaVu Serif.
# fc-match always answers, so the family it found is checked.
font() { # family style -> file, or nothing
    local got
    got="$(fc-match -f '%{family}|%{style}|%{file}' "$1:style=$2")"
    case "$got" in
    "$1"*"|$2|"*) echo "${got##*|}" ;;
    esac
}
regular="$(font 'Liberation Serif' Regular)"
italic="$(font 'Liberation Serif' Italic)"
if [ -z "$regular" ]; then
    regular="$(font 'DejaVu Serif' Book)"
    italic="$(font 'DejaVu Serif' Italic)"
fi
[ -n "$regular" ] || die "no serif face found (fonts-liberation or fonts-dejavu-core)"
[ -n "$italic" ] || italic="$regular"
echo "face: $regular, $italic"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/out"
mkdir -p "$stage/emma_pages" "$work/pages" "$work/page_txt/emma"

# 1. The e-text: chapter I, from its heading to the line before CHAPTER II,
#    trailing blank lines dropped.
[ -f "$source_book" ] || die "$source_book is missing"
awk '/^CHAPTER I$/ { on = 1 } /^CHAPTER II$/ { exit } on' "$source_book" |
    sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$stage/emma_etext.txt"
[ -s "$stage/emma_etext.txt" ] || die "chapter I not found in $source_book"

# The first third (by lines, ended at a paragraph's end): a part for the
# containment relation.
total_lines=$(wc -l <"$stage/emma_etext.txt")
awk -v third=$((total_lines / 3)) 'NR > third && /^$/ { exit } { print }' \
    "$stage/emma_etext.txt" >"$stage/emma_part.txt"
gzip -9n <"$stage/emma_etext.txt" >"$stage/emma.txt.gz"

# 2. Typeset and scan the pages; the markdown for pandoc carries the scan's
#    page breaks as raw TEI milestones.
"$python" "$scripts/render_pages.py" --text "$stage/emma_etext.txt" --out "$work/pages" \
    --regular "$regular" --italic "$italic" --dpi "$dpi" --markdown "$work/emma.md"
t_render=$(date +%s.%N)

# 3. OCR. Relative image names, so the outputs name the images, not this
#    temporary folder. The book at once (one multi-page PDF, hOCR, ALTO, text)
#    in the background while the pages are OCR'd one by one (ALTO and text).
cd "$work/pages"
cut -f3 pages.tsv >list.txt
tesseract list.txt "$stage/emma_scan" -l eng -c document_title=Emma pdf hocr alto txt \
    >"$work/book.log" 2>&1 &
book_pid=$!
xargs -P "$jobs" -I{} sh -c 'tesseract "$1" "${1%.tif}" -l eng alto txt >/dev/null 2>&1' _ {} <list.txt
wait "$book_pid" || die "tesseract over the book failed: $(cat "$work/book.log")"
mv "$stage/emma_scan.txt" "$stage/emma_scan_ocr.txt"
for f in *.xml; do mv "$f" "$stage/emma_pages/"; done
for f in *.txt; do
    [ "$f" = list.txt ] || mv "$f" "$work/page_txt/emma/"
done
cd "$root"
t_ocr=$(date +%s.%N)

# Tesseract writes the time of the run as the PDF's CreationDate: set it to
# SOURCE_DATE_EPOCH in place (same length, so the cross-reference table stays
# right), then the METS, the zip of page texts, and pdftotext's reference.
"$python" - "$stage" "$work/pages/pages.tsv" <<'PY'
import os, re, sys, time, zipfile
stage, tsv = sys.argv[1], sys.argv[2]
epoch = int(os.environ["SOURCE_DATE_EPOCH"])
stamp = time.strftime("D:%Y%m%d%H%M%SZ00'00'", time.gmtime(epoch)).encode()
pdf = os.path.join(stage, "emma_scan.pdf")
data = open(pdf, "rb").read()
data, n = re.subn(rb"/CreationDate \(D:\d{14}Z00'00'\)", b"/CreationDate (" + stamp + b")", data)
assert n == 1, "no CreationDate of the expected form in the PDF"
open(pdf, "wb").write(data)

pages = [line.rstrip("\n").split("\t") for line in open(tsv, encoding="utf-8")]
files = "\n".join(
    f'      <mets:file ID="ALTO{int(nr):08d}" MIMETYPE="text/xml">\n'
    f'        <mets:FLocat LOCTYPE="URL" xlink:href="{img[:-4]}.xml"/>\n'
    f'      </mets:file>' for nr, label, img in pages)
divs = "\n".join(
    f'      <mets:div ID="PHYS{int(nr):08d}" TYPE="page" ORDER="{nr}" ORDERLABEL="{label}">\n'
    f'        <mets:fptr FILEID="ALTO{int(nr):08d}"/>\n'
    f'      </mets:div>' for nr, label, img in pages)
created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
mets = f'''<?xml version="1.0" encoding="UTF-8"?>
<mets:mets xmlns:mets="http://www.loc.gov/METS/" xmlns:xlink="http://www.w3.org/1999/xlink"
    OBJID="emma-volume-1-chapter-1" LABEL="Emma, Volume I, Chapter I (scan, OCR by Tesseract)">
  <mets:metsHdr CREATEDATE="{created}">
    <mets:agent ROLE="CREATOR" TYPE="OTHER" OTHERTYPE="SOFTWARE">
      <mets:name>doppel assets/scripts/make-format-fixtures.sh</mets:name>
    </mets:agent>
  </mets:metsHdr>
  <mets:fileSec>
    <mets:fileGrp USE="ocr">
{files}
    </mets:fileGrp>
  </mets:fileSec>
  <mets:structMap TYPE="physical">
    <mets:div ID="PHYS0000" TYPE="volume" LABEL="Emma, Volume I, Chapter I">
{divs}
    </mets:div>
  </mets:structMap>
</mets:mets>
'''
open(os.path.join(stage, "emma_pages", "mets.xml"), "w", encoding="utf-8").write(mets)

# HathiTrust-style: one text file a page in a folder named after the volume,
# entries sorted, dates fixed, so the zip is the same on every run.
txt_dir = os.path.join(os.path.dirname(tsv), "..", "page_txt")
date = time.gmtime(max(epoch, 315532800))[:6]
with zipfile.ZipFile(os.path.join(stage, "emma_pages_txt.zip"), "w") as z:
    for nr, label, img in pages:
        name = f"emma/{img[:-4]}.txt"
        info = zipfile.ZipInfo(name, date_time=date)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        z.writestr(info, open(os.path.join(txt_dir, name), "rb").read())
PY

# 4. EPUB, HTML and TEI from the same markdown (heading as #).
meta=(--metadata title=Emma --metadata "author=Jane Austen" --metadata lang=en-GB
    --metadata identifier=urn:doppel:fixture:emma-volume-1-chapter-1)
pandoc -f markdown -t epub3 "${meta[@]}" -o "$work/emma.epub" "$work/emma.md"
# pandoc dates the OPF by SOURCE_DATE_EPOCH but stamps the zip entries with
# the clock: copy the entries (same order, the mimetype first and stored)
# with the same date, so the EPUB is the same on every run.
"$python" - "$work/emma.epub" "$stage/emma.epub" <<'PY'
import os, sys, time, zipfile
date = time.gmtime(max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800))[:6]
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w") as dst:
    for entry in src.infolist():
        info = zipfile.ZipInfo(entry.filename, date_time=date)
        info.compress_type = entry.compress_type
        info.external_attr = 0o644 << 16
        dst.writestr(info, src.read(entry))
PY
pandoc -s -f markdown -t html5 "${meta[@]}" -o "$stage/emma.html" "$work/emma.md"
pandoc -s -f markdown -t tei "${meta[@]}" -o "$stage/emma.tei.xml" "$work/emma.md"

# 5. The web family: four pages of one site, and two licence-only pages.
"$python" "$scripts/make_web_family.py" --corpus "$root/tests/data/corpus" --out "$stage/web"

# 6. The reference extraction of the PDF, and the OCR's word equality.
pdftotext -raw -enc UTF-8 "$stage/emma_scan.pdf" "$stage/emma_scan.pdftotext.txt"
ocr_quality="$("$python" - "$stage/emma_etext.txt" "$stage/emma_scan.pdftotext.txt" <<'PY'
import difflib, re, sys
def words(path, fold):
    text = open(path, encoding="utf-8").read()
    if fold:
        text = text.translate(str.maketrans("\u201c\u201d\u2018\u2019\u2014", "\"\"''-"))
        text = re.sub(r"[^\w\s]", "", text.replace("_", "").lower())
    return text.split()
a = words(sys.argv[1], False); b = words(sys.argv[2], False)
raw = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
fa = words(sys.argv[1], True); fb = words(sys.argv[2], True)
folded = difflib.SequenceMatcher(None, fa, fb, autojunk=False).ratio()
print(f"{raw:.3f} as written, {folded:.3f} case and punctuation folded "
      f"({len(a)} e-text words, {len(b)} pdftotext words)")
PY
)"
echo "OCR word equality (difflib ratio, pdftotext vs e-text): $ocr_quality"

# 7. The README: how the files were made, with the versions used.
version() { # Debian package -> version, or "not a Debian package here"
    dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "(not installed as a Debian package)"
}
pages=$(wc -l <"$work/pages/pages.tsv")
sizes="$(cd "$stage" && find . -type f | sort | while read -r f; do
    printf '| `%s` | %s |\n' "${f#./}" "$(wc -c <"$f" | tr -d ' ')"
done)"
total=$(find "$stage" -type f -printf "%s\n" | awk "{ s += \$1 } END { print s }")
export pages sizes total ocr_quality dpi regular italic
export v_tess="$(version tesseract-ocr)" v_eng="$(version tesseract-ocr-eng)"
export v_pandoc="$(version pandoc)" v_poppler="$(version poppler-utils)"
export v_pil="$(version python3-pil)" v_pyphen="$(version python3-pyphen)"
export v_font="$(version fonts-liberation)"
export tess_line="$(tesseract --version 2>&1 | head -1)"
"$python" - "$scripts/fixtures-readme.md" "$stage/README.md" <<'PY'
import os, string, sys
template = string.Template(open(sys.argv[1], encoding="utf-8").read())
open(sys.argv[2], "w", encoding="utf-8").write(template.substitute(os.environ))
PY

# 8. Replace the generated files in OUT (and only those).
rm -rf "$out"/emma_pages "$out"/web
rm -f "$out"/emma_etext.txt "$out"/emma_part.txt "$out"/emma.txt.gz "$out"/emma_scan.* \
    "$out"/emma_scan_ocr.txt "$out"/emma_pages_txt.zip "$out"/emma.epub "$out"/emma.html \
    "$out"/emma.tei.xml "$out"/README.md
cp -r "$stage"/. "$out"/
end=$(date +%s.%N)
size=$(find "$stage" -type f -printf "%s\n" | awk "{ s += \$1 } END { print s }")
"$python" -c 'import sys; s, r, o, e = map(float, sys.argv[1:5]); print(
    f"timing: render {r - s:.1f} s, OCR {o - r:.1f} s, the rest {e - o:.1f} s, "
    f"total {e - s:.1f} s; {sys.argv[5]} bytes written to {sys.argv[6]}")' \
    "$start" "$t_render" "$t_ocr" "$end" "$size" "$out"
