#!/usr/bin/env python3
"""Scores a doppel scan of a generated library collection against its truth,
per relation.

    target/release/doppel make-library LIB --size large
    target/release/doppel scan LIB --no-index --format json > scan.json
    python3 benches/library_accuracy.py LIB/truth.json scan.json

The truth (`truth.json`, see `doppel::eval::library`) labels every related
pair `duplicate`, `contains` or `related`; every other pair is a negative.
A duplicate verdict (`fusion`, or an algorithm) is scored with `duplicate`
and `contains` as its positives; a `related` pair (two translations) is
neither a hit nor a false pair, and is counted apart: how many are in the
scan's JSON at all (a pair any algorithm passes) and how many the verdict
calls duplicates. Precision, recall and F are printed per verdict, recall
per relation and per set (library, hard-cases, copies), then fusion's false
pairs (with the boilerplate family of each side) and its misses. When the
scan's pairs carry a `relation`, a table of truth against reported relation
follows. `--verdict NAME` lists another verdict's false pairs and misses.
"""
import argparse
import collections
import json


def key(a, b):
    return (a, b) if a < b else (b, a)


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth")
    ap.add_argument("scan")
    ap.add_argument("--verdict", default="fusion", help="verdict whose pairs are listed")
    args = ap.parse_args()
    truth = json.load(open(args.truth))
    scan = json.load(open(args.scan))

    docs = {d["path"]: d for d in truth["documents"]}
    label = {key(p["a"], p["b"]): p["relation"] for p in truth["pairs"]}
    positives = {k for k, r in label.items() if r != "related"}
    scanned = {d["path"] for d in scan.get("documents", []) if d.get("status") == "indexed"}
    missing = sorted(set(docs) - scanned) if scanned else []

    called = collections.defaultdict(set)
    reported = {}
    in_json = set()
    for pair in scan["pairs"]:
        k = key(pair["a"], pair["b"])
        in_json.add(k)
        for verdict in pair.get("duplicate_by", []):
            called[verdict].add(k)
        if "relation" in pair:
            reported[k] = pair["relation"] or "none"

    n = len(docs)
    counts = collections.Counter(label.values())
    print(f"{n} documents, {n * (n - 1) // 2} pairs: "
          + ", ".join(f"{counts[r]} {r}" for r in ("duplicate", "contains", "related"))
          + f", {n * (n - 1) // 2 - len(label)} negative")
    if missing:
        print(f"not indexed by the scan (their pairs count as missed): {', '.join(missing)}")

    print(f"\n{'verdict':<18} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} {'recall':>6} {'F':>6}"
          f"  {'dup R':>5} {'cont R':>6}  related called")
    verdicts = ["fusion"] + sorted(v for v in called if v != "fusion")
    for verdict in verdicts:
        pairs = called[verdict]
        tp = len(pairs & positives)
        fp = len({k for k in pairs if k not in label})
        fn = len(positives - pairs)
        p, r, f = prf(tp, fp, fn)
        per = {}
        for rel in ("duplicate", "contains"):
            total = [k for k, x in label.items() if x == rel]
            per[rel] = sum(k in pairs for k in total) / len(total) if total else float("nan")
        rel_called = sum(1 for k, x in label.items() if x == "related" and k in pairs)
        print(f"{verdict:<18} {tp:>4} {fp:>4} {fn:>4} {p:>9.3f} {r:>6.3f} {f:>6.3f}"
              f"  {per['duplicate']:>5.2f} {per['contains']:>6.2f}  {rel_called}/{counts['related']}")

    related = [k for k, x in label.items() if x == "related"]
    print(f"\nrelated pairs in the scan's JSON at all: {sum(k in in_json for k in related)}"
          f" of {len(related)}")

    pairs = called[args.verdict]
    set_of = lambda path: docs[path]["set"] if path in docs else "?"
    print(f"\n{args.verdict} per set (pairs within one set; 'cross' = the two sides in different sets):")
    by_set = collections.defaultdict(lambda: [0, 0, 0, 0])  # tp, fp, fn, negatives
    all_keys = [key(a, b) for i, a in enumerate(sorted(docs)) for b in sorted(docs)[i + 1:]]
    for k in all_keys:
        s = set_of(k[0]) if set_of(k[0]) == set_of(k[1]) else "cross"
        row = by_set[s]
        if k in positives:
            row[0 if k in pairs else 2] += 1
        elif k not in label:
            row[3] += 1
            row[1] += k in pairs
    for s, (tp, fp, fn, neg) in sorted(by_set.items()):
        p, r, f = prf(tp, fp, fn)
        print(f"  {s:<11} positives {tp + fn:>3} found {tp:>3} (R {r:.2f}); "
              f"false pairs {fp:>3} of {neg} negatives")

    fps = sorted(k for k in pairs if k not in label)
    if fps:
        same = sum(1 for a, b in fps
                   if docs.get(a, {}).get("boilerplate") and
                   docs[a].get("boilerplate") == docs.get(b, {}).get("boilerplate"))
        print(f"\n{args.verdict} false pairs ({len(fps)}; {same} share one boilerplate family):")
        for a, b in fps:
            ba = docs.get(a, {}).get("boilerplate") or "-"
            bb = docs.get(b, {}).get("boilerplate") or "-"
            note = f"both {ba}" if ba == bb and ba != "-" else f"{ba} | {bb}"
            print(f"  {a}  ~  {b}   [{note}]")
    fns = sorted(positives - pairs)
    if fns:
        print(f"\n{args.verdict} misses ({len(fns)}):")
        for a, b in fns:
            print(f"  {label[(a, b)]:<9} {a}  ~  {b}")

    if reported:
        print("\nrelation reported (columns) against the truth (rows), pairs in the JSON:")
        kinds = sorted(set(reported.values()))
        print(f"  {'truth':<10}" + "".join(f"{r:>11}" for r in kinds))
        for rel in ("duplicate", "contains", "related", "negative"):
            keys = [k for k in in_json if label.get(k, "negative") == rel]
            c = collections.Counter(reported.get(k) for k in keys)
            print(f"  {rel:<10}" + "".join(f"{c[r]:>11}" for r in kinds))


if __name__ == "__main__":
    main()
