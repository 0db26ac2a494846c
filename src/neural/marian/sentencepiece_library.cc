#include "neural/marian/sentencepiece_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "neural/core/neural_error.h"

#ifndef LINGCAST_SPM_SHIM_PATH
#error "LINGCAST_SPM_SHIM_PATH must name the built SentencePiece shim (src/neural/CMakeLists.txt)"
#endif

namespace lingcast::neural {
namespace {

using Emit = void (*)(void*, const char*, std::size_t);
using LoadFn = void* (*)(const char*, Emit, void*);
using FreeFn = void (*)(void*);
using EncodeFn = int (*)(void*, const char*, std::size_t, Emit, Emit, void*);
using DecodeFn = int (*)(void*, const char* const*, const std::size_t*, std::size_t, Emit, Emit, void*);

struct Sink {
  std::vector<std::string> pieces;
  std::string error;
};
void EmitPiece(void* sink, const char* data, std::size_t size) { static_cast<Sink*>(sink)->pieces.emplace_back(data, size); }
void EmitError(void* sink, const char* data, std::size_t size) { static_cast<Sink*>(sink)->error.assign(data, size); }

struct DlClose {
  void operator()(void* handle) const { ::dlclose(handle); }
};

// Opens the shim so that libsentencepiece binds to its own protobuf and nothing
// else sees it (spm_shim.cc says why). RTLD_DEEPBIND does that, but the
// sanitizers' runtimes refuse it (the library's own symbols would come before
// their interceptors), so sanitizer builds give the shim a link-map namespace
// of its own instead (dlmopen): as isolated, and the interface is plain C with
// no memory changing hands, so two copies of the C library do not matter.
// RTLD_NODELETE: the plug-in stays loaded after the last model is freed. Some
// libsentencepiece builds (Ubuntu 24.04's) register absl flags when loaded, and
// loading them a second time into the same process aborts.
void* OpenShim(const std::string& shim) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // One namespace for the process (glibc has room for 16), made by the first load.
  static const Lmid_t space = [&shim] {
    Lmid_t made = LM_ID_NEWLM;
    if (void* first = ::dlmopen(LM_ID_NEWLM, shim.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
      if (::dlinfo(first, RTLD_DI_LMID, &made) != 0) made = LM_ID_NEWLM;
      ::dlclose(first);
    }
    return made;
  }();
  return ::dlmopen(space, shim.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
#else
  return ::dlopen(shim.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND | RTLD_NODELETE);
#endif
}

}  // namespace

struct SentencePieceModel::Api {
  std::unique_ptr<void, DlClose> handle;
  LoadFn load = nullptr;
  FreeFn free = nullptr;
  EncodeFn encode = nullptr;
  DecodeFn decode = nullptr;
};

std::unique_ptr<SentencePieceModel> SentencePieceModel::Load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) Fail(ErrorCode::kNotFound, path + ": no such file");
  const char* override_path = std::getenv("LINGCAST_SPM_SHIM");
  const std::string shim = override_path != nullptr ? override_path : LINGCAST_SPM_SHIM_PATH;
  auto api = std::make_unique<Api>();
  api->handle.reset(OpenShim(shim));
  if (!api->handle) {
    Fail(ErrorCode::kUnimplemented, "cannot load the SentencePiece plug-in " + shim + " (" + ::dlerror() +
                                        "): rebuild lingcast with libsentencepiece-dev installed, or set LINGCAST_SPM_SHIM");
  }
  api->load = reinterpret_cast<LoadFn>(::dlsym(api->handle.get(), "lc_spm_load"));
  api->free = reinterpret_cast<FreeFn>(::dlsym(api->handle.get(), "lc_spm_free"));
  api->encode = reinterpret_cast<EncodeFn>(::dlsym(api->handle.get(), "lc_spm_encode"));
  api->decode = reinterpret_cast<DecodeFn>(::dlsym(api->handle.get(), "lc_spm_decode"));
  if (!api->load || !api->free || !api->encode || !api->decode) {
    Fail(ErrorCode::kUnimplemented, shim + ": not lingcast's SentencePiece plug-in (functions missing)");
  }
  Sink sink;
  void* model = api->load(path.c_str(), EmitError, &sink);
  if (model == nullptr) Fail(ErrorCode::kInvalidArgument, path + ": not a SentencePiece model (" + sink.error + ")");
  return std::unique_ptr<SentencePieceModel>(new SentencePieceModel(std::move(api), model));
}

SentencePieceModel::SentencePieceModel(std::unique_ptr<Api> api, void* model) : api_(std::move(api)), model_(model) {}

SentencePieceModel::~SentencePieceModel() { api_->free(model_); }

std::vector<std::string> SentencePieceModel::Encode(const std::string& text) const {
  Sink sink;
  if (api_->encode(model_, text.data(), text.size(), EmitPiece, EmitError, &sink) != 0) {
    Fail(ErrorCode::kInvalidArgument, "cannot tokenize \"" + text + "\": " + sink.error);
  }
  return std::move(sink.pieces);
}

std::string SentencePieceModel::Decode(const std::vector<std::string>& pieces) const {
  std::vector<const char*> data;
  std::vector<std::size_t> sizes;
  for (const auto& piece : pieces) {
    data.push_back(piece.data());
    sizes.push_back(piece.size());
  }
  Sink sink;
  if (api_->decode(model_, data.data(), sizes.data(), pieces.size(), EmitPiece, EmitError, &sink) != 0) {
    Fail(ErrorCode::kInternal, "cannot join output pieces: " + sink.error);
  }
  return sink.pieces.empty() ? std::string() : sink.pieces.front();
}

}  // namespace lingcast::neural
