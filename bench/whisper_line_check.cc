// whisper_line_check: how soon a Mandarin script line could be committed from
// the start of its audio, by Whisper's greedy text (what the follower reads
// today) against Whisper's own score of the line (teacher forcing), and how
// often the score would accept a wrong line. Research for the StartOffset
// target (docs/gpu.md); not used by lingcast itself.
//
//   whisper_line_check MODEL_DIR LINES_FILE WAV[:LINE]...
//
// LINES_FILE: the candidate lines, one a line (simplified characters). Each WAV
// is decoded from its first 200 ms in steps of 100 ms (greedy, language zh,
// timestamps on and only the heard audio encoded, as the live session's
// partials); at each step every line's first kTokens tokens are scored after the
// decode's prompt and <|0.00|>, in simplified and in traditional characters
// (Whisper base writes Mandarin mostly in traditional), the better kept. WAV:LINE
// names the line said (its number in LINES_FILE, from 1); a WAV without one says
// none of them. A line is "accepted" at a step when its mean log-probability per
// token is at least kAccept and ahead of every other line's by kMargin. Prints,
// per file, when the greedy text first begins with two characters of its line,
// when the score first accepts it, and every wrong line accepted; prints figures,
// never fails.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "audio/audio_decoder.h"
#include "neural/whisper/whisper_transcriber.h"
#include "text/zh_script.h"

namespace {

using namespace lingcast::neural;

constexpr std::size_t kTokens = 3;
constexpr double kAccept = -3.0;
constexpr double kMargin = 1.5;

// Each line's first kTokens tokens' mean log-probability after `prompt`, all
// lines in one teacher-forced pass (WhisperTranscriber::ScoreOpenings, what the
// live session's AsrSession::ScoreOpenings runs).
std::vector<double> Scores(const WhisperTranscriber& t, const torch::Tensor& encoded,
                           const std::vector<std::int64_t>& prompt, const std::vector<std::string>& lines) {
  std::vector<std::vector<std::int64_t>> tokens;
  for (const std::string& line : lines) tokens.push_back(t.tokenizer().Encode(line));
  return t.ScoreOpenings(encoded, prompt, tokens, kTokens);
}

// The first two characters (UTF-8 code points) of `text`.
std::string FirstTwo(const std::string& text) {
  std::size_t at = 0;
  for (int n = 0; n < 2 && at < text.size(); ++n) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
  }
  return text.substr(0, at);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: whisper_line_check MODEL_DIR LINES_FILE WAV[:LINE]...\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time: progress on a long file
  torch::set_num_threads(2);
  const auto transcriber = WhisperTranscriber::Load(argv[1]);
  auto to_simplified = lingcast::ZhScriptConverter::Load(lingcast::ZhScript::kSimplified);
  auto to_traditional = lingcast::ZhScriptConverter::Load(lingcast::ZhScript::kTraditional);
  if (!to_simplified.ok() || !to_traditional.ok()) {
    std::fprintf(stderr, "OpenCC: %s\n", to_simplified.status().ToString().c_str());
    return 1;
  }
  std::vector<std::string> lines;
  {
    std::ifstream file(argv[2]);
    for (std::string line; std::getline(file, line);) {
      if (!line.empty()) lines.push_back(line);
    }
  }
  std::vector<std::string> traditional_lines;
  for (const std::string& line : lines) traditional_lines.push_back(to_traditional->Convert(line));
  int wrong_accepts = 0, steps = 0;
  double closest_wrong = -1e9;  // the best margin a wrong line ever had
  for (int a = 3; a < argc; ++a) {
    const std::string arg = argv[a];
    const std::size_t colon = arg.find(':');
    const std::string path = arg.substr(0, colon);
    const int said = colon == std::string::npos ? -1 : std::atoi(arg.c_str() + colon + 1) - 1;
    const absl::StatusOr<lingcast::AudioBuffer> audio = lingcast::DecodeAudioFile(path, 16000);
    if (!audio.ok()) {
      std::fprintf(stderr, "%s\n", audio.status().ToString().c_str());
      return 1;
    }
    const std::vector<float>& samples = audio->samples;
    std::printf("== %s: %s, %.2f s\n", path.c_str(), said >= 0 ? lines[said].c_str() : "none of the lines",
                static_cast<double>(samples.size()) / 16000.0);
    int text_at = -1, score_at = -1;
    for (int ms = 200; ms <= static_cast<int>(samples.size() / 16); ms += 100, ++steps) {
      WhisperOptions o;
      o.language = "zh";
      o.timestamps = true;
      o.encode_heard_only = true;
      o.keep_encoder_output = true;
      const WhisperResult r = transcriber->Transcribe(samples.data(), static_cast<std::int64_t>(ms) * 16, o);
      std::vector<std::int64_t> prompt = transcriber->Prompt("zh", o);
      prompt.push_back(transcriber->special().timestamp_begin);
      std::vector<double> scores = Scores(*transcriber, r.encoder_output, prompt, lines);
      const std::vector<double> traditional = Scores(*transcriber, r.encoder_output, prompt, traditional_lines);
      for (std::size_t i = 0; i < lines.size(); ++i) scores[i] = std::max(scores[i], traditional[i]);
      const std::string heard = to_simplified->Convert(r.text);
      if (said >= 0 && text_at < 0 && heard.rfind(FirstTwo(lines[said]), 0) == 0) text_at = ms;
      std::string accepted;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        double other = -1e9;
        for (std::size_t j = 0; j < lines.size(); ++j) {
          if (j != i) other = std::max(other, scores[j]);
        }
        if (static_cast<int>(i) != said) closest_wrong = std::max(closest_wrong, scores[i] - other);
        if (scores[i] < kAccept || scores[i] - other < kMargin) continue;
        accepted = lines[i];
        if (static_cast<int>(i) == said) {
          if (score_at < 0) score_at = ms;
        } else {
          ++wrong_accepts;
          std::printf("  %5d ms: WRONG line accepted: %s (%.2f, next %.2f)\n", ms, lines[i].c_str(), scores[i], other);
        }
      }
      std::printf("  %5d ms  heard %-30.60s accepted %s\n", ms, heard.c_str(), accepted.empty() ? "-" : accepted.c_str());
    }
    if (said >= 0) {
      std::printf("  %s: greedy text begins with its first two characters at %d ms, the score accepts it at %d ms\n",
                  lines[said].c_str(), text_at, score_at);
    }
  }
  std::printf("wrong lines accepted: %d in %d steps of %zu lines each; the closest a wrong line came: %.2f ahead of "
              "the rest (%.2f needed)\n",
              wrong_accepts, steps, lines.size(), closest_wrong, kMargin);
  return 0;
}
