"""Batched greedy and beam-search decoding over a `step` function, shared by both impls.

step(prefixes [R, t] int64, copies) -> log-probabilities [R, V] of word t of every row,
where row r translates sentence r // copies. Same algorithms as the C++ dls::eval ones:
greedy stops when every row has produced EOS; beam search keeps K rows per sentence, a
finished row continues with EOS at no cost, no length penalty.
"""
import torch


def greedy(step, batch, max_len, sos, eos):
    """-> tokens [B, t] (SOS first), t <= max_len."""
    tokens = torch.full((batch, 1), sos, dtype=torch.long)
    finished = torch.zeros(batch, dtype=torch.bool)
    while tokens.size(1) < max_len:
        words = step(tokens, 1).argmax(-1)
        words.masked_fill_(finished, eos)
        tokens = torch.cat((tokens, words.unsqueeze(1)), dim=1)
        finished |= words == eos
        if bool(finished.all()):
            break
    return tokens


def beam_search(step, batch, beams, max_len, sos, eos):
    """-> the best of `beams` hypotheses per sentence, tokens [B, t] (SOS first)."""
    log_probs = step(torch.full((batch, 1), sos, dtype=torch.long), 1)  # [B, V]
    vocab = log_probs.size(1)
    beams = min(beams, vocab)
    scores, words = log_probs.topk(beams, dim=-1)  # [B, K]
    tokens = torch.cat((torch.full((batch * beams, 1), sos, dtype=torch.long),
                        words.reshape(-1, 1)), dim=1)
    finished = words.reshape(-1) == eos  # [B*K]
    eos_only = torch.full((vocab,), float("-inf"))
    eos_only[eos] = 0.0
    row_base = (torch.arange(batch) * beams).unsqueeze(1)  # [B, 1]
    while tokens.size(1) < max_len and not bool(finished.all()):
        log_probs = torch.where(finished.unsqueeze(1), eos_only.unsqueeze(0),
                                step(tokens, beams))
        candidates = (scores.reshape(-1, 1) + log_probs).view(batch, beams * vocab)
        scores, index = candidates.topk(beams, dim=-1)  # [B, K]
        rows = (row_base + torch.div(index, vocab, rounding_mode="floor")).reshape(-1)
        word = index.remainder(vocab).reshape(-1)
        finished = finished[rows] | (word == eos)
        tokens = torch.cat((tokens[rows], word.unsqueeze(1)), dim=1)
    choice = scores.argmax(-1) + torch.arange(batch) * beams  # [B]
    return tokens[choice]
