#!/usr/bin/env python3
"""Generate a large synthetic corpus for `cargo bench --bench scale`.

The public-domain books give only ~11k distinct 4 KB texts, so this writes N
texts of ~4 KB drawn from a word-bigram model of those books (seeded,
deterministic), plus an edited copy (1-10 % word edits) of every tenth text,
one file per text:

    python3 benches/make_scale_corpus.py target/scale-corpus --docs 100000
    DOPPEL_SCALE_DIR=target/scale-corpus cargo bench --bench scale

With --books N it writes whole books instead: N books, each --texts-per-book
consecutive texts of the same stream (~480 KB at 120), plus a copy of every
--noised-every'th book with --noise of its words edited, and truth.tsv beside
the folder (copy, source, edit rate: the format of benches/bench_accuracy.py):

    python3 benches/make_scale_corpus.py target/books880/docs --books 800
    DOPPEL_BOOKS_DIR=target/books880/docs cargo bench --bench books

With --licence every file opens and ends as e-texts do: the same
transcriber's note before the text and the same licence after it (~2 KB
of words drawn once from the same model), the boilerplate a scan learns
and leaves out of every document.

Standard library only.
"""
import argparse
import os
import random
import re


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--books", type=int, default=0, help="write N whole books instead of --docs texts")
    ap.add_argument("--texts-per-book", type=int, default=120)
    ap.add_argument("--noised-every", type=int, default=10)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--licence", action="store_true", help="the same note and licence around every file")
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus"))
    args = ap.parse_args()
    rng = random.Random(args.seed)

    words = []
    for folder, _, files in sorted(os.walk(args.corpus)):
        for name in sorted(files):
            if name.endswith(".txt"):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    words.extend(re.findall(r"\S+", fh.read()))
    following = {}
    for a, b in zip(words, words[1:]):
        following.setdefault(a, []).append(b)
    starts = [w for w in following if w[:1].isupper()]

    def text_words():
        word = rng.choice(starts)
        out, size = [], 0
        while size < 4000:
            out.append(word)
            size += len(word) + 1
            nxt = following.get(word)
            word = rng.choice(nxt) if nxt else rng.choice(starts)
        return out

    def edit(words_in, count):
        edited = list(words_in)
        for _ in range(count):
            i = rng.randrange(len(edited))
            op = rng.randrange(3)
            if op == 0:
                edited[i] = rng.choice(words)
            elif op == 1:
                edited.insert(i, rng.choice(words))
            elif len(edited) > 1:
                del edited[i]
        return edited

    # Drawn before any text, from a seed of its own: the same passages
    # whatever --docs or --books says.
    wrap = lambda text: text
    if args.licence:
        seeded, rng = rng, random.Random(0x11CE)
        note = " ".join(text_words()[:120])
        licence = "\n\n".join(" ".join(text_words()[:150]) for _ in range(2))
        rng = seeded
        wrap = lambda text: f"{note}\n\n{text}\n\n{licence}\n"

    os.makedirs(args.out, exist_ok=True)
    if args.books:
        write_books(args, text_words, edit, wrap)
        return
    written = 0
    for n in range(args.docs):
        out = text_words()
        text = " ".join(out)
        with open(os.path.join(args.out, f"{n:06d}.txt"), "w", encoding="utf-8") as fh:
            fh.write(wrap(text))
        written += 1
        if n % 10 == 0:
            edited = edit(out, max(1, int(len(out) * rng.uniform(0.01, 0.10))))
            with open(os.path.join(args.out, f"{n:06d}-copy.txt"), "w", encoding="utf-8") as fh:
                fh.write(wrap(" ".join(edited)))
            written += 1
    print(f"{written} texts in {args.out}")


def write_books(args, text_words, edit, wrap):
    """N books of consecutive texts (one paragraph each), a noised copy of
    every k-th, and truth.tsv (copy, source, edit rate) beside the folder;
    each file's text passed through `wrap`."""
    truth = ["copy\tsource\trate"]
    written = 0
    for b in range(args.books):
        paragraphs = [text_words() for _ in range(args.texts_per_book)]
        name = f"book{b:05d}"
        with open(os.path.join(args.out, name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(wrap("\n\n".join(" ".join(p) for p in paragraphs)))
        written += 1
        if args.noised_every and b % args.noised_every == 0:
            flat = [w for p in paragraphs for w in p + ["\n\n"]]
            noised = edit(flat, max(1, int(len(flat) * args.noise)))
            copy = name + "-noised"
            with open(os.path.join(args.out, copy + ".txt"), "w", encoding="utf-8") as fh:
                fh.write(wrap(" ".join(noised).replace(" \n\n ", "\n\n")))
            truth.append(f"{copy}\t{name}\t{args.noise}")
            written += 1
    parent = os.path.dirname(os.path.abspath(args.out))
    with open(os.path.join(parent, "truth.tsv"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(truth) + "\n")
    print(f"{written} books in {args.out}, {len(truth) - 1} true pairs in {parent}/truth.tsv")


if __name__ == "__main__":
    main()
