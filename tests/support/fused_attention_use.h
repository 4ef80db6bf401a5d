// Where the fused attention operator runs (fused_attention.h), set for one scope of a test and
// back to the default (kGpu) after it, however the scope ends.
#pragma once

#include "dls/layers/fused_attention.h"

namespace dls::test {

struct FusedAttentionUseScope {
  explicit FusedAttentionUseScope(FusedAttentionUse use) { set_fused_attention_use(use); }
  ~FusedAttentionUseScope() { set_fused_attention_use(FusedAttentionUse::kGpu); }
  FusedAttentionUseScope(const FusedAttentionUseScope&) = delete;
  FusedAttentionUseScope& operator=(const FusedAttentionUseScope&) = delete;
};

}  // namespace dls::test
