#!/usr/bin/env python3
"""Generate a large synthetic corpus for `cargo bench --bench scale`.

The public-domain books give only ~11k distinct 4 KB texts, so this writes N
texts of ~4 KB drawn from a word-bigram model of those books (seeded,
deterministic), plus an edited copy (1-10 % word edits) of every tenth text,
one file per text:

    python3 benches/make_scale_corpus.py target/scale-corpus --docs 100000
    DOPPEL_SCALE_DIR=target/scale-corpus cargo bench --bench scale

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

    os.makedirs(args.out, exist_ok=True)
    written = 0
    for n in range(args.docs):
        word = rng.choice(starts)
        out, size = [], 0
        while size < 4000:
            out.append(word)
            size += len(word) + 1
            nxt = following.get(word)
            word = rng.choice(nxt) if nxt else rng.choice(starts)
        text = " ".join(out)
        with open(os.path.join(args.out, f"{n:06d}.txt"), "w", encoding="utf-8") as fh:
            fh.write(text)
        written += 1
        if n % 10 == 0:
            edited = list(out)
            for _ in range(max(1, int(len(edited) * rng.uniform(0.01, 0.10)))):
                i = rng.randrange(len(edited))
                op = rng.randrange(3)
                if op == 0:
                    edited[i] = rng.choice(words)
                elif op == 1:
                    edited.insert(i, rng.choice(words))
                elif len(edited) > 1:
                    del edited[i]
            with open(os.path.join(args.out, f"{n:06d}-copy.txt"), "w", encoding="utf-8") as fh:
                fh.write(" ".join(edited))
            written += 1
    print(f"{written} texts in {args.out}")


if __name__ == "__main__":
    main()
