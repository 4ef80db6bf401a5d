"""The same tasks written the way a PyTorch user writes them (impl "torchnn").

Seq2seq: nn.Transformer (batch_first, norm_first for PreLN) with token embeddings scaled
by sqrt(M) plus a sinusoidal positional encoding, an output Linear and log_softmax, a
causal mask and key-padding masks, the loss ignoring PAD (PyTorch's translation tutorial).
ViT: Conv2d patch embedding, class token and positional embedding parameters,
nn.TransformerEncoder (post-LN or pre-LN), the DLStudio head on the class token.

Token ids: SOS = 0, EOS = 1, PAD = 2, words from 3.
"""
import math

import torch
import torch.nn as nn

SOS, EOS, PAD = 0, 1, 2


class PositionalEncoding(nn.Module):
    """Adds PE[pos, 2i] = sin(pos / 10000^(2i/M)), PE[pos, 2i+1] = cos(...), then dropout."""

    def __init__(self, embedding_size, max_len, dropout):
        super().__init__()
        position = torch.arange(max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, embedding_size, 2, dtype=torch.float)
                             * (-math.log(10000.0) / embedding_size))
        pe = torch.zeros(max_len, embedding_size)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))  # [1, L, M]
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):  # [B, T, M]
        return self.dropout(x + self.pe[:, :x.size(1)])


class Seq2SeqTransformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, embedding_size=256, heads=4, encoders=3,
                 decoders=3, ffn_mult=4, dropout=0.1, max_len=10, pre_ln=False):
        super().__init__()
        self.embedding_size = embedding_size
        self.src_embedding = nn.Embedding(src_vocab, embedding_size, padding_idx=PAD)
        self.tgt_embedding = nn.Embedding(tgt_vocab, embedding_size, padding_idx=PAD)
        self.positional_encoding = PositionalEncoding(embedding_size, max_len, dropout)
        self.transformer = nn.Transformer(
            d_model=embedding_size, nhead=heads, num_encoder_layers=encoders,
            num_decoder_layers=decoders, dim_feedforward=ffn_mult * embedding_size,
            dropout=dropout, batch_first=True, norm_first=pre_ln)
        self.generator = nn.Linear(embedding_size, tgt_vocab)

    def embed(self, embedding, tokens):
        return self.positional_encoding(embedding(tokens) * math.sqrt(self.embedding_size))

    def encode(self, src):  # [B, L] -> memory [B, L, M], source padding [B, L]
        src_padding = src == PAD
        memory = self.transformer.encoder(self.embed(self.src_embedding, src),
                                          src_key_padding_mask=src_padding)
        return memory, src_padding

    def decode(self, tgt, memory, src_padding):  # prefix [B, T] -> hidden states [B, T, M]
        causal = self.transformer.generate_square_subsequent_mask(tgt.size(1)).to(tgt.device)
        return self.transformer.decoder(self.embed(self.tgt_embedding, tgt), memory,
                                        tgt_mask=causal, tgt_key_padding_mask=tgt == PAD,
                                        memory_key_padding_mask=src_padding)

    def log_probs(self, hidden):  # [..., M] -> [..., V]
        return torch.log_softmax(self.generator(hidden), dim=-1)

    def forward(self, src, tgt_in):  # -> log-probs [B, T, V]
        memory, src_padding = self.encode(src)
        return self.log_probs(self.decode(tgt_in, memory, src_padding))


def make_seq2seq_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)


def seq2seq_train_step(model, optimizer, criterion, src, tgt):
    """Teacher forcing: predict tgt[:, 1:] from tgt[:, :-1]; criterion ignores PAD."""
    log_probs = model(src, tgt[:, :-1])
    optimizer.zero_grad()
    loss = criterion(log_probs.reshape(-1, log_probs.size(-1)), tgt[:, 1:].reshape(-1))
    loss.backward()
    optimizer.step()
    return loss.item()


def prefix_stepper(model, src):
    """Encoder once; then step(prefixes [R, t], copies) -> log-probs [R, V] of the next
    word, where row r belongs to sentence r // copies and the decoder runs on the whole
    prefix (the tutorial's way: no key/value cache)."""
    memory, src_padding = model.encode(src)
    repeated = {}

    def step(prefix, copies=1):
        if copies not in repeated:  # the encoder output of each sentence, once per copy
            repeated[copies] = (memory.repeat_interleave(copies, dim=0),
                                src_padding.repeat_interleave(copies, dim=0))
        mem, pad = repeated[copies]
        return model.log_probs(model.decode(prefix, mem, pad)[:, -1])

    return step


class ViT(nn.Module):
    def __init__(self, image_size=28, channels=1, patch_size=4, embedding_size=128, heads=4,
                 encoders=6, ffn_mult=2, dropout=0.1, num_classes=10, pre_ln=False,
                 stem=""):
        super().__init__()
        # Optional early convolutions (Conv2d 3x3, padding 1 -> GELU) before the patches are
        # cut: "32,64/2" is 32 channels at stride 1, then 64 at stride 2.
        layers, size = [], image_size
        for spec in filter(None, stem.split(",")):
            out_channels, stride = (int(v) for v in (spec.split("/") + ["1"])[:2])
            layers += [nn.Conv2d(channels, out_channels, 3, stride, padding=1), nn.GELU()]
            channels, size = out_channels, (size - 1) // stride + 1
        self.stem = nn.Sequential(*layers)
        num_patches = (size // patch_size) ** 2
        self.patch_embedding = nn.Conv2d(channels, embedding_size,
                                         kernel_size=patch_size, stride=patch_size)
        self.class_token = nn.Parameter(torch.zeros(1, 1, embedding_size))
        self.position_embedding = nn.Parameter(
            torch.randn(1, num_patches + 1, embedding_size) * 0.02)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(embedding_size, heads, ffn_mult * embedding_size,
                                           dropout, batch_first=True, norm_first=pre_ln)
        self.encoder = nn.TransformerEncoder(
            layer, encoders, norm=nn.LayerNorm(embedding_size) if pre_ln else None)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(embedding_size, 512), nn.ReLU(),
                                  nn.Linear(512, num_classes))

    def forward(self, images):  # [B, C, H, W] -> logits [B, classes]
        x = self.patch_embedding(self.stem(images)).flatten(2).transpose(1, 2)  # [B, P, M]
        x = torch.cat((self.class_token.expand(x.size(0), -1, -1), x), dim=1)
        x = self.encoder(self.dropout(x + self.position_embedding))
        return self.head(x[:, 0])


def make_vit_optimizer(vit):
    return torch.optim.AdamW(vit.parameters(), lr=3e-4, weight_decay=0.05)


def vit_train_step(vit, optimizer, criterion, images, labels):
    optimizer.zero_grad()
    loss = criterion(vit(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
