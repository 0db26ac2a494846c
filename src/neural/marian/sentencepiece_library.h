// SentencePieceModel: one .spm model, used through the SentencePiece shim plug-in
// (spm_shim.cc says why sentencepiece is not linked directly).
//
// Each model holds its own dlopen handle on the plug-in (the loader counts them),
// so there is no process-wide state. The plug-in's path is fixed at build time;
// LINGCAST_SPM_SHIM overrides it (an installed copy elsewhere).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace lingcast::neural {

class SentencePieceModel {
 public:
  // Throws NeuralError: kNotFound (no file), kInvalidArgument (not a model),
  // kUnimplemented (the plug-in is missing).
  static std::unique_ptr<SentencePieceModel> Load(const std::string& path);
  ~SentencePieceModel();
  SentencePieceModel(const SentencePieceModel&) = delete;
  SentencePieceModel& operator=(const SentencePieceModel&) = delete;

  std::vector<std::string> Encode(const std::string& text) const;
  std::string Decode(const std::vector<std::string>& pieces) const;

 private:
  struct Api;
  SentencePieceModel(std::unique_ptr<Api> api, void* model);

  std::unique_ptr<Api> api_;
  void* model_;  // owned: freed through the plug-in
};

}  // namespace lingcast::neural
