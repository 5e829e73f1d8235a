#!/usr/bin/env python3
"""Compares agentready lint's document readiness with Redocly's score.

Reads what .ci/bench/docgrade.sh left in OUT (documents.txt, and per
document and tool the JSON output and a .time line "exit wall user sys
maxrss_kib") and prints a Markdown summary: crashes, the distributions of
our grades and of Redocly's Agent Readiness, Spearman's rho between the
two, the 20 largest rank disagreements and the time per document of each
tool. Standard library only.

Usage: docgrade.py OUT
"""

import json
import math
import os
import re
import statistics
import sys
from collections import Counter


def load(out, tool, doc):
    """The tool's parsed output (None when it is no JSON) and its timing."""
    base = os.path.join(out, tool, doc)
    try:
        with open(base + ".time") as f:
            fields = f.read().split()
    except FileNotFoundError:
        return None, None
    code = int(fields[0])
    timing = {"exit": code}
    if len(fields) >= 5:
        timing.update(wall=float(fields[1]), cpu=float(fields[2]) + float(fields[3]), rss=int(fields[4]) / 1024)
    try:
        with open(base + ".json") as f:
            return json.load(f), timing
    except (ValueError, OSError):
        return None, timing


def crashed(tool, timing, out_dir, doc):
    """A crash: a signal, a timeout, or a Go panic; not a refusal."""
    if timing["exit"] >= 124 or timing["exit"] < 0:
        return True
    try:
        with open(os.path.join(out_dir, tool, doc + ".err"), errors="replace") as f:
            err = f.read()
    except OSError:
        return False
    return "panic:" in err or "goroutine " in err or "FATAL ERROR" in err or "Maximum call stack" in err


def ranks(values):
    """Ranks from 1, ties given their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(xs, ys):
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sxy / math.sqrt(sxx * syy)


def spearman(xs, ys):
    return pearson(ranks(xs), ranks(ys))


def quantiles(xs):
    xs = sorted(xs)
    if not xs:
        return "-"
    q = lambda p: xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]
    return f"median {q(0.5):.3f}, p90 {q(0.9):.3f}, max {xs[-1]:.3f}, total {sum(xs):.1f}"


def main(out):
    with open(os.path.join(out, "documents.txt")) as f:
        docs = [line.strip() for line in f if line.strip()]
    rows = []
    ours_crash, theirs_crash, ours_exit, theirs_fail = [], [], Counter(), Counter()
    times = {"agentready": [], "redocly": []}
    for doc in docs:
        ours, ot = load(out, "agentready", doc)
        theirs, tt = load(out, "redocly", doc)
        if ot is None or tt is None:
            continue
        for tool, t in (("agentready", ot), ("redocly", tt)):
            if "wall" in t:
                times[tool].append(t)
        ours_exit[ot["exit"]] += 1
        if crashed("agentready", ot, out, doc):
            ours_crash.append(doc)
        if crashed("redocly", tt, out, doc):
            theirs_crash.append(doc)
        if theirs is None or "agentReadiness" not in theirs:
            theirs_fail[tt["exit"]] += 1
        rd = (ours or {}).get("readiness")
        rows.append({
            "doc": doc,
            "grade": ((ours or {}).get("score") or {}).get("grade", "-"),
            "ours": rd["score"]["value"] if rd else None,
            "rgrade": rd["score"]["grade"] if rd else "-",
            "deductions": rd["deductions"] if rd else 0,
            "deducted": rd["deducted"] if rd else 0,
            "operations": rd["operations"] if rd else 0,
            "checks": Counter(c for h in (rd or {}).get("hotspots", []) for c in h["checks"]),
            "failed": sorted({f.get("checkId") for f in (ours or {}).get("findings", [])} &
                             {r["id"] for r in (ours or {}).get("rules", []) if r.get("readiness")}),
            "theirs": theirs.get("agentReadiness") if theirs else None,
            "reasons": Counter(r for h in (theirs or {}).get("hotspots", []) for r in h.get("reasons", [])),
        })

    p = print
    p(f"# agentready lint readiness vs Redocly score\n\n{len(rows)} documents of {len(docs)} listed.\n")
    p("## Crashes\n")
    p(f"- agentready: {len(ours_crash)} crashes; exit codes {dict(sorted(ours_exit.items()))}")
    for d in ours_crash[:10]:
        p(f"  - {d}")
    p(f"- Redocly: {len(theirs_crash)} crashes; {sum(theirs_fail.values())} without a score (exit codes {dict(sorted(theirs_fail.items()))})")
    for d in theirs_crash[:10]:
        p(f"  - {d}")

    p("\n## Distributions\n")
    grades = Counter(r["grade"] for r in rows)
    p("Report grade (agentready lint): " + ", ".join(f"{g} {n}" for g, n in sorted(grades.items())))
    rgrades = Counter(r["rgrade"] for r in rows)
    p("\nDocument readiness grade: " + ", ".join(f"{g} {n}" for g, n in sorted(rgrades.items())))
    ours = [r["ours"] for r in rows if r["ours"] is not None and r["rgrade"] != "N/A"]
    tens = Counter(min(int(s // 10) * 10, 90) for s in ours)
    p("\nDocument readiness score (by tens): " + ", ".join(f"{b}–{b + 9 if b < 90 else 100} {tens[b]}" for b in sorted(tens)))
    if ours:
        p(f"; median {statistics.median(ours):.1f}")
    scored = [r["theirs"] for r in rows if r["theirs"] is not None]
    buckets = Counter(min(int(s // 10) * 10, 90) for s in scored)
    p("\nRedocly Agent Readiness (by tens): " + ", ".join(f"{b}–{b + 9 if b < 90 else 100} {buckets[b]}" for b in sorted(buckets)))
    if scored:
        p(f"; median {statistics.median(scored):.1f}")
    share = [r["deducted"] / r["operations"] for r in rows if r["ours"] is not None and r["operations"]]
    if share:
        p(f"\nShare of operations with a deduction (ours): median {statistics.median(share):.2f}")
    fired = Counter(c for r in rows for c in r["failed"])
    p("\nDocuments in which each readiness check fired: " + ", ".join(f"{c.removeprefix('openapi-hal-')} {n}" for c, n in fired.most_common()))

    both = [r for r in rows if r["ours"] is not None and r["rgrade"] != "N/A" and r["theirs"] is not None]
    p("\n## Rank agreement\n")
    if len(both) >= 3:
        rho = spearman([r["ours"] for r in both], [r["theirs"] for r in both])
        p(f"Spearman's rho, readiness score vs Agent Readiness, over {len(both)} documents: **{rho:.3f}**")
        fine = [r for r in both if r["operations"]]
        rho2 = spearman([1 - r["deducted"] / r["operations"] for r in fine], [r["theirs"] for r in fine])
        p(f"\nSpearman's rho, share of operations without a deduction vs Agent Readiness, over {len(fine)} documents: {rho2:.3f}")
        ro, rt = ranks([r["ours"] for r in both]), ranks([r["theirs"] for r in both])
        n = len(both)
        for r, a, b in zip(both, ro, rt):
            r["gap"] = (a - b) / n
        p("\n## The 20 largest rank disagreements\n")
        p("Rank gap is our rank minus Redocly's, as a share of the documents (positive: we rank it higher).\n")
        p("| document | ours | Redocly | rank gap | our deductions | Redocly's hotspot reasons |")
        p("|---|---|---|---|---|---|")
        for r in sorted(both, key=lambda r: (-abs(r["gap"]), r["doc"]))[:20]:
            mine = ", ".join(c.removeprefix("openapi-hal-") for c in r["failed"]) or "none"
            theirs = "; ".join(f"{k} ({v})" for k, v in r["reasons"].most_common(3)) or "none"
            p(f"| `{r['doc']}` | {r['rgrade']} {r['ours']} ({r['deducted']}/{r['operations']} ops) | {r['theirs']} | {r['gap']:+.2f} | {mine} | {theirs} |")

    p("\n## Time per document (one process each)\n")
    for tool in ("agentready", "redocly"):
        ts = times[tool]
        if not ts:
            continue
        p(f"- {tool}: wall {quantiles([t['wall'] for t in ts])} s; CPU {quantiles([t['cpu'] for t in ts])} s; "
          f"peak RSS median {statistics.median(t['rss'] for t in ts):.0f} MiB, max {max(t['rss'] for t in ts):.0f} MiB")

    # Redocly prints the time of its scoring in its process ("score
    # processed in 17ms"), from after it read and bundled the document.
    scoring = {}
    for r in rows:
        try:
            with open(os.path.join(out, "redocly", r["doc"] + ".err"), errors="replace") as f:
                m = re.search(r"score processed in (\d+(?:\.\d+)?)(ms|s)\b", f.read())
        except OSError:
            m = None
        if m:
            scoring[r["doc"]] = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
    if scoring:
        v = list(scoring.values())
        p(f"- redocly's own scoring time (after its parse and bundle): mean {statistics.fmean(v):.1f} ms, "
          f"median {statistics.median(v):.1f} ms, over {len(v)} documents")
    try:
        with open(os.path.join(out, "inprocess.txt")) as f:
            sample = [line.strip().split("/api/", 1)[-1] for line in f if line.strip()]
    except OSError:
        sample = []
    v = [scoring[d] for d in sample if d in scoring]
    if v:
        p(f"- redocly's own scoring time over the in-process sample: mean {statistics.fmean(v):.1f} ms, "
          f"median {statistics.median(v):.1f} ms, over {len(v)} documents")
    try:
        with open(os.path.join(out, "inprocess.log")) as f:
            bench = [line for line in f if "ms/doc" in line]
    except OSError:
        bench = []
    for line in bench:
        fields = line.split()
        at = fields.index("ms/doc")
        with open(os.path.join(out, "inprocess.txt")) as f:
            n = sum(1 for _ in f)
        p(f"- agentready in process (BenchmarkLintCorpus, {n} documents, every 20th): {fields[at - 1]} ms per document")


if __name__ == "__main__":
    main(sys.argv[1])
