"""Synthetic inputs with fixed seeds: sentence pairs of token ids and random images."""
import torch


def sentences(generator, batch, max_len, vocab, first_word, pad):
    """[B, L] int64: SOS(0) w_1 .. w_n EOS(1) then `pad`, n uniform in 1 .. L-2,
    words uniform in first_word .. vocab-1."""
    tokens = torch.full((batch, max_len), pad, dtype=torch.long)
    tokens[:, 0] = 0
    lengths = torch.randint(1, max_len - 1, (batch,), generator=generator)
    words = torch.randint(first_word, vocab, (batch, max_len), generator=generator)
    positions = torch.arange(max_len).unsqueeze(0)  # [1, L]
    is_word = (positions >= 1) & (positions <= lengths.unsqueeze(1))
    tokens = torch.where(is_word, words, tokens)
    tokens[torch.arange(batch), lengths + 1] = 1  # EOS
    return tokens


def sentence_pairs(seed, count, batch, max_len, src_vocab, tgt_vocab, first_word, pad):
    """`count` batches of (source, target) token ids [B, L]."""
    generator = torch.Generator().manual_seed(seed)
    return [(sentences(generator, batch, max_len, src_vocab, first_word, pad),
             sentences(generator, batch, max_len, tgt_vocab, first_word, pad))
            for _ in range(count)]


def images(seed, count, batch, channels, size, classes):
    """`count` batches of (images [B, C, H, W] in [-1, 1], labels [B])."""
    generator = torch.Generator().manual_seed(seed)
    return [(torch.rand(batch, channels, size, size, generator=generator) * 2 - 1,
             torch.randint(0, classes, (batch,), generator=generator))
            for _ in range(count)]
