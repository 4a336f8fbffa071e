#!/usr/bin/env python3
"""Write a small web family: pages of one fictional site, "The Lantern
Reading Room", whose chrome outweighs each page's own text.

Usage::

    make_web_family.py --corpus tests/data/corpus --out DIR

- ``page-1.html`` ... ``page-4.html``: each about 130 words of a different
  public-domain book (cut at a sentence end from the corpus, checked against
  nothing else) inside the same ~200 words of site chrome: header, nav, a
  cookie notice, a footer with the site's licence, a small style sheet and an
  analytics script. The chrome differs per page only in the breadcrumb, the
  date and a "Page generated in N ms" line, as a content-management system's
  does. The pages must not pair with each other: only the chrome is shared.
- ``licence-a.html``, ``licence-b.html``: two pages whose body is the site's
  licence text itself, inside the same chrome: nothing but boilerplate, a
  family that must pair with nothing.

The site's chrome is written here from a template (it is the site's, not a
transcription), so generating it is honest; the books' words are copied.
Deterministic; standard library only.
"""

import argparse
import html
import os
import re

SITE = "The Lantern Reading Room"

# (file, corpus path, the words the excerpt starts with, collection, title, date, ms)
PAGES = [
    ("page-1.html", "moby/moby_dick.txt", "Call me Ishmael.", "Sea stories",
     "Moby-Dick: Loomings", "3 March 2024", 41),
    ("page-2.html", "misc/carroll_alice.txt", "Alice was beginning", "Children's books",
     "Down the Rabbit-Hole", "17 April 2024", 38),
    ("page-3.html", "misc/gettysburg.txt", "Four score and seven", "Speeches",
     "The Gettysburg Address", "2 May 2024", 52),
    ("page-4.html", "austen/northangerabbey.txt", "No one who had ever seen", "Novels",
     "Northanger Abbey: Chapter 1", "21 June 2024", 35),
]
LICENCE_PAGES = [
    ("licence-a.html", "About", "Licence", "9 January 2024", 29),
    ("licence-b.html", "Help", "Reusing our texts", "12 February 2024", 33),
]

COOKIES = (
    "We use cookies to remember where you stopped reading and to understand how "
    "visitors use the site. Essential cookies are always on. You can accept all "
    "cookies, refuse the optional ones, or choose which ones to allow in your "
    "settings at any time. Read our cookie policy for the details."
)
LICENCE = (
    "The books in The Lantern Reading Room are in the public domain in the United "
    "States. Our transcriptions, introductions and page design are copyright the "
    "Lantern Reading Room Trust and may be reused under the Creative Commons "
    "Attribution 4.0 licence. Please check the copyright laws of your country "
    "before downloading or sharing a text, and credit the Lantern Reading Room "
    "when you reuse our work."
)

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} &middot; {site}</title>
<link rel="stylesheet" href="/static/lantern.css">
<style>.cookie-notice{{position:fixed;bottom:0;background:#fffbe6}}.crumbs li{{display:inline}}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments)}}gtag('js',new Date());gtag('config','LRR-0042');</script>
</head>
<body>
<header class="site-header">
<a class="logo" href="/">{site}</a>
<p class="tagline">Classic books, free to read, since 2009</p>
<form class="search" action="/search"><input name="q" placeholder="Search titles and authors"><button>Search</button></form>
</header>
<nav class="main-nav" aria-label="Main">
<ul><li><a href="/">Home</a></li><li><a href="/browse">Browse</a></li><li><a href="/authors">Authors</a></li><li><a href="/collections">Collections</a></li><li><a href="/lists">Reading lists</a></li><li><a href="/about">About us</a></li><li><a href="/donate">Donate</a></li><li><a href="/login">Sign in</a></li></ul>
</nav>
<nav class="crumbs" aria-label="Breadcrumb">
<ol><li><a href="/">Home</a> &rsaquo;</li><li><a href="/{section_slug}">{section}</a> &rsaquo;</li><li>{title}</li></ol>
</nav>
<main>
<article>
<h1>{title}</h1>
<p class="meta">Published {date} &middot; Added by the editors</p>
{body}
</article>
</main>
<div class="cookie-notice" role="dialog" aria-label="Cookies">
<p>{cookies}</p>
<button>Accept all</button> <button>Refuse optional cookies</button> <a href="/cookies">Settings</a>
</div>
<footer class="site-footer">
<p>{licence}</p>
<p class="newsletter">Sign up for our monthly newsletter: new books, reading lists and events, never more than one email a month. <a href="/newsletter">Subscribe</a></p>
<ul><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms of use</a></li><li><a href="/accessibility">Accessibility</a></li><li><a href="/contact">Contact</a></li><li><a href="/feed.xml">RSS</a></li></ul>
<p class="colophon">&copy; 2009&ndash;2024 Lantern Reading Room Trust, a registered charity. Page generated in {ms} ms.</p>
</footer>
</body>
</html>
"""


def sentence_end(word):
    """A full stop (perhaps inside a closing quote) or a closed quotation's
    ! or ?, not an abbreviation's full stop."""
    return (re.search(r"(\.|[.!?][\"'\u201d\u2019])$", word)
            and not re.fullmatch(r"(Mr|Mrs|Dr|St)\.", word))


def excerpt(path, start, target=130):
    """About ``target`` words from ``start`` on, ended at a sentence end,
    as paragraphs (the source's blank-line paragraphs, lines joined)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    at = text.find(start)
    if at < 0:
        raise SystemExit(f"error: {start!r} not found in {path}")
    paras, count = [], 0
    for para in re.split(r"\n\s*\n", text[at:]):
        words = para.split()
        keep = []
        for w in words:
            keep.append(w)
            count += 1
            if count >= target and sentence_end(w):
                break
        paras.append(" ".join(keep))
        if count >= target and keep and sentence_end(keep[-1]):
            return paras
    return paras


def page(title, section, date, ms, paras):
    body = "\n".join(f"<p>{html.escape(p, quote=False)}</p>" for p in paras)
    return TEMPLATE.format(
        site=html.escape(SITE), title=html.escape(title), section=html.escape(section),
        section_slug=re.sub(r"[^a-z]+", "-", section.lower()).strip("-"), date=date,
        ms=ms, body=body, cookies=COOKIES, licence=LICENCE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, src, start, section, title, date, ms in PAGES:
        paras = excerpt(os.path.join(args.corpus, src), start)
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(page(title, section, date, ms, paras))
    for name, section, title, date, ms in LICENCE_PAGES:
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(page(title, section, date, ms, [LICENCE]))


if __name__ == "__main__":
    main()
