"""DLStudio's Transformers classes as DLStudio writes them, in plain PyTorch.

The Python side of the benchmarks (impl "dlstudio") and the reference of the numerical
cross-check with the C++ modules (make_reference_fixtures.py). The code paths are
DLStudio's own, inefficiencies included, because they ARE the reference:

- every attention layer loops over its heads in Python, each head slicing its s = M/H
  columns, writing into a freshly allocated zeros tensor;
- 1/sqrt(s) is applied after softmax(Q K^T) V, built from a new tensor on every call;
- the positional encoding is recomputed on every call, in float64 (DLStudio's
  `dtype=float`), and callers convert the result with `.float()`;
- the decoder stack runs once per prefix k = 1 .. L-1, each time on the target with the
  rows >= k zeroed (every layer zeroes them again at its input), and the per-position
  log-probabilities are gathered into a float64 [B, L, V] tensor.

Two layouts from DLStudio's history:
- "dlstudio" (sequence-flattened, the slides' results): WQ/WK/WV = Linear(L*s, L*s) on a
  head's flattened slice, FFN Linear(L*M, 2*L*M) -> ReLU -> Linear(2*L*M, L*M) on the
  flattened sentence;
- "positionwise" (DLStudio >= 2.5): WQ/WK/WV = Linear(s, s) per position, FFN
  Linear(M, f*M) -> ReLU -> Linear(f*M, M) (DLStudio: f = 4).

Attribute names are DLStudio's except `embedding` (DLStudio: `embed`), so that
state_dict() keys equal the C++ named_parameters() (DLStudio's names throughout there).

Softmax axis: DLStudio 2.5 normalises over the keys (nn.Softmax(dim=-1)), as here and in
the C++ port. Its earlier flattened-layout releases had nn.Softmax(dim=1), i.e. over the
queries; the cost is the same either way.
"""
import torch
import torch.nn as nn

SOS, EOS = 0, 1  # DLStudio's vocabularies start with 'SOS', 'EOS'; no PAD, no UNK


class Sizes:
    """What DLStudio keeps on its `xformer` object: layout, variant and sizes."""

    def __init__(self, layout="dlstudio", variant="FG", embedding_size=256, num_heads=4,
                 max_seq_length=10, ffn_mult=4, preln_mask_bug=False, qkv_bias=True):
        assert layout in ("dlstudio", "positionwise"), layout
        assert variant in ("FG", "PreLN"), variant
        assert embedding_size % num_heads == 0
        self.layout = layout
        self.variant = variant
        self.embedding_size = embedding_size
        self.num_heads = num_heads
        self.qkv_size = embedding_size // num_heads
        self.max_seq_length = max_seq_length
        self.ffn_mult = ffn_mult
        # DLStudio's TransformerPreLN decoder computes the masked input and then uses the
        # unmasked one (layers after the first see future rows). True keeps that code path
        # (benchmarks: same cost); False uses the masked input, as the C++ port does.
        self.preln_mask_bug = preln_mask_bug
        # DLStudio's visTransformer heads have bias=False; the seq2seq heads have biases.
        self.qkv_bias = qkv_bias

    @property
    def flattened(self):
        return self.layout == "dlstudio"


class EmbeddingsGenerator(nn.Module):
    """nn.Embedding then the sinusoidal positional encoding (no sqrt(M) scaling)."""

    def __init__(self, sizes, vocab_size):
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding_size = sizes.embedding_size
        self.max_seq_length = sizes.max_seq_length
        self.embedding = nn.Embedding(vocab_size, sizes.embedding_size)

    def forward(self, sentence_tensor):  # [B, L] int64 -> [B, L, M] float64
        word_embeddings = self.embedding(sentence_tensor)
        return self.apply_positional_encoding(word_embeddings)

    def apply_positional_encoding(self, sentence_tensor):
        # DLStudio: base 100 with exponent 2*(2i)/M, i.e. 10000^(2i/M); div_term is float32
        # (2.0 * an int64 arange), the encodings land in a float64 tensor.
        position_encodings = torch.zeros_like(sentence_tensor, dtype=float)
        word_positions = torch.arange(0, self.max_seq_length).unsqueeze(1)
        div_term = 1.0 / (100.0 ** (2.0 * torch.arange(0, self.embedding_size, 2)
                                    / float(self.embedding_size)))
        position_encodings[:, :, 0::2] = torch.sin(word_positions * div_term)
        position_encodings[:, :, 1::2] = torch.cos(word_positions * div_term)
        return sentence_tensor + position_encodings


class AttentionHead(nn.Module):
    """One head on its slice [B, L, s]: Z = softmax(Q K^T) V * (1/sqrt(s))."""

    def __init__(self, sizes):
        super().__init__()
        self.sizes = sizes
        self.qkv_size = sizes.qkv_size
        self.max_seq_length = sizes.max_seq_length
        width = sizes.max_seq_length * sizes.qkv_size if sizes.flattened else sizes.qkv_size
        self.WQ = nn.Linear(width, width, bias=sizes.qkv_bias)
        self.WK = nn.Linear(width, width, bias=sizes.qkv_bias)
        self.WV = nn.Linear(width, width, bias=sizes.qkv_bias)
        self.softmax = nn.Softmax(dim=-1)

    def project(self, linear, portion):
        if not self.sizes.flattened:
            return linear(portion)
        # [B, L, s] -> [B, L*s] -> Linear(L*s, L*s) -> [B, L, s]
        out = linear(portion.reshape(portion.shape[0], -1).float())
        return out.view(portion.shape[0], self.max_seq_length, self.qkv_size)

    def attend(self, query_portion, key_value_portion):
        Q = self.project(self.WQ, query_portion)
        K = self.project(self.WK, key_value_portion)
        V = self.project(self.WV, key_value_portion)
        A = K.transpose(2, 1)
        QK_dot_prod = Q @ A
        rowwise_softmax_normalizations = self.softmax(QK_dot_prod)
        Z = rowwise_softmax_normalizations @ V
        coeff = 1.0 / torch.sqrt(torch.tensor([self.qkv_size]).float())
        return coeff * Z

    def forward(self, sentence_portion):
        return self.attend(sentence_portion, sentence_portion)


class CrossAttentionHead(AttentionHead):
    """Q from the decoder's slice, K and V from the final encoder output's slice."""

    def forward(self, basic_decoder_slice, final_encoder_slice):
        return self.attend(basic_decoder_slice, final_encoder_slice)


class _Heads(nn.Module):
    """H heads of one class, each for a slice of s = M/H columns."""

    def __init__(self, sizes, head_class):
        super().__init__()
        self.max_seq_length = sizes.max_seq_length
        self.num_atten_heads = sizes.num_heads
        self.qkv_size = sizes.qkv_size
        self.attention_heads_arr = nn.ModuleList(
            [head_class(sizes) for _ in range(sizes.num_heads)])


class SelfAttention(_Heads):
    def __init__(self, sizes):
        super().__init__(sizes, AttentionHead)

    def forward(self, sentence_tensor):  # [B, L, M] -> [B, L, M]
        concat_out_from_atten_heads = torch.zeros(
            sentence_tensor.shape[0], self.max_seq_length,
            self.num_atten_heads * self.qkv_size).float()
        for i in range(self.num_atten_heads):
            columns = slice(i * self.qkv_size, (i + 1) * self.qkv_size)
            sentence_embed_slice = sentence_tensor[:, :, columns]
            concat_out_from_atten_heads[:, :, columns] = \
                self.attention_heads_arr[i](sentence_embed_slice)
        return concat_out_from_atten_heads


class CrossAttention(_Heads):
    def __init__(self, sizes):
        super().__init__(sizes, CrossAttentionHead)

    def forward(self, basic_decoder_out, final_encoder_out):  # [B, L, M] x2 -> [B, L, M]
        concat_out_from_atten_heads = torch.zeros(
            basic_decoder_out.shape[0], self.max_seq_length,
            self.num_atten_heads * self.qkv_size).float()
        for i in range(self.num_atten_heads):
            columns = slice(i * self.qkv_size, (i + 1) * self.qkv_size)
            concat_out_from_atten_heads[:, :, columns] = self.attention_heads_arr[i](
                basic_decoder_out[:, :, columns], final_encoder_out[:, :, columns])
        return concat_out_from_atten_heads


def ffn_widths(sizes):
    """(input, hidden) widths of W1: flattened sentence or per position."""
    if sizes.flattened:
        flat = sizes.max_seq_length * sizes.embedding_size
        return flat, 2 * flat
    return sizes.embedding_size, sizes.ffn_mult * sizes.embedding_size


class _Block(nn.Module):
    """What the encoder and decoder blocks share: sizes and the FFN (W1, ReLU, W2)."""

    def __init__(self, sizes):
        super().__init__()
        self.sizes = sizes
        self.embedding_size = sizes.embedding_size
        self.max_seq_length = sizes.max_seq_length

    def make_ffn(self):
        width, hidden = ffn_widths(self.sizes)
        self.W1 = nn.Linear(width, hidden)
        self.W2 = nn.Linear(hidden, width)

    def ffn(self, x):  # [B, L, M] -> [B, L, M]
        if self.sizes.flattened:
            x = x.view(x.shape[0], -1)
        out = self.W2(nn.ReLU()(self.W1(x)))
        return out.view(out.shape[0], self.max_seq_length, self.embedding_size)


class BasicEncoder(_Block):
    """FG: h = norm1(SA(x) + x); out = norm2(FFN(h) + h).
    PreLN: y = SA(norm1(x)) + x; out = FFN(norm2(y)) + y."""

    def __init__(self, sizes):
        super().__init__(sizes)
        self.self_attention_layer = SelfAttention(sizes)
        self.norm1 = nn.LayerNorm(sizes.embedding_size)
        self.make_ffn()
        self.norm2 = nn.LayerNorm(sizes.embedding_size)

    def forward(self, sentence_tensor):
        if self.sizes.variant == "FG":
            sentence_tensor = sentence_tensor.float()
            self_atten_out = self.self_attention_layer(sentence_tensor)
            normed_atten_out = self.norm1(self_atten_out + sentence_tensor)
            return self.norm2(self.ffn(normed_atten_out) + normed_atten_out)
        input_for_self_atten = sentence_tensor.float()
        normed_input_self_atten = self.norm1(input_for_self_atten)
        output_self_atten = self.self_attention_layer(normed_input_self_atten)
        input_for_FFN = output_self_atten + input_for_self_atten
        return self.ffn(self.norm2(input_for_FFN)) + input_for_FFN


class MasterEncoder(nn.Module):
    def __init__(self, sizes, num_basic_encoders):
        super().__init__()
        self.basic_encoder_arr = nn.ModuleList(
            [BasicEncoder(sizes) for _ in range(num_basic_encoders)])

    def forward(self, sentence_tensor):
        out_tensor = sentence_tensor
        for i in range(len(self.basic_encoder_arr)):
            out_tensor = self.basic_encoder_arr[i](out_tensor)
        return out_tensor


def apply_mask(sentence_tensor, mask):
    """DLStudio's masking: a copy with the rows at positions >= len(mask) zeroed."""
    out = torch.zeros_like(sentence_tensor).float()
    out[:, :len(mask), :] = sentence_tensor[:, :len(mask), :]
    return out


class BasicDecoderWithMasking(_Block):
    """FG: z = norm1(SA(x) + x); z2 = norm2(XA(z, enc)) (no residual, as DLStudio);
    out = norm3(FFN(z2) + z2).  PreLN: y = SA(norm1(x)) + x; y2 = XA(norm2(y), enc) + y;
    out = FFN(norm3(y2)) + y2.  x is the input with its future rows zeroed."""

    def __init__(self, sizes):
        super().__init__(sizes)
        self.self_attention_layer = SelfAttention(sizes)
        self.norm1 = nn.LayerNorm(sizes.embedding_size)
        self.cross_attn_layer = CrossAttention(sizes)
        self.norm2 = nn.LayerNorm(sizes.embedding_size)
        self.make_ffn()
        self.norm3 = nn.LayerNorm(sizes.embedding_size)

    def forward(self, sentence_tensor, final_encoder_out, mask):
        if self.sizes.variant == "FG":
            masked_sentence_tensor = apply_mask(sentence_tensor, mask)
            Z_concatenated = self.self_attention_layer(masked_sentence_tensor)
            Z_out = self.norm1(Z_concatenated + masked_sentence_tensor)
            Z_out2 = self.norm2(self.cross_attn_layer(Z_out, final_encoder_out))
            return self.norm3(self.ffn(Z_out2) + Z_out2)
        masked_sentence = apply_mask(sentence_tensor, mask)
        # DLStudio goes on with the unmasked tensor (its bug); the C++ port with the masked.
        masked_sentence_tensor = sentence_tensor if self.sizes.preln_mask_bug else masked_sentence
        normed_masked_sentence_tensor = self.norm1(masked_sentence_tensor.float())
        output_self_atten = self.self_attention_layer(normed_masked_sentence_tensor)
        input_for_xatten = output_self_atten + masked_sentence_tensor
        normed_input_xatten = self.norm2(input_for_xatten)
        output_of_xatten = self.cross_attn_layer(normed_input_xatten, final_encoder_out)
        input_for_FFN = output_of_xatten + input_for_xatten
        return self.ffn(self.norm3(input_for_FFN)) + input_for_FFN


class MasterDecoderWithMasking(nn.Module):
    def __init__(self, sizes, num_basic_decoders, target_vocab_size):
        super().__init__()
        self.max_seq_length = sizes.max_seq_length
        self.target_vocab_size = target_vocab_size
        self.basic_decoder_arr = nn.ModuleList(
            [BasicDecoderWithMasking(sizes) for _ in range(num_basic_decoders)])
        self.out = nn.Linear(sizes.embedding_size, target_vocab_size)

    def forward(self, sentence_tensor, final_encoder_out):
        """[B, L, M] target, [B, L, M] encoder output -> (log-probs [B, L, V] float64 with
        row 0 left at zero, argmax word ids [B, L] with EOS in column 0)."""
        batch = sentence_tensor.shape[0]
        mask = torch.ones(1, dtype=int)
        predicted_word_index_values = torch.ones(batch, self.max_seq_length, dtype=torch.long)
        predicted_word_logprobs = torch.zeros(batch, self.max_seq_length,
                                              self.target_vocab_size, dtype=float)
        for word_index in range(1, sentence_tensor.shape[1]):
            output_word_logprobs = self.predict_word(sentence_tensor, final_encoder_out, mask,
                                                     word_index)
            _, idx_max = torch.max(output_word_logprobs, 1)
            predicted_word_index_values[:, word_index] = idx_max
            predicted_word_logprobs[:, word_index] = output_word_logprobs
            mask = torch.cat((mask, torch.ones(1, dtype=int)))
        return predicted_word_logprobs, predicted_word_index_values

    def predict_word(self, sentence_tensor, final_encoder_out, mask, word_index):
        """One pass of DLStudio's loop body: the stack on the target with rows >=
        len(mask) zeroed, log-probs [B, V] read at row word_index."""
        out_tensor = apply_mask(sentence_tensor, mask)
        for i in range(len(self.basic_decoder_arr)):
            out_tensor = self.basic_decoder_arr[i](out_tensor, final_encoder_out, mask)
        last_word_tensor = out_tensor[:, word_index]
        last_word_onehot = self.out(last_word_tensor.view(sentence_tensor.shape[0], -1))
        return nn.LogSoftmax(dim=1)(last_word_onehot)


class Seq2SeqModules(nn.Module):
    """DLStudio keeps these four modules side by side in its training function; gathered
    here under the C++ port's top-level names."""

    def __init__(self, sizes, num_encoders, num_decoders, src_vocab_size, tgt_vocab_size):
        super().__init__()
        self.sizes = sizes
        self.embeddings_generator_en = EmbeddingsGenerator(sizes, src_vocab_size)
        self.embeddings_generator_es = EmbeddingsGenerator(sizes, tgt_vocab_size)
        self.master_encoder = MasterEncoder(sizes, num_encoders)
        self.master_decoder = MasterDecoderWithMasking(sizes, num_decoders, tgt_vocab_size)

    def forward(self, en_tensor, es_tensor):
        """Token ids [B, L] x2 -> DLStudio's (log-probs [B, L, V] float64, word ids)."""
        en_sentence_tensor = self.embeddings_generator_en(en_tensor).float()
        es_sentence_tensor = self.embeddings_generator_es(es_tensor).float()
        master_encoder_output = self.master_encoder(en_sentence_tensor)
        return self.master_decoder(es_sentence_tensor, master_encoder_output)


def prefix_stepper(model, src):
    """Word-by-word decoding with DLStudio's classes: the encoder once, then
    step(prefixes [R, t], copies) -> log-probs [R, V] of word t, row r translating sentence
    r // copies: the prefix padded with EOS (like DLStudio's starter stub) goes through the
    decoder stack with rows >= t zeroed, and row t is read (one pass of DLStudio's loop)."""
    encoder_out = model.master_encoder(model.embeddings_generator_en(src).float())
    max_len = model.sizes.max_seq_length
    repeated = {}

    def step(prefix, copies=1):
        if copies not in repeated:
            repeated[copies] = encoder_out.repeat_interleave(copies, dim=0)
        t = prefix.size(1)
        stub = torch.full((prefix.size(0), max_len - t), EOS, dtype=torch.long)
        target = model.embeddings_generator_es(torch.cat((prefix, stub), dim=1)).float()
        return model.master_decoder.predict_word(target, repeated[copies],
                                                 torch.ones(t, dtype=int), t)

    return step


class ScheduledOptim:
    """DLStudio's warm-up schedule (Yu-Hsiang Huang's ScheduledOptim):
    lr = lr_mul * M^-0.5 * min(step^-0.5, step * warmup^-1.5), set before each step."""

    def __init__(self, optimizer, lr_mul, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.lr_mul = lr_mul
        self.d_model = d_model
        self.n_warmup_steps = n_warmup_steps
        self.n_steps = 0

    def step_and_update_lr(self):
        self.n_steps += 1
        scale = (self.d_model ** -0.5) * min(self.n_steps ** (-0.5),
                                             self.n_steps * self.n_warmup_steps ** (-1.5))
        for param_group in self._optimizer.param_groups:
            param_group['lr'] = self.lr_mul * scale
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()


def make_seq2seq_optimizers(model, learning_rate=1e-5, warmup=4000):
    """One optimizer each for the encoder and the decoder; the embeddings get none (as in
    DLStudio). FG: Adam(0.9, 0.98, eps 1e-6) with the warm-up schedule; PreLN: plain Adam."""
    parts = (model.master_encoder, model.master_decoder)
    if model.sizes.variant == "FG":
        return [ScheduledOptim(torch.optim.Adam(p.parameters(), betas=(0.9, 0.98), eps=1e-6),
                               lr_mul=2, d_model=model.sizes.embedding_size,
                               n_warmup_steps=warmup) for p in parts]
    return [torch.optim.Adam(p.parameters(), lr=learning_rate) for p in parts]


def seq2seq_train_step(model, optimizers, criterion, en_tensor, es_tensor):
    """DLStudio's training iteration on one batch of token ids; returns the loss."""
    en_sentence_tensor = model.embeddings_generator_en(en_tensor).float()
    es_sentence_tensor = model.embeddings_generator_es(es_tensor).float()
    for optimizer in optimizers:
        optimizer.zero_grad()
    master_encoder_output = model.master_encoder(en_sentence_tensor)
    predicted_word_logprobs, _ = model.master_decoder(es_sentence_tensor, master_encoder_output)
    loss = torch.tensor(0.0)
    for di in range(es_tensor.shape[1]):  # di = 0 contributes 0 (row 0 is never predicted)
        loss += criterion(predicted_word_logprobs[:, di], es_tensor[:, di])
    loss.backward()
    for optimizer in optimizers:
        if isinstance(optimizer, ScheduledOptim):
            optimizer.step_and_update_lr()
        else:
            optimizer.step()
    return loss.item() / es_tensor.shape[0]


class PatchEmbeddingGenerator(nn.Module):
    """Unfolded p x p patches [B, C, H/p, W/p, p, p] -> Linear(p*p*C, M) + a learnable
    positional parameter [1, P, M]. Like DLStudio, reshaped without a permute."""

    def __init__(self, num_patches, patch_dimen, embedding_size):
        super().__init__()
        self.patch_dimen = patch_dimen
        self.embed = nn.Linear(patch_dimen, embedding_size)
        self.positional_encodings = nn.Parameter(torch.randn((1, num_patches, embedding_size)))

    def forward(self, x):
        x = x.reshape(x.shape[0], -1, self.patch_dimen)
        return self.embed(x) + self.positional_encodings


class visTransformer(nn.Module):
    """MasterEncoder of BasicEncoders (DLStudio: post-LN, i.e. FG) over [class token,
    patches], then the head Dropout(0.1) -> Linear(M, 512) -> ReLU -> Linear(512, classes)
    on the class token."""

    def __init__(self, image_size, channels, patch_size, embedding_size, num_basic_encoders,
                 num_atten_heads, num_classes, layout="positionwise", ffn_mult=4, variant="FG"):
        super().__init__()
        self.patch_size = patch_size
        self.num_patches_in_image = (image_size // patch_size) ** 2
        self.patch_dimen = patch_size * patch_size * channels
        self.sizes = Sizes(layout=layout, variant=variant, embedding_size=embedding_size,
                           num_heads=num_atten_heads,
                           max_seq_length=self.num_patches_in_image + 1, ffn_mult=ffn_mult,
                           qkv_bias=False)
        self.master_encoder = MasterEncoder(self.sizes, num_basic_encoders)
        self.fc = nn.Sequential(nn.Dropout(p=0.1), nn.Linear(embedding_size, 512),
                                nn.ReLU(inplace=True), nn.Linear(512, num_classes))
        # DLStudio: nn.Parameter(...).cuda(), which is not registered (never trained, never
        # saved) yet requires grad; a plain attribute tensor behaves the same on the CPU.
        self.class_token = torch.randn((1, 1, embedding_size), requires_grad=True)

    def forward(self, x):  # [B, P+1, M] -> logits [B, classes]
        x = self.master_encoder(x)
        return self.fc(x[:, 0])

    def make_patch_embedding_generator(self):
        return PatchEmbeddingGenerator(self.num_patches_in_image, self.patch_dimen,
                                       self.sizes.embedding_size)

    def embed_images(self, patch_embedding_generator, images):  # [B, C, H, W] -> [B, P+1, M]
        p = self.patch_size
        patch_sequences = images.unfold(2, p, p).unfold(3, p, p)
        patch_sequence_embeddings = patch_embedding_generator(patch_sequences)
        class_tokens_for_batch = self.class_token.expand(images.shape[0], -1, -1)
        return torch.cat((class_tokens_for_batch, patch_sequence_embeddings), dim=1)


def make_vit_optimizer(vit, learning_rate=1e-4):
    """DLStudio: Adam over the visTransformer's own parameters (not the patch embedding)."""
    return torch.optim.Adam(vit.parameters(), lr=learning_rate, betas=(0.9, 0.99))


def vit_train_step(vit, patch_embedding_generator, optimizer, criterion, images, labels):
    x = vit.embed_images(patch_embedding_generator, images)
    vit.zero_grad()
    loss = criterion(vit(x), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def parameter_count(module):
    """(learnable parameters, parameter tensors), as DLStudio prints them."""
    params = [p for p in module.parameters() if p.requires_grad]
    return sum(p.numel() for p in params), len(params)
