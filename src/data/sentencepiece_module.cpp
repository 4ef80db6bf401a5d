// The SentencePiece calls of subword_model.cpp, in a module of their own that
// subword_model.cpp loads with dlopen(RTLD_LOCAL | RTLD_DEEPBIND).
//
// Why not link libsentencepiece into the programs: Debian's libsentencepiece.so carries a
// copy of protobuf-lite 3.14 and exports its symbols, while LibTorch loads libprotobuf
// 3.21. Linked into one process, one library's protobuf calls land in the other's copy and
// the program dies at start-up (or SentencePiece fails a CHECK). Loaded here, SentencePiece
// binds to its own copy and stays out of the process's global symbols.
//
// The functions pass std::string and std::vector: both sides use the process's one libstdc++.
#include <string>
#include <unordered_map>
#include <vector>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

namespace {

class SentenceListIterator : public sentencepiece::SentenceIterator {
 public:
  explicit SentenceListIterator(const std::vector<std::string>& sentences) : sentences_(sentences) {}
  bool done() const override { return next_ >= sentences_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return sentences_[next_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& sentences_;
  std::size_t next_ = 0;
};

bool succeeded(const sentencepiece::util::Status& status, std::string* error) {
  if (!status.ok()) *error = status.ToString();
  return status.ok();
}

}  // namespace

extern "C" {

bool dls_spm_train(const std::unordered_map<std::string, std::string>& arguments,
                   const std::vector<std::string>& sentences, std::string* proto, std::string* error) {
  SentenceListIterator iterator(sentences);
  return succeeded(sentencepiece::SentencePieceTrainer::Train(arguments, &iterator, proto), error);
}

void* dls_spm_load(const std::string& proto, std::string* error) {
  auto* processor = new sentencepiece::SentencePieceProcessor();
  if (succeeded(processor->LoadFromSerializedProto(proto), error)) return processor;
  delete processor;
  return nullptr;
}

void dls_spm_free(void* processor) { delete static_cast<sentencepiece::SentencePieceProcessor*>(processor); }

bool dls_spm_encode(const void* processor, const std::string& text, std::vector<std::string>* pieces,
                    std::string* error) {
  return succeeded(static_cast<const sentencepiece::SentencePieceProcessor*>(processor)->Encode(text, pieces), error);
}

bool dls_spm_decode(const void* processor, const std::vector<std::string>& pieces, std::string* text,
                    std::string* error) {
  return succeeded(static_cast<const sentencepiece::SentencePieceProcessor*>(processor)->Decode(pieces, text), error);
}

void dls_spm_pieces(const void* processor, std::vector<std::string>* pieces) {
  const auto* p = static_cast<const sentencepiece::SentencePieceProcessor*>(processor);
  pieces->clear();
  for (int id = 0; id < p->GetPieceSize(); ++id) pieces->push_back(p->IdToPiece(id));
}

}  // extern "C"
