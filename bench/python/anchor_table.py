#!/usr/bin/env python3
"""The GPU step held against PyTorch at its best, measured in the same run (issue 50, item 1).

Reads dls_bench's --json records (the last JSON line of each file given with --dls; each is
`--task seq2seq-train --preset cpu --cuda-graphs` at one batch and precision) and the rows
that the PyTorch anchor (pytorch_step.py --json-out) wrote, and prints per batch and
precision: dls pairs/s, the best PyTorch variant and its rate, the ratio; the same for a wait
on the GPU after every step (dls_bench's waiting_each_step against the anchor's variants that
wait: cuda_graph+sync and eager, which reads the loss each step); and the old eager
reference (ref_torchnn) as its own, labelled column. Then the issue's targets, each met or
not; with --trainer, seq2seq_train's wall-clock rate (its --json line) against dls_bench's
bf16 cell at the smallest batch (the same shapes); with --lecture, the lecture model's
dls_bench rate per lever and the 40 epochs' time it implies; with --lever-off, dls_bench's
rate with one lever switched off beside the cell's (what that lever alone gives). Only figures in the files are
printed: nothing is carried over from earlier runs.

    python3 bench/python/anchor_table.py --pytorch pytorch.json --dls dls_fp32_b64.log ... \
        [--trainer trainer.log] [--lecture fp32=lecture_fp32.log bf16=...] \
        [--lever-off "plain attention=dls_plain_attention_fp32_b64.log" ...]
"""
import argparse
import json
import os
import sys

WAITING_VARIANTS = ("cuda_graph+sync", "eager", "ref_torchnn")  # a host wait every step
LECTURE_PAIRS_PER_EPOCH = 86593  # the <= 8-word Tatoeba pairs DLStudio's script trains on
LECTURE_EPOCHS = 40


def last_json(path):
    """The last JSON line of a log; None when there is none (or no file: a step that never ran)."""
    record = None
    if not os.path.exists(path):
        return None
    for line in open(path, errors="replace"):
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                pass
    return record


def dls_cells(paths):
    cells = {}
    for path in paths:
        r = last_json(path)
        if not r or r.get("task") != "seq2seq-train":
            print(f"note: no dls_bench seq2seq-train record in {path}", file=sys.stderr)
            continue
        config = r.get("config", {})
        key = (int(config.get("batch", 0)), config.get("precision", "fp32"))
        cells[key] = r
    return cells


def best(rows, batch, precision, variants=None):
    found = [r for r in rows if "error" not in r and r["batch"] == batch and r["precision"] == precision
             and (variants is None or r["variant"] in variants)]
    return max(found, key=lambda r: r["median"]) if found else None


def fmt(x):
    return f"{x:,.0f}" if isinstance(x, (int, float)) else "-"


def ratio(a, b):
    return a / b if a and b else None


def lever_table(items, cells):
    """Each lever on its own: the cell's rate with the lever off, against the cell's."""
    if not items:
        return
    print()
    print("| batch | precision | without | dls pairs/s without | with (the cell) | the lever's gain |")
    print("| --- | --- | --- | --- | --- | --- |")
    for item in items:
        without, _, path = item.partition("=")
        r = last_json(path)
        if not r:
            print(f"| - | - | {without} | no record in {os.path.basename(path)} | - | - |")
            continue
        config = r.get("config", {})
        key = (int(config.get("batch", 0)), config.get("precision", "fp32"))
        cell = cells.get(key)
        gain = ratio(cell and cell["median"], r["median"])
        print(f"| {key[0]} | {key[1]} | {without} | {fmt(r['median'])} | {fmt(cell and cell['median'])} | "
              + (f"{gain:.2f}×" if gain else "-") + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pytorch", required=True, help="pytorch_step.py --json-out file")
    parser.add_argument("--dls", nargs="+", required=True, help="files whose last JSON line is a dls_bench record")
    parser.add_argument("--trainer", help="a seq2seq_train --json log at the smallest batch, bf16")
    parser.add_argument("--lecture", nargs="*", default=[], metavar="LEVER=LOG",
                        help="dls_bench logs of the lecture model (--preset dlstudio), one per lever")
    parser.add_argument("--lever-off", nargs="*", default=[], metavar="WITHOUT=LOG",
                        help="dls_bench logs of a --dls cell's step with one lever off (WITHOUT names it)")
    args = parser.parse_args()
    anchor = json.load(open(args.pytorch)) if os.path.exists(args.pytorch) else {}
    if not anchor:
        print(f"note: no PyTorch records ({args.pytorch} is missing: the anchor did not finish)")
    rows = anchor.get("rows", [])
    info = anchor.get("info") or {}
    cells = dls_cells(args.dls)
    keys = sorted(cells, key=lambda k: (k[1] != "fp32", k[0]))
    if info:
        print(f"PyTorch {info.get('torch')}, CUDA {info.get('cuda')}, {info.get('device')}, TF32 {info.get('tf32')}, "
              f"attention {info.get('attention')}")
    if cells:
        r = next(iter(cells.values()))
        print(f"dls_bench: LibTorch {r.get('torch_version')}, TF32 {r.get('tf32', False)}, the cpu preset's step "
              f"with CUDA graphs ({r.get('top_level_ops_per_step')} top-level ATen operators dispatched per timed step)")
    print()
    print("| batch | precision | dls pairs/s | best PyTorch (variant) | dls / best | "
          "waiting every step: dls | PyTorch (variant) | dls / PyTorch | old eager reference (ref_torchnn) | "
          "dls / old reference |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    ratios = {}
    for batch, precision in keys:
        r = cells[(batch, precision)]
        dls = r["median"]
        waiting = (r.get("waiting_each_step") or {}).get("median")
        top = best(rows, batch, precision)
        top_waiting = best(rows, batch, precision, WAITING_VARIANTS)
        ref = best(rows, batch, precision, ("ref_torchnn",))
        ratios[(batch, precision)] = ratio(dls, top and top["median"])
        cols = [str(batch), precision, fmt(dls),
                f"{fmt(top['median'])} ({top['variant']})" if top else "- (no PyTorch row)",
                f"**{ratios[(batch, precision)]:.2f}×**" if ratios[(batch, precision)] else "-",
                fmt(waiting),
                f"{fmt(top_waiting['median'])} ({top_waiting['variant']})" if top_waiting else "-",
                f"{ratio(waiting, top_waiting and top_waiting['median']):.2f}×"
                if ratio(waiting, top_waiting and top_waiting["median"]) else "-",
                fmt(ref and ref["median"]),
                f"{ratio(dls, ref and ref['median']):.2f}×" if ratio(dls, ref and ref["median"]) else "-"]
        print("| " + " | ".join(cols) + " |")
    print()
    measured = {k: v for k, v in ratios.items() if v}
    if len(measured) < 4:
        print(f"targets: only {len(measured)} of the 4 cells have both figures")
    at_least_1 = [f"b{b} {p} {v:.2f}×" for (b, p), v in sorted(measured.items()) if v < 1.0]
    print("target ≥ 1.0× the best PyTorch variant in every cell: " +
          ("met" if measured and not at_least_1 else "NOT met (" + (", ".join(at_least_1) or "no figures") + ")"))
    b64 = {k: v for k, v in measured.items() if k[0] == 64}
    short = [f"{p} {v:.2f}×" for (b, p), v in sorted(b64.items()) if v < 1.3]
    print("target ≥ 1.3× at batch 64: " +
          ("met" if b64 and not short else "NOT met (" + (", ".join(short) or "no figures") + ")"))
    for batch in sorted({b for b, _ in cells}):
        fp32, bf16 = cells.get((batch, "fp32")), cells.get((batch, "bf16"))
        if fp32 and bf16:
            verdict = "met" if bf16["median"] >= fp32["median"] else "NOT met"
            print(f"target bf16 ≥ fp32 for dls at batch {batch}: {verdict} "
                  f"({fmt(bf16['median'])} against {fmt(fp32['median'])} pairs/s)")
    lever_table(args.lever_off, cells)
    failed = [r for r in rows if "error" in r]
    for r in failed:
        print(f"PyTorch {r['variant']} b{r['batch']} {r['precision']}: {r['error']}")
    if args.trainer:
        trainer = (last_json(args.trainer) or {}).get("pairs_per_s")
        bf16 = sorted(k for k in cells if k[1] == "bf16")
        bench = cells[bf16[0]]["median"] if bf16 else None
        if trainer and bench:
            print(f"trainer {trainer:,.0f} pairs/s (wall clock) against dls_bench {bench:,.0f} (batch {bf16[0][0]}, "
                  f"bf16): {100 * (trainer / bench - 1):+.1f} % (target: within 15 %)")
        else:
            print(f"trainer against dls_bench: a figure is missing ({trainer}, {bench})")
    for item in args.lecture:
        lever, _, path = item.partition("=")
        rate = (last_json(path) or {}).get("median")
        if rate:
            minutes = LECTURE_EPOCHS * LECTURE_PAIRS_PER_EPOCH / rate / 60
            print(f"lecture model {lever}: {rate:,.0f} pairs/s, {LECTURE_EPOCHS} epochs of "
                  f"{LECTURE_PAIRS_PER_EPOCH:,} pairs: {minutes:.1f} min of steps")
        else:
            print(f"lecture model {lever}: no rate in {path}")


if __name__ == "__main__":
    main()
