#!/usr/bin/python3
"""Fixtures of tests/models/dlstudio_reference_test.cpp: DLStudio-style models (see
dlstudio_style.py) with their weights, a batch and the log-probabilities they compute.

    /usr/bin/python3 tests/python/make_reference_fixtures.py            # write the fixtures
    /usr/bin/python3 tests/python/make_reference_fixtures.py --self-check

One file per layout, tests/fixtures/dlstudio_reference/<layout>.pt, written by torch.save
(zip format) as a plain dict (LibTorch's torch::pickle_load reads it):
  config      {"embedding_size", "num_heads", "max_seq_length", "ffn_multiplier",
               "num_encoders", "num_decoders", "src_vocab_size", "tgt_vocab_size"} (ints)
  state_dict  {parameter name: tensor}; the names are the C++ named_parameters()
  src, tgt    [B, L] int64 token ids (SOS ... EOS, padded with EOS as DLStudio does)
  log_probs   {"FG": [B, L-1, V], "PreLN": [B, L-1, V]} float32: target positions 1..L-1
              from DLStudio's per-prefix decoder loop, the same weights in both variants.
The PreLN reference uses the masked decoder input, as the C++ port does: DLStudio's
TransformerPreLN decoder computes the masked input and then goes on with the unmasked one
(so its layers after the first see the future target rows); --self-check reports how much
that changes the log-probabilities.

Sizes (small, so that the files stay small): the flattened layout with M = 8, H = 2; the
position-wise layout with M = 16, H = 4, FFN 4M; both L = 6, 2 encoders, 2 decoders,
vocabularies 23 and 29, a batch of 4.
"""
import argparse
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import decoding  # noqa: E402
import dlstudio_style as dls_py  # noqa: E402
import synthetic  # noqa: E402
import torchnn_style as tnn  # noqa: E402

DEFAULT_OUT = HERE.parent / "fixtures" / "dlstudio_reference"
LAYOUTS = {
    "dlstudio": dict(embedding_size=8, num_heads=2),
    "positionwise": dict(embedding_size=16, num_heads=4),
}
COMMON = dict(max_seq_length=6, ffn_multiplier=4, num_encoders=2, num_decoders=2,
              src_vocab_size=23, tgt_vocab_size=29)
BATCH = 4


def build(layout, variant, config, preln_mask_bug=False):
    sizes = dls_py.Sizes(layout=layout, variant=variant,
                         embedding_size=config["embedding_size"],
                         num_heads=config["num_heads"],
                         max_seq_length=config["max_seq_length"],
                         ffn_mult=config["ffn_multiplier"], preln_mask_bug=preln_mask_bug)
    return dls_py.Seq2SeqModules(sizes, config["num_encoders"], config["num_decoders"],
                                 config["src_vocab_size"], config["tgt_vocab_size"])


def random_weights(model):
    """The model's default initialisation with its LayerNorm affines moved away from 1 and
    0, so that a LayerNorm whose weights went to the wrong place cannot go unnoticed."""
    with torch.no_grad():
        for name, tensor in model.named_parameters():
            if ".norm" in name:
                tensor.copy_((1.0 if name.endswith("weight") else 0.0)
                             + 0.2 * torch.randn_like(tensor))
    return {name: t.detach().clone() for name, t in model.state_dict().items()}


def log_probs_of(model, src, tgt):
    """DLStudio's forward; rows 1..L-1 of its float64 [B, L, V] output, as float32."""
    with torch.no_grad():
        predicted_word_logprobs, _ = model(src, tgt)
    return predicted_word_logprobs[:, 1:].float().contiguous()


def fixture(layout, seed):
    config = dict(LAYOUTS[layout], **COMMON)
    torch.manual_seed(seed)
    state_dict = random_weights(build(layout, "FG", config))
    src, tgt = synthetic.sentence_pairs(seed, 1, BATCH, config["max_seq_length"],
                                        config["src_vocab_size"], config["tgt_vocab_size"],
                                        first_word=2, pad=dls_py.EOS)[0]
    log_probs = {}
    for variant in ("FG", "PreLN"):
        model = build(layout, variant, config)
        model.load_state_dict(state_dict)
        log_probs[variant] = log_probs_of(model, src, tgt)
    return {"config": config, "state_dict": state_dict, "src": src, "tgt": tgt,
            "log_probs": log_probs}


def write_fixtures(out_dir, seed):
    out_dir.mkdir(parents=True, exist_ok=True)
    for layout in LAYOUTS:
        path = out_dir / f"{layout}.pt"
        torch.save(fixture(layout, seed), path)
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


# ---- self-check ------------------------------------------------------------------------

def check(condition, message):
    print(("ok    " if condition else "FAIL  ") + message)
    return bool(condition)


def check_slides_counts():
    """DLStudio's slides: M = 256, L = 10, H = 4, 4 + 4 layers, 21,823 Spanish words."""
    sizes = dls_py.Sizes(layout="dlstudio", variant="FG", embedding_size=256, num_heads=4,
                         max_seq_length=10)
    encoder = dls_py.parameter_count(dls_py.MasterEncoder(sizes, 4))
    decoder = dls_py.parameter_count(dls_py.MasterDecoderWithMasking(sizes, 4, 21823))
    return (check(encoder == (124583936, 128), f"MasterEncoder {encoder}, slides (124583936, 128)")
            & check(decoder == (149886015, 234),
                    f"MasterDecoder {decoder}, slides (149886015, 234)"))


def check_decoding(name, step, src, max_len, sos, eos, teacher_forced):
    """Greedy picks the argmax of the teacher-forced prediction at every position up to
    its row's first EOS; beam search with one beam is greedy."""
    with torch.no_grad():
        greedy = decoding.greedy(step, src.size(0), max_len, sos, eos)
        beam1 = decoding.beam_search(step, src.size(0), 1, max_len, sos, eos)
        forced = teacher_forced(greedy).argmax(-1)  # [B, t-1]
    words = greedy[:, 1:]
    live = (words == eos).long().cumsum(1) - (words == eos).long() == 0  # up to first EOS
    agree = torch.equal(forced[live], words[live])
    return (check(agree, f"{name}: greedy = teacher-forced argmax ({int(live.sum())} words)")
            & check(torch.equal(beam1, greedy), f"{name}: beam search with K = 1 = greedy"))


def check_both_decoders():
    torch.manual_seed(3)
    L = 8
    ok = True
    for layout in LAYOUTS:
        model = build(layout, "FG", dict(LAYOUTS[layout], **dict(COMMON, max_seq_length=L)))
        src = synthetic.sentence_pairs(5, 1, 6, L, 23, 29, 2, dls_py.EOS)[0][0]

        def forced(tokens, model=model, src=src):
            stub = torch.full((tokens.size(0), L - tokens.size(1)), dls_py.EOS)
            return log_probs_of(model, src, torch.cat((tokens, stub), 1))[:, :tokens.size(1) - 1]

        ok &= check_decoding(f"dlstudio/{layout}", dls_py.prefix_stepper(model, src), src, L,
                             dls_py.SOS, dls_py.EOS, forced)
    model = tnn.Seq2SeqTransformer(23, 29, 16, 4, 2, 2, 2, 0.1, L).eval()
    src = synthetic.sentence_pairs(5, 1, 6, L, 23, 29, 3, tnn.PAD)[0][0]
    ok &= check_decoding("torchnn", tnn.prefix_stepper(model, src), src, L, tnn.SOS, tnn.EOS,
                         lambda tokens: model(src, tokens[:, :-1]))
    return ok


def check_fixtures(out_dir, seed):
    """The files are what this script writes; DLStudio's PreLN masking bug matters."""
    ok = True
    for layout in LAYOUTS:
        path = out_dir / f"{layout}.pt"
        fresh = fixture(layout, seed)
        if path.exists():
            saved = torch.load(path)
            same = (saved["config"] == fresh["config"]
                    and saved["state_dict"].keys() == fresh["state_dict"].keys()
                    and all(torch.equal(saved["state_dict"][k], fresh["state_dict"][k])
                            for k in fresh["state_dict"])
                    and all(torch.equal(saved[k], fresh[k]) for k in ("src", "tgt"))
                    and all(torch.allclose(saved["log_probs"][v], fresh["log_probs"][v],
                                           rtol=0, atol=1e-6) for v in ("FG", "PreLN")))
            ok &= check(same, f"{path.name} matches a fresh run")
        buggy = build(layout, "PreLN", fresh["config"], preln_mask_bug=True)
        buggy.load_state_dict(fresh["state_dict"])
        diff = (log_probs_of(buggy, fresh["src"], fresh["tgt"])
                - fresh["log_probs"]["PreLN"]).abs().max().item()
        ok &= check(diff > 1e-3, f"{layout}: DLStudio's unmasked PreLN decoder input changes "
                                 f"the log-probs by up to {diff:.4f}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--self-check", action="store_true",
                        help="check parameter counts, decoding and the fixtures; write nothing")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.self_check:
        write_fixtures(args.out, args.seed)
        return 0
    ok = check_slides_counts()
    ok &= check_both_decoders()
    ok &= check_fixtures(args.out, args.seed)
    print("self-check passed" if ok else "self-check FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
