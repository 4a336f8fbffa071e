#!/usr/bin/env python3
"""Scores doppel's verdicts on the peer kit's bench corpus against its truth.

    python3 ../shared/bench/make_corpus.py target/bench-corpus
    target/release/doppel scan target/bench-corpus/docs --no-index --format json > scan.json
    python3 benches/bench_accuracy.py target/bench-corpus/truth.tsv scan.json

truth.tsv lists (copy, source, edit rate). Two texts are true duplicates when
they are a copy and its source, or two copies of one source. For each
verdict (`fusion` and every algorithm) this prints recall per edit rate (of
the copy-source pairs), precision over every pair the verdict calls a
duplicate, and F. "False" pairs are mostly real overlaps the kit does not
label (commentaries quoting the KJV, the KJV and the WEB), so precision is
a lower bound.
"""
import collections
import json
import sys


def main(truth_path, scan_path):
    source_of, rate_of = {}, {}
    with open(truth_path) as f:
        next(f)
        for line in f:
            copy, source, rate = line.rstrip("\n").split("\t")
            source_of[copy] = source
            rate_of[copy] = rate
    group = lambda doc: source_of.get(doc, doc)
    scan = json.load(open(scan_path))
    stem = lambda path: path.rsplit("/", 1)[-1].removesuffix(".txt")
    by_verdict = collections.defaultdict(set)
    for pair in scan["pairs"]:
        a, b = sorted((stem(pair["a"]), stem(pair["b"])))
        for verdict in pair["duplicate_by"]:
            by_verdict[verdict].add((a, b))
    rates = sorted(set(rate_of.values()), key=float)
    print("verdict           " + " ".join(f"{r:>5}" for r in rates) + "  precision  F")
    for verdict in ["fusion"] + sorted(v for v in by_verdict if v != "fusion"):
        pairs = by_verdict[verdict]
        found = collections.Counter()
        total = collections.Counter(rate_of.values())
        for copy, source in source_of.items():
            if tuple(sorted((copy, source))) in pairs:
                found[rate_of[copy]] += 1
        true = sum(1 for a, b in pairs if group(a) == group(b))
        precision = true / len(pairs) if pairs else 0.0
        recall = sum(found.values()) / len(source_of)
        f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        recalls = " ".join(f"{found[r] / total[r]:5.2f}" for r in rates)
        print(f"{verdict:<17} {recalls}  {precision:9.3f}  {f:.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
