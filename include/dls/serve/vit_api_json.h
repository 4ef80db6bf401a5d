// The JSON of translate_server's API for a ViT checkpoint (docs/serving.md): the top-K
// parameter of POST /classify, its answer, and GET /model. Errors are api_json.h's.
#pragma once

#include <string>

#include "dls/eval/image_classifier.h"

namespace dls::serve {

// POST /classify?top=K: absent: 5; otherwise 1 .. 1000 (ApiError 400), at most the classes.
int parse_top_k(const std::string& text, int classes);

// {"class", "index", "top": [{"class", "index", "probability"}], "probabilities": [...],
//  "grid", "patch_size", "image_size", "channels", "attention" [layer][head][P],
//  "rollout" [P], "timings": {"decode_ms", "model_ms", "total_ms"}}; weights to 5 digits.
std::string classify_answer(const eval::ImageClassification& result, const eval::ImageClassifier& classifier, int top_k,
                            double decode_ms, double total_ms);
// GET /model for a ViT: {"kind": "vit", the checkpoint, its model settings, class names, scores}.
std::string vit_model_answer(const eval::ImageClassifier& classifier);

}  // namespace dls::serve
