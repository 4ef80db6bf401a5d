#!/usr/bin/env python3
"""Writes the fuzz targets' own seed inputs into tests/fuzz/seeds/<target>/ (run once; the
files are kept in the repository). The pickle, TSV and BLEU targets also start from the
test fixtures (tests/fixtures/pickle, corpus, bleu); run_fuzzers.sh passes those too."""
import gzip
import os
import struct
import zipfile

here = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(here, "seeds", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# IDX: 2 images of 3x2 pixels (magic 0x00000803), 3 labels (0x00000801), one CIFAR-10
# record (label byte + 3x32x32 pixels), and a gzip-compressed IDX file.
images = struct.pack(">IIII", 0x803, 2, 3, 2) + bytes(range(12))
write("image_files", "images.idx", images)
write("image_files", "labels.idx", struct.pack(">II", 0x801, 3) + bytes([0, 9, 4]))
write("image_files", "cifar.bin", bytes([7]) + bytes(i % 256 for i in range(3072)))
write("image_files", "images.idx.gz", gzip.compress(images, mtime=0))

# The settings text inside checkpoints.
write("key_values", "settings.txt",
      b"model.embedding_size=256\nmodel.layout=vaswani\ntraining.lr=0.001\n"
      b"training.bf16=false\nescaped=a\\nb\\\\c\n")

# BLEU: a hypothesis line, then its reference (the first byte picks the smoothing).
write("bleu", "two_pairs.txt",
      b"\x01the cat is on the mat\nthere is a cat on the mat\nquiero ir a casa\nquiero ir a mi casa\n")

# TSV corpus lines (the first byte picks the word limit).
write("tsv_corpus", "pairs.tsv",
      "\x07Go.\tVe.\tCC-BY\nI can't swim, can you?\t¿No sé nadar, y tú?\n"
      "It's 3,000 yen.\tSon 3.000 yenes.\n".encode("utf-8"))

# sacreBLEU and chrF: hypothesis and reference lines (the first byte picks the options:
# 0 is 13a tokens, 'exp' smoothing, chrF of orders 1..6; 0x2b whitespace tokens, 'add-k',
# effective order, chrF with eps smoothing). Punctuation, numbers and accents for 13a.
pairs = ("The cat sat on the mat.\nThe cat is on the mat.\n"
         "¿Dónde está el baño?\n¿Dónde está el servicio?\n"
         "It costs $3,000.50 -- really!\nIt's 3,000 dollars, really.\n&amp; &lt;tag&gt;\n&quot;x&quot;\n")
write("text_scores", "pairs.txt", b"\x00" + pairs.encode("utf-8"))
write("text_scores", "pairs_options.txt", b"\x2b" + pairs.encode("utf-8"))

# --config files, as a run writes its config.toml (cli/config_file.h), and TOML that
# CLI11 reads: sections, arrays, quoting, comments, a flag kept out of config files.
write("config", "config.toml",
      b"# The options of this run. Repeat it with: seq2seq_train --config config.toml --run-dir NEW_DIR\n"
      b"data=\"data/sample_en_es.tsv\"\npreset=\"cpu\"\nthreads=2\nbatch-size=64\nseed=1234\n"
      b"lr=0.0001\ndropout=0.1\nschedule=\"cosine\"\noptimizer=\"adamw\"\nlength-buckets=true\n")
write("config", "toml_forms.toml",
      b"[default]\nbatch-size = 32 # a comment\nlr = 1e-3\n'data' = 'a \"quoted\" path'\n"
      b"schedule = [\"constant\"]\nlength-buckets = false\n")
write("config", "not_configurable.toml", b"preset=\"cpu\"\noverwrite=true\n")

# The pickles of torch.save'd state dicts (data.pkl of the DLStudio interop fixtures that fit
# in 4 KiB): an OrderedDict of names to _rebuild_tensor_v2 calls over persistent storages.
interop = os.path.join(here, "..", "fixtures", "dlstudio_interop")
for fixture in ("dlstudio/embeddings_generator_en_FG_5", "vit/checkpoint_1_for_epoch_10", "vit/reference.pt"):
    with zipfile.ZipFile(os.path.join(interop, fixture)) as archive:
        pickle = next(name for name in archive.namelist() if name.endswith("/data.pkl"))
        write("state_dict_pickle", fixture.replace("/", "_") + ".pkl", archive.read(pickle))
