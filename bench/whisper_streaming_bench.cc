// What a streaming Whisper partial costs: a session (WhisperAsrSession,
// LocalAgreement-2) fed an utterance in 100 ms chunks, Partial() asked every
// 500 ms as `lingcast asr` does; each decoding Partial() is timed, then the
// final. Reference, same run: one whole-utterance decode (WhisperTranscriber,
// same options) — a partial is one such decode of the open window, so the
// ratio shows what the streaming bookkeeping adds.
//
//   whisper_streaming_bench [MODEL_DIR] [SECONDS] [MAX_NEW_TOKENS]
// Defaults: the tiny test checkpoint, 10 s, 32 tokens per decode. The audio is
// the tiny fixture's two clips, tiled. One intra-op thread (a live job's share).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "neural/core/safetensors.h"
#include "neural/whisper/whisper_asr.h"

namespace {

using lingcast::AudioBuffer;
using lingcast::MediaTime;
using namespace lingcast::neural;

template <typename F>
double Ms(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string testdata = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/whisper_tiny";
  WhisperAsrOptions options;
  options.model_dir = argc > 1 ? argv[1] : testdata;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 10.0;
  options.max_new_tokens = argc > 3 ? std::atoll(argv[3]) : 32;
  options.language = "en";
  torch::set_num_threads(1);
  auto model = WhisperAsrModel::Load(options);
  if (!model.ok()) {
    std::fprintf(stderr, "whisper_streaming_bench: %s\n", model.status().ToString().c_str());
    return 2;
  }

  std::vector<float> clip;
  auto reference = SafetensorsFile::Open(testdata + "/reference.safetensors");
  for (const char* name : {"audio_0", "audio_1"}) {
    const torch::Tensor a = reference->Load(name).contiguous();
    clip.insert(clip.end(), a.data_ptr<float>(), a.data_ptr<float>() + a.numel());
  }
  const auto total = static_cast<std::size_t>(seconds * lingcast::kAsrSampleRate);
  std::vector<float> audio;
  while (audio.size() < total) audio.insert(audio.end(), clip.begin(), clip.end());
  audio.resize(total);

  auto session = *(*model)->NewSession();
  std::vector<double> partial_ms;
  MediaTime decoded_end = MediaTime::Micros(-1);
  constexpr std::size_t kChunk = 1600;  // 100 ms
  for (std::size_t at = 0; at < total; at += kChunk) {
    AudioBuffer chunk;
    chunk.sample_rate = lingcast::kAsrSampleRate;
    chunk.channels = 1;
    chunk.samples.assign(audio.begin() + static_cast<std::ptrdiff_t>(at),
                         audio.begin() + static_cast<std::ptrdiff_t>(std::min(total, at + kChunk)));
    if (!session->AcceptAudio(chunk).ok()) return 1;
    if ((at / kChunk) % 5 != 4) continue;
    std::optional<lingcast::AsrHypothesis> partial;
    const double ms = Ms([&] { partial = session->Partial(); });
    if (partial && partial->end != decoded_end) {  // a decode, not the last partial repeated
      partial_ms.push_back(ms);
      decoded_end = partial->end;
    }
  }
  absl::StatusOr<lingcast::AsrHypothesis> final;
  const double final_ms = Ms([&] { final = session->Finish(); });

  WhisperOptions whole;
  whole.language = "en";
  whole.timestamps = true;
  whole.max_new_tokens = options.max_new_tokens;
  std::vector<double> whole_ms;
  for (int run = 0; run < 3; ++run) {
    whole_ms.push_back(Ms([&] { (*model)->transcriber().Transcribe(audio.data(), static_cast<std::int64_t>(std::min<std::size_t>(total, 480000)), whole); }));
  }
  const double partial_median = Median(partial_ms);
  const double reference_ms = Median(whole_ms);
  std::printf("whisper_streaming_bench: %s, %.1f s utterance, at most %lld new tokens per decode, 1 thread\n",
              options.model_dir.c_str(), seconds, static_cast<long long>(options.max_new_tokens));
  std::printf("  partial decodes: %zu (one per 500 ms of audio), median %.1f ms, max %.1f ms; final %.1f ms (%s)\n",
              partial_ms.size(), partial_median,
              partial_ms.empty() ? 0.0 : *std::max_element(partial_ms.begin(), partial_ms.end()), final_ms,
              final.ok() ? "ok" : final.status().ToString().c_str());
  std::printf("  reference, one whole-utterance decode: median %.1f ms; partial / reference %.2f\n", reference_ms,
              reference_ms > 0 ? partial_median / reference_ms : 0.0);
  return 0;
}
