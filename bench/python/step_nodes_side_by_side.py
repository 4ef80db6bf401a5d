#!/usr/bin/env python3
"""The autograd nodes of one training step, this project's against PyTorch's, by name.

On a GPU each node of backward launches its kernels, so where the two steps differ in their
nodes is where their kernel counts differ. The PyTorch side is the anchor's step
(`pytorch_step.py`, the `cpu` preset's shapes and recipe: forward, loss, backward; its clipping
and AdamW left out, as both sides' optimizers are a few multi-tensor kernels on a GPU), run on
the CPU under the profiler: its nodes in 3 steps minus those in 1, halved. The project's side
is one step of `dls_bench --task seq2seq-train --preset cpu --cuda-graphs --plain-bmm` (the
program a GPU records, run eagerly on the CPU, attention's products by torch::matmul as on a
GPU) from its `--profile` table. Both with Debian's PyTorch 1.13, whose attention is the
plain path on both sides (a GPU's LibTorch 2.x fuses it on both).

    /usr/bin/python3 bench/python/step_nodes_side_by_side.py ../shared/anchors/pytorch_step.py \
        build/bench/dls_bench [--batch 8]
"""
import argparse
import collections
import contextlib
import importlib.util
import io
import re
import subprocess
import sys

# A node backward ran (RecordScope::BACKWARD_FUNCTION): "AddmmBackward0", "torch::autograd::
# AccumulateGrad", a custom function's "torch::autograd::CppNode<...>". Not the engine's
# "autograd::engine::evaluate_function: ..." records, which also stand for nodes it skipped (a
# parameter's AccumulateGrad when torch::autograd::grad returns its gradient instead).
NODE = re.compile(r"Backward\d*$|^torch::autograd::")
WIDTH = 60  # dls_bench --profile cuts names at this width


def anchor_nodes(anchor_path, batch):
    """{node name: count} of one step of the anchor's eager_fused_nosync variant on the CPU."""
    import torch

    spec = importlib.util.spec_from_file_location("pytorch_step", anchor_path)
    anchor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anchor)

    def outside_the_step(fn):  # the optimizer and clipping: marked, their nodes (none) and ops left out
        def wrapped(*args, **kwargs):
            with torch.autograd.profiler.record_function("OPTIMIZER"):
                return fn(*args, **kwargs)
        return wrapped

    torch.optim.AdamW.step = outside_the_step(torch.optim.AdamW.step)
    torch.nn.utils.clip_grad_norm_ = outside_the_step(torch.nn.utils.clip_grad_norm_)

    def counted(iters):
        sys.argv = ["pytorch_step.py", "--device", "cpu", "--worker", "eager_fused_nosync", "--batches",
                    str(batch), "--precisions", "fp32", "--repeats", "1", "--iters", str(iters), "--warmup", "1"]
        with torch.autograd.profiler.profile() as prof, contextlib.redirect_stdout(io.StringIO()):
            anchor.main()
        return collections.Counter(event.name[:WIDTH] for event in prof.function_events if event.scope == 1)

    one, three = counted(1), counted(3)
    return {name: (three[name] - one[name]) // 2 for name in set(one) | set(three) if three[name] != one[name]}


def dls_nodes(dls_bench, batch):
    """{node name (cut as --profile prints it): count} of one dls_bench step."""
    command = [dls_bench, "--task", "seq2seq-train", "--preset", "cpu", "--batch", str(batch), "--cuda-graphs",
               "--plain-bmm", "--workers", "1", "--warmup", "1", "--repeats", "1", "--iters", "1", "--profile", "1000"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stderr  # where the table goes
    nodes = collections.Counter()
    in_table = False
    for line in out.splitlines():
        if line.startswith("operator ") and "calls" in line:  # the --profile table's header
            in_table = True
            continue
        name, fields = line[:WIDTH].strip(), line[WIDTH:].split()
        if not in_table or not fields or not fields[0].isdigit():
            continue
        if NODE.search(name) and not name.startswith("autograd::engine::"):
            nodes[name] += int(fields[0])  # the "calls" column
    return nodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("anchor", help="pytorch_step.py")
    parser.add_argument("dls_bench", help="the dls_bench program")
    parser.add_argument("--batch", type=int, default=8, help="the counts do not depend on it")
    args = parser.parse_args()
    ours = dls_nodes(args.dls_bench, args.batch)
    theirs = anchor_nodes(args.anchor, args.batch)
    names = sorted(set(ours) | set(theirs), key=lambda n: (-max(ours.get(n, 0), theirs.get(n, 0)), n))
    print(f"| autograd node (one step, batch {args.batch}) | dls | PyTorch | dls - PyTorch |")
    print("| --- | --- | --- | --- |")
    for name in names:
        a, b = ours.get(name, 0), theirs.get(name, 0)
        print(f"| {name} | {a} | {b} | {a - b:+d} |")
    print(f"| all | {sum(ours.values())} | {sum(theirs.values())} | {sum(ours.values()) - sum(theirs.values()):+d} |")


if __name__ == "__main__":
    main()
