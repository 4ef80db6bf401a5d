// Adam's and AdamW's saved state loaded by its parameters' saved keys as written (private to
// src/train/optim). LibTorch saves a parameter's state under a key made from its TensorImpl's
// address: 1.x writes it as a stream writes a pointer ("0x55d0..."), 2.x as a decimal number,
// and 2.x's loader parses every key as decimal. A checkpoint written with 1.x (Debian 12's CPU
// LibTorch) then loaded on 2.x (a CUDA PyTorch's) has every key read as 0: one parameter's
// moments given to another, and null states that crash the first step. Here the keys are
// matched as the strings they are, never parsed, so either LibTorch's files load on either.
#pragma once

#include <torch/optim/optimizer.h>
#include <torch/serialize/input-archive.h>

namespace dls::train {

// Loads `archive` (what Adam's or AdamW's save wrote) into `optimizer` (a Base: Adam or
// AdamW) as LibTorch's own load does, but by the saved keys as strings: the saved group's i-th
// parameter's state to the optimizer's group's i-th parameter, the groups' options as saved.
// Throws c10::Error when the format, the number of groups or a group's size differ.
template <typename Base>
void load_adam_archive(torch::serialize::InputArchive& archive, Base& optimizer);

}  // namespace dls::train
