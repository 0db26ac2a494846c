// neural_int8_bench: INT8 weight-only quantization against the unquantized model
// (fp16 on CUDA, fp32 on the CPU), same random weights, same inputs, same run.
//
//   build/bench/neural_int8_bench              (CUDA when available, else CPU)
//   LINGCAST_NEURAL_BENCH_DEVICE=cpu build/bench/neural_int8_bench
//   build/bench/neural_int8_bench --small      (a quarter of the width, 2 layers: a quick check)
//
// Models: OPUS-MT base size (d_model 512, 6+6 layers, vocabulary 65001; 24 input
// tokens, greedy, exactly 64 new tokens) and whisper-small size (d_model 768,
// 12+12 layers, vocabulary 51865; 30 s windows of random features, exactly 32
// tokens after the 4-token prompt, the encoder not timed). Variants: the
// reference dtype unquantized, int8 dequantize-then-matmul, int8 with our fused
// GEMV for decode (Int8Kernel::kAuto, CUDA builds with nvcc), and int8 through
// libtorch's _weight_int8pack_mm (on CUDA only with LINGCAST_INT8_BENCH_LIBTORCH=1).
// On CUDA first: each linear layer's decode-step product alone (fp16, dequantize,
// fused) at both models' shapes (--linears: that part only).
// Per variant: weight bytes (and the CUDA allocator's bytes after loading), decode
// tokens/s at batch 1 and 16 (default path: static caches + CUDA graph on CUDA),
// and against the reference on a fixed set of 16 inputs: greedy token agreement
// (same token at the same position; and the share of each output before the
// first difference), and teacher-forced logits on the reference's own output
// (max and mean |difference|, both also over the largest |logit|; top-1 agreement).
// Random weights give nearly flat logits, so token agreement is pessimistic next
// to a trained checkpoint's. Prints figures; never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

#ifdef LINGCAST_BENCH_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "neural/core/cuda_graph.h"
#include "neural/core/int8_gemv.h"
#include "neural/core/quantization.h"
#include "neural/marian/marian_model.h"
#include "neural/whisper/whisper_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::Int8Kernel;
using lingcast::neural::MarianConfig;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;
using lingcast::neural::Quantization;
using lingcast::neural::WhisperConfig;
using lingcast::neural::WhisperModel;
using Sequences = std::vector<std::vector<std::int64_t>>;

struct Variant {
  ModelOptions options;
  std::string label;
};

double MedianMs(const std::function<void()>& f, int runs, bool cuda) {
  f();  // warm-up
  if (cuda) torch::cuda::synchronize();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    if (cuda) torch::cuda::synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double AllocatedMiB(bool cuda) {
#ifdef LINGCAST_BENCH_HAVE_CUDA
  if (cuda) {
    torch::cuda::synchronize();
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    return static_cast<double>(stats.allocated_bytes[0].current) / (1024.0 * 1024.0);
  }
#endif
  (void)cuda;
  return -1.0;
}

void PrintMemory(const std::string& model, const std::string& label, std::int64_t bytes, double allocated_mib) {
  std::printf("%s, %s: weights %.1f MiB", model.c_str(), label.c_str(), static_cast<double>(bytes) / (1024.0 * 1024.0));
  if (allocated_mib >= 0) std::printf(" (CUDA allocator after loading: %.1f MiB)", allocated_mib);
  std::printf("\n");
}

// Greedy outputs against the reference's, after the first `skip` tokens (the prompt).
void PrintAgreement(const Sequences& got, const Sequences& want, std::size_t skip) {
  std::int64_t same = 0, total = 0;
  double prefix = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::size_t n = std::min(got[i].size(), want[i].size());
    std::size_t first_difference = n;
    for (std::size_t t = skip; t < n; ++t, ++total) {
      same += got[i][t] == want[i][t];
      if (got[i][t] != want[i][t] && first_difference == n) first_difference = t;
    }
    prefix += static_cast<double>(first_difference - skip) / static_cast<double>(want[i].size() - skip);
  }
  std::printf("  greedy tokens vs reference: %.1f%% same token at the same position, %.1f%% of each output before "
              "the first difference (mean over %zu inputs)\n",
              100.0 * static_cast<double>(same) / static_cast<double>(std::max<std::int64_t>(total, 1)),
              100.0 * prefix / static_cast<double>(want.size()), want.size());
}

// Teacher-forced logits (N, T, V) of a variant against the reference's.
void PrintLogitDifference(const torch::Tensor& got, const torch::Tensor& want) {
  const torch::Tensor g = got.to(torch::kFloat).cpu();
  const torch::Tensor w = want.to(torch::kFloat).cpu();
  const torch::Tensor difference = (g - w).abs();
  const double largest = w.abs().max().item<double>();
  const double max_difference = difference.max().item<double>();
  const double mean_difference = difference.mean().item<double>();
  const double top1 = g.argmax(-1).eq(w.argmax(-1)).to(torch::kFloat).mean().item<double>();
  std::printf("  teacher-forced logits vs reference: max |diff| %.4f, mean |diff| %.5f (largest |logit| %.3f: %.2e / "
              "%.2e of it), same top-1 token %.1f%%\n",
              max_difference, mean_difference, largest, max_difference / largest, mean_difference / largest, 100.0 * top1);
}

// One linear layer at a decode step, each product captured 20 times in one CUDA
// graph (as the decoders run it) and the graph replayed: microseconds per product,
// with no host launch cost in it.
double LinearMicroseconds(const std::function<torch::Tensor()>& product) {
  constexpr int kRepeats = 20;
  lingcast::neural::StepGraph graph;
  std::string why;
  {
    lingcast::neural::SideStreamScope side(torch::kCUDA);
    product();  // warm-up outside the capture (libraries' first-call set-up)
    torch::cuda::synchronize();
    if (!graph.Capture([&] { for (int i = 0; i < kRepeats; ++i) product(); }, why)) {
      std::printf("  (capture failed: %s)\n", why.c_str());
      return -1;
    }
  }
  const double ms = MedianMs([&] { for (int i = 0; i < 10; ++i) graph.Replay(); }, 5, true);
  return ms * 1e3 / (10.0 * kRepeats);
}

// fp16 linear, int8 dequantize-then-matmul and our fused int8 GEMV at the decode
// shapes of whisper-small (d_model 768, ffn 3072, fused qkv 2304, vocabulary
// 51865) and OPUS-MT base (512, 2048, 1536, 65001), for 1 and 4 rows.
void BenchLinears() {
  using lingcast::neural::LinearWeights;
  struct Shape {
    const char* model;
    const char* name;
    std::int64_t out, in;
  };
  const Shape shapes[] = {{"whisper-small", "q / out", 768, 768},      {"whisper-small", "fused qkv", 2304, 768},
                          {"whisper-small", "fc1", 3072, 768},         {"whisper-small", "fc2", 768, 3072},
                          {"whisper-small", "output", 51865, 768},     {"opus-mt base", "q / out", 512, 512},
                          {"opus-mt base", "fused qkv", 1536, 512},    {"opus-mt base", "fc1", 2048, 512},
                          {"opus-mt base", "fc2", 512, 2048},          {"opus-mt base", "output", 65001, 512}};
  const bool fused_built = lingcast::neural::Int8GemvBuilt();
  std::printf("per linear, one decode step (us per product, CUDA graph of 20; weight bytes over time in GB/s):\n");
  const auto on_gpu = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kHalf);
  torch::manual_seed(3);
  for (const Shape& shape : shapes) {
    const LinearWeights fp16{torch::randn({shape.out, shape.in}, on_gpu) * 0.05, torch::randn({shape.out}, on_gpu)};
    const LinearWeights dequantize = lingcast::neural::QuantizeInt8(fp16, Int8Kernel::kDequantize);
    const LinearWeights fused = lingcast::neural::QuantizeInt8(fp16, Int8Kernel::kAuto);
    for (std::int64_t rows : {1, 4}) {
      const torch::Tensor x = torch::randn({1, rows, shape.in}, on_gpu);
      const double a = LinearMicroseconds([&] { return torch::linear(x, fp16.weight, fp16.bias); });
      const double b = LinearMicroseconds([&] { return lingcast::neural::Int8Linear(x, dequantize); });
      const double c = fused_built ? LinearMicroseconds([&] { return lingcast::neural::Int8Gemv(x, fused); }) : -1;
      const double n = static_cast<double>(shape.out * shape.in);
      std::printf("  %-13s %-9s %5lldx%-4lld rows %lld: fp16 %7.2f us (%5.0f GB/s); int8 dequantize %7.2f us (%.2fx); "
                  "int8 fused %7.2f us (%5.0f GB/s, %.2fx of fp16)\n",
                  shape.model, shape.name, static_cast<long long>(shape.out), static_cast<long long>(shape.in),
                  static_cast<long long>(rows), a, 2 * n / a * 1e-3, b, a / b, c, n / c * 1e-3, a / c);
    }
  }
}

std::vector<Variant> Variants(bool cuda) {
  const torch::Device device = cuda ? torch::kCUDA : torch::kCPU;
  const torch::ScalarType dtype = cuda ? torch::kHalf : torch::kFloat;
  const std::string name = cuda ? "cuda fp16" : "cpu fp32";
  std::vector<Variant> v = {
      {ModelOptions{device, dtype}, name},
      {ModelOptions{device, dtype, Quantization::kInt8, Int8Kernel::kDequantize}, name + " int8 (dequantize + matmul)"}};
  if (cuda && lingcast::neural::Int8GemvBuilt()) {
    v.push_back({ModelOptions{device, dtype, Quantization::kInt8, Int8Kernel::kAuto},
                 name + " int8 (auto: fused GEMV for <= 8 rows, else dequantize + matmul)"});
  }
  // PyTorch's kernel is 2-16x slower than dequantizing on CUDA (README): timed
  // only when asked, to keep the run short.
  const char* libtorch = std::getenv("LINGCAST_INT8_BENCH_LIBTORCH");
  if (lingcast::neural::Int8KernelCompiled() && (!cuda || (libtorch != nullptr && std::string(libtorch) == "1"))) {
    v.push_back({ModelOptions{device, dtype, Quantization::kInt8, Int8Kernel::kLibtorch},
                 name + " int8 (_weight_int8pack_mm)"});
  }
  return v;
}

void BenchMarian(bool cuda, bool small) {
  MarianConfig base;
  if (small) {
    base.d_model = 128;
    base.encoder_layers = base.decoder_layers = 2;
    base.encoder_ffn_dim = base.decoder_ffn_dim = 512;
  }
  base.vocab_size = base.decoder_vocab_size = 65001;
  base.pad_token_id = base.decoder_start_token_id = 65000;
  base.eos_token_id = 0;
  torch::manual_seed(11);
  const torch::Tensor ids16 = torch::randint(5, 60000, {16, 24}, torch::kLong);
  const torch::Tensor mask16 = torch::ones_like(ids16);
  const torch::Tensor ids1 = ids16.narrow(0, 0, 1);
  const torch::Tensor mask1 = mask16.narrow(0, 0, 1);
  Sequences reference_tokens;
  torch::Tensor reference_logits, reference_decoder_ids;
  for (const Variant& variant : Variants(cuda)) {
    std::shared_ptr<const MarianModel> model;
    try {
      model = MarianModel::Random(base, variant.options, 1);
    } catch (const std::exception& e) {
      std::printf("opus-mt base size, %s: not run: %s\n", variant.label.c_str(), e.what());
      continue;
    }
    PrintMemory("opus-mt base size (random)", variant.label, model->WeightBytes(), AllocatedMiB(cuda));
    GenerationOptions g = model->DefaultGenerationOptions();
    g.max_new_tokens = 64;
    g.forced_eos_token_id.reset();
    g.suppressed_tokens = {base.eos_token_id, base.pad_token_id};
    const int runs = cuda ? 10 : 1;
    const double ms1 = MedianMs([&] { model->Generate(ids1, mask1, g); }, runs, cuda);
    const double ms16 = MedianMs([&] { model->Generate(ids16, mask16, g); }, runs, cuda);
    std::printf("  decode: batch 1 %.1f ms, %.0f tokens/s; batch 16 %.1f ms, %.0f tokens/s\n", ms1, 64.0 / ms1 * 1e3,
                ms16, 16 * 64.0 / ms16 * 1e3);
    const Sequences tokens = model->Generate(ids16, mask16, g);
    if (reference_tokens.empty()) {
      reference_tokens = tokens;
      std::vector<torch::Tensor> rows;
      for (const auto& seq : tokens) rows.push_back(torch::tensor(seq, torch::kLong).narrow(0, 0, 64));
      reference_decoder_ids = torch::stack(rows);
      reference_logits = model->Logits(ids16, mask16, reference_decoder_ids).to(torch::kFloat).cpu();
      continue;
    }
    PrintAgreement(tokens, reference_tokens, 1);
    PrintLogitDifference(model->Logits(ids16, mask16, reference_decoder_ids), reference_logits);
  }
}

void BenchWhisper(bool cuda, bool quick) {
  WhisperConfig small;
  small.d_model = quick ? 192 : 768;
  small.encoder_layers = small.decoder_layers = quick ? 2 : 12;
  small.encoder_attention_heads = small.decoder_attention_heads = quick ? 3 : 12;
  small.encoder_ffn_dim = small.decoder_ffn_dim = quick ? 768 : 3072;
  small.vocab_size = 51865;
  torch::manual_seed(12);
  const std::int64_t inputs = cuda ? 16 : 2;
  const torch::Tensor features = torch::rand({inputs, 80, 3000}) * 2.0 - 1.0;
  GenerationOptions g;
  g.prompt = {50258, 50259, 50359, 50363};  // sot, <|en|>, transcribe, notimestamps
  g.eos_token_id = g.pad_token_id = 50257;
  g.suppressed_tokens = {50257};
  g.max_new_tokens = 32;
  Sequences reference_tokens;
  torch::Tensor reference_logits, reference_decoder_ids, encoded;
  for (const Variant& variant : Variants(cuda)) {
    std::shared_ptr<const WhisperModel> model;
    try {
      model = WhisperModel::Random(small, variant.options, 1);
    } catch (const std::exception& e) {
      std::printf("whisper-small size, %s: not run: %s\n", variant.label.c_str(), e.what());
      continue;
    }
    PrintMemory("whisper-small size (random)", variant.label, model->WeightBytes(), AllocatedMiB(cuda));
    // libtorch's int8 kernel is one thread per output: the encoder's 1500-row
    // products would take minutes, so that variant decodes over the encoder output
    // of the dequantizing one (the same int8 weights).
    if (variant.options.int8_kernel != Int8Kernel::kLibtorch || !encoded.defined()) {
      encoded = torch::cat({model->Encode(features.narrow(0, 0, inputs / 2)),
                            model->Encode(features.narrow(0, inputs / 2, inputs - inputs / 2))});
    }
    const torch::Tensor encoded1 = encoded.narrow(0, 0, 1);
    const int runs = cuda ? 10 : 1;
    const double ms1 = MedianMs([&] { model->Generate(encoded1, g); }, runs, cuda);
    const double ms16 = MedianMs([&] { model->Generate(encoded, g); }, runs, cuda);
    std::printf("  decode 32 tokens: batch 1 %.1f ms, %.0f tokens/s; batch %lld %.1f ms, %.0f tokens/s\n", ms1,
                32.0 / ms1 * 1e3, static_cast<long long>(inputs), ms16,
                static_cast<double>(inputs) * 32.0 / ms16 * 1e3);
    const Sequences tokens = model->Generate(encoded, g);
    if (reference_tokens.empty()) {
      reference_tokens = tokens;
      std::vector<torch::Tensor> rows;
      for (const auto& seq : tokens) rows.push_back(torch::tensor(seq, torch::kLong).narrow(0, 0, 4 + 32 - 1));
      reference_decoder_ids = torch::stack(rows);
      reference_logits = model->Logits(encoded, reference_decoder_ids).to(torch::kFloat).cpu();
      continue;
    }
    PrintAgreement(tokens, reference_tokens, 4);
    PrintLogitDifference(model->Logits(encoded, reference_decoder_ids), reference_logits);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool small = argc > 1 && std::string(argv[1]) == "--small";
  torch::NoGradGuard no_grad;
  const char* device_env = std::getenv("LINGCAST_NEURAL_BENCH_DEVICE");
  const bool cuda = device_env != nullptr ? std::string(device_env) == "cuda" : torch::cuda::is_available();
  std::printf("neural_int8_bench: libtorch %s, device %s, _weight_int8pack_mm %s\n", TORCH_VERSION,
              cuda ? "cuda" : "cpu", lingcast::neural::Int8KernelCompiled() ? "present" : "absent");
  if (small) std::printf("--small: a quarter of the width, 2 layers (not the real sizes)\n");
  if (cuda && !small) BenchLinears();
  if (argc > 1 && std::string(argv[1]) == "--linears") return 0;
  BenchMarian(cuda, small);
  BenchWhisper(cuda, small);
  return 0;
}
