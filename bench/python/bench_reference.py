#!/usr/bin/python3
"""Throughput of the Python reference implementations, one JSON object on stdout.

    /usr/bin/python3 bench/python/bench_reference.py --impl dlstudio --task seq2seq-train \
        --layout dlstudio --variant FG --embedding-size 256 --heads 4 --encoders 4 \
        --decoders 4 --max-len 10 --batch 50 --src-vocab 11258 --tgt-vocab 21823

impl "dlstudio": DLStudio's classes as DLStudio writes them (dlstudio_style.py);
impl "torchnn": nn.Transformer / nn.TransformerEncoder as a PyTorch user writes them
(torchnn_style.py). Tasks, and what one step is:
  seq2seq-train   forward + backward + optimizer step on a batch of sentence pairs
  seq2seq-greedy  greedy translation of a fixed batch of sentences
  seq2seq-beam    beam-search translation of the same batch
  vit-train       forward + backward + optimizer step on a batch of images
  vit-infer       forward of a batch of images, eval mode, no_grad
Each of --repeats repeats times --iters steps (after --warmup untimed steps) and reports
items/s (pairs, sentences or images). Progress goes to stderr. --device cuda (impl torchnn)
runs on the GPU, the clock read after torch.cuda.synchronize(); --precision bf16 runs the
steps under autocast, as a PyTorch user would.
"""
import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn

# The models, data and decoding it times are the test oracles' (tests/python).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))
import decoding  # noqa: E402
import dlstudio_style as dls_py  # noqa: E402
import synthetic  # noqa: E402
import torchnn_style as tnn  # noqa: E402

TASKS = ("seq2seq-train", "seq2seq-greedy", "seq2seq-beam", "vit-train", "vit-infer")
UNITS = {"seq2seq-train": "pairs/s", "seq2seq-greedy": "sentences/s",
         "seq2seq-beam": "sentences/s", "vit-train": "images/s", "vit-infer": "images/s"}
DATA_BATCHES = 4  # training cycles through a few distinct batches


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add = parser.add_argument
    add("--impl", choices=("dlstudio", "torchnn"), required=True)
    add("--task", choices=TASKS, required=True)
    add("--layout", choices=("dlstudio", "positionwise"),
        help="dlstudio impl: default dlstudio (seq2seq), positionwise (vit)")
    add("--variant", choices=("FG", "PreLN"), default="FG")
    add("--embedding-size", type=int, default=256)
    add("--heads", type=int, default=4)
    add("--encoders", type=int, default=4)
    add("--decoders", type=int, default=4)
    add("--max-len", type=int, default=10, help="L, SOS and EOS included")
    add("--batch", type=int, default=50)
    add("--src-vocab", type=int, default=11258)
    add("--tgt-vocab", type=int, default=21823)
    add("--ffn-mult", type=int, default=4, help="FFN width / M (not the flattened layout)")
    add("--dropout", type=float, default=0.1, help="torchnn only (DLStudio has none)")
    add("--beam", type=int, default=4)
    add("--image-size", type=int, default=32)
    add("--channels", type=int, default=3)
    add("--patch", type=int, default=8)
    add("--classes", type=int, default=10)
    add("--stem", default="", help="torchnn ViT: 3x3 convolution stem, CHANNELS[/STRIDE] per layer, e.g. 32,64/2")
    add("--threads", type=int, default=2)
    add("--warmup", type=int, default=1)
    add("--repeats", type=int, default=3)
    add("--iters", type=int, default=2)
    add("--seed", type=int, default=0)
    add("--device", choices=("cpu", "cuda"), default="cpu", help="cuda: impl torchnn only")
    add("--precision", choices=("fp32", "bf16"), default="fp32", help="bf16: autocast")
    args = parser.parse_args(argv)
    if args.device == "cuda" and args.impl != "torchnn":
        parser.error("--device cuda: only --impl torchnn moves its tensors to the GPU")
    if args.layout is None:
        args.layout = "positionwise" if args.task.startswith("vit") else "dlstudio"
    return args


def config_of(args):
    """The settings that matter for the chosen impl and task (for the JSON record)."""
    keys = ["variant", "embedding_size", "heads", "encoders", "batch", "threads", "seed", "device",
            "precision"]
    if args.impl == "dlstudio":
        keys.append("layout")
    if args.impl == "torchnn" or args.layout == "positionwise":
        keys.append("ffn_mult")
    if args.impl == "torchnn":
        keys.append("dropout")
    if args.task.startswith("seq2seq"):
        keys += ["decoders", "max_len", "src_vocab", "tgt_vocab"]
        if args.task == "seq2seq-beam":
            keys.append("beam")
    else:
        keys += ["image_size", "channels", "stem", "patch", "classes"]
    return {key: getattr(args, key) for key in keys}


# ---- seq2seq ---------------------------------------------------------------------------

def dlstudio_seq2seq(args):
    sizes = dls_py.Sizes(layout=args.layout, variant=args.variant,
                         embedding_size=args.embedding_size, num_heads=args.heads,
                         max_seq_length=args.max_len, ffn_mult=args.ffn_mult,
                         preln_mask_bug=True)  # DLStudio's code path (same cost)
    return dls_py.Seq2SeqModules(sizes, args.encoders, args.decoders, args.src_vocab,
                                 args.tgt_vocab)


def torchnn_seq2seq(args):
    return tnn.Seq2SeqTransformer(args.src_vocab, args.tgt_vocab, args.embedding_size,
                                  args.heads, args.encoders, args.decoders, args.ffn_mult,
                                  args.dropout, args.max_len,
                                  pre_ln=args.variant == "PreLN").to(args.device)


def pair_batches(args):
    # DLStudio pads with EOS and has no PAD; the torchnn model has PAD = 2.
    first_word, pad = (2, dls_py.EOS) if args.impl == "dlstudio" else (3, tnn.PAD)
    pairs = synthetic.sentence_pairs(args.seed + 1, DATA_BATCHES, args.batch, args.max_len,
                                     args.src_vocab, args.tgt_vocab, first_word, pad)
    return [(src.to(args.device), tgt.to(args.device)) for src, tgt in pairs]


def seq2seq_train(args):
    batches = pair_batches(args)
    if args.impl == "dlstudio":
        model = dlstudio_seq2seq(args)
        optimizers = dls_py.make_seq2seq_optimizers(model)
        criterion = nn.NLLLoss()

        def train(i):
            src, tgt = batches[i % len(batches)]
            dls_py.seq2seq_train_step(model, optimizers, criterion, src, tgt)
    else:
        model = torchnn_seq2seq(args)
        optimizer = tnn.make_seq2seq_optimizer(model)
        criterion = nn.NLLLoss(ignore_index=tnn.PAD)

        def train(i):
            src, tgt = batches[i % len(batches)]
            tnn.seq2seq_train_step(model, optimizer, criterion, src, tgt)
    model.train()
    return train


def seq2seq_decode(args):
    src = pair_batches(args)[0][0]
    model = dlstudio_seq2seq(args) if args.impl == "dlstudio" else torchnn_seq2seq(args)
    model.eval()
    sos, eos = (dls_py.SOS, dls_py.EOS) if args.impl == "dlstudio" else (tnn.SOS, tnn.EOS)

    def translate(_):
        with torch.no_grad():
            step = (dls_py if args.impl == "dlstudio" else tnn).prefix_stepper(model, src)
            if args.task == "seq2seq-greedy":
                return decoding.greedy(step, src.size(0), args.max_len, sos, eos)
            return decoding.beam_search(step, src.size(0), args.beam, args.max_len, sos, eos)

    return translate


# ---- vision transformer ----------------------------------------------------------------

def vit_task(args):
    batches = [(images.to(args.device), labels.to(args.device)) for images, labels in
               synthetic.images(args.seed + 1, DATA_BATCHES, args.batch, args.channels,
                                args.image_size, args.classes)]
    criterion = nn.CrossEntropyLoss()
    if args.impl == "dlstudio":
        vit = dls_py.visTransformer(args.image_size, args.channels, args.patch,
                                    args.embedding_size, args.encoders, args.heads,
                                    args.classes, layout=args.layout, ffn_mult=args.ffn_mult,
                                    variant=args.variant)
        patches = vit.make_patch_embedding_generator()
        if args.task == "vit-infer":
            forward = lambda images: vit(vit.embed_images(patches, images))  # noqa: E731
        else:
            optimizer = dls_py.make_vit_optimizer(vit)
            train = lambda images, labels: dls_py.vit_train_step(  # noqa: E731
                vit, patches, optimizer, criterion, images, labels)
        modules = (vit, patches)
    else:
        vit = tnn.ViT(args.image_size, args.channels, args.patch, args.embedding_size,
                      args.heads, args.encoders, args.ffn_mult, args.dropout, args.classes,
                      pre_ln=args.variant == "PreLN", stem=args.stem).to(args.device)
        if args.task == "vit-infer":
            forward = vit
        else:
            optimizer = tnn.make_vit_optimizer(vit)
            train = lambda images, labels: tnn.vit_train_step(  # noqa: E731
                vit, optimizer, criterion, images, labels)
        modules = (vit,)
    if args.task == "vit-infer":
        for module in modules:
            module.eval()

        def infer(i):
            with torch.no_grad():
                return forward(batches[i % len(batches)][0]).argmax(-1)
        return infer
    for module in modules:
        module.train()
    return lambda i: train(*batches[i % len(batches)])


# ---- measurement -----------------------------------------------------------------------

def rss_mb():
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def measure(args, step):
    def sync():
        if args.device == "cuda":
            torch.cuda.synchronize()

    def run(i):
        with torch.autocast(args.device, dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            step(i)

    for i in range(args.warmup):
        run(i)
    samples, rss_after = [], []
    for repeat in range(args.repeats):
        sync()
        start = time.perf_counter()
        for i in range(args.iters):
            run(args.warmup + repeat * args.iters + i)
        sync()
        elapsed = time.perf_counter() - start
        samples.append(args.iters * args.batch / elapsed)
        rss_after.append(rss_mb())
        print(f"repeat {repeat + 1}/{args.repeats}: {samples[-1]:.3f} {UNITS[args.task]}",
              file=sys.stderr, flush=True)
    return samples, rss_after


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.task == "seq2seq-train":
        step = seq2seq_train(args)
    elif args.task.startswith("seq2seq"):
        step = seq2seq_decode(args)
    else:
        step = vit_task(args)
    samples, rss_after = measure(args, step)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({
        "impl": args.impl, "task": args.task, "config": config_of(args),
        "unit": UNITS[args.task], "median": statistics.median(samples),
        "min": min(samples), "max": max(samples), "samples": samples,
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "rss_growth_mb": round(rss_after[-1] - rss_after[0], 1),
        "torch_version": torch.__version__, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
