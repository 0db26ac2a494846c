#include "neural/whisper/whisper_transcriber.h"

#include <algorithm>
#include <limits>
#include <regex>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"

namespace lingcast::neural {
namespace {

constexpr double kSecondsPerTimestamp = 0.02;

std::int64_t FindOr(const WhisperTokenizer& tokenizer, const std::map<std::string, std::int64_t>& ids, const std::string& key,
                    const std::string& token) {
  if (auto it = ids.find(key); it != ids.end()) return it->second;
  return tokenizer.Find(token).value_or(-1);
}

WhisperSpecialTokens ResolveSpecialTokens(const WhisperConfig& c, const WhisperTokenizer& tokenizer, const std::string& dir) {
  WhisperSpecialTokens s;
  s.start_of_transcript = c.decoder_start_token_id;
  s.end_of_text = c.eos_token_id;
  s.transcribe = FindOr(tokenizer, c.task_to_id, "transcribe", "<|transcribe|>");
  s.translate = FindOr(tokenizer, c.task_to_id, "translate", "<|translate|>");
  s.no_timestamps = c.no_timestamps_token_id ? *c.no_timestamps_token_id : tokenizer.Require("<|notimestamps|>");
  s.no_speech = s.no_timestamps - 1;  // <|nospeech|> (<|nocaptions|>), as the reference takes it
  s.timestamp_begin = s.no_timestamps + 1;
  s.start_of_prev = tokenizer.Find("<|startofprev|>").value_or(-1);
  if (s.timestamp_begin >= c.vocab_size) {
    Fail(ErrorCode::kInvalidArgument, dir + ": <|notimestamps|> is token " + std::to_string(s.no_timestamps) +
                                          ", leaving no timestamp tokens below vocab_size " + std::to_string(c.vocab_size));
  }
  static const std::regex kLanguageToken(R"(<\|([a-z]{2,3}(_[a-z]+)?)\|>)");
  if (!c.lang_to_id.empty()) {
    for (const auto& [token, id] : c.lang_to_id) {
      std::smatch m;
      if (!std::regex_match(token, m, kLanguageToken)) {
        Fail(ErrorCode::kInvalidArgument, dir + "/generation_config.json: lang_to_id has \"" + token + "\", not a <|xx|> token");
      }
      s.languages[m[1].str()] = id;
    }
  } else if (c.is_multilingual.value_or(true)) {
    // No lang_to_id: the language tokens are the added tokens between
    // <|startoftranscript|> and the task tokens.
    const std::int64_t last = std::min(s.translate < 0 ? c.vocab_size : s.translate, s.transcribe < 0 ? c.vocab_size : s.transcribe);
    for (std::int64_t id = s.start_of_transcript + 1; id < last && id < tokenizer.size(); ++id) {
      std::smatch m;
      const std::string& token = tokenizer.TokenText(id);
      if (std::regex_match(token, m, kLanguageToken)) s.languages[m[1].str()] = id;
    }
  }
  for (const auto& [code, id] : s.languages) {
    if (id < 0 || id >= c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, dir + ": language token <|" + code + "|> has id " + std::to_string(id) +
                                            ", outside vocab_size " + std::to_string(c.vocab_size));
    }
  }
  return s;
}

// WhisperTimeStampLogitsProcessor and SuppressTokensAtBeginLogitsProcessor, as
// transformers applies them (after the always-suppressed tokens).
// A decode caught in a loop (LoopedTokens) ends now.
void EndLoops(torch::Tensor& scores, const torch::Tensor& sequences, std::int64_t begin_index,
              const WhisperSpecialTokens& special) {
  const auto seq = sequences.accessor<std::int64_t, 2>();
  for (std::int64_t k = 0; k < scores.size(0); ++k) {
    std::vector<std::int64_t> text;
    for (std::int64_t i = begin_index; i < sequences.size(1); ++i) {
      if (seq[k][i] < special.end_of_text) text.push_back(seq[k][i]);
    }
    if (LoopedTokens(text) > 0) {
      scores[k].fill_(-std::numeric_limits<float>::infinity());
      scores[k][special.end_of_text] = 0.0f;
    }
  }
}

void ApplyWhisperRules(torch::Tensor& scores, const torch::Tensor& sequences, std::int64_t begin_index, bool timestamps,
                       const WhisperSpecialTokens& special, const WhisperConfig& config) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const std::int64_t cur_len = sequences.size(1);
  if (cur_len == begin_index) {
    for (std::int64_t id : config.begin_suppress_tokens) scores.select(1, id).fill_(minus_inf);
  }
  if (!timestamps) return;
  const std::int64_t tb = special.timestamp_begin;
  const std::int64_t vocab = scores.size(1);
  scores.select(1, special.no_timestamps).fill_(minus_inf);
  const auto seq = sequences.accessor<std::int64_t, 2>();
  for (std::int64_t k = 0; k < scores.size(0); ++k) {
    const std::int64_t n = cur_len - begin_index;
    auto token = [&](std::int64_t i) { return seq[k][begin_index + i]; };
    const bool last_was_timestamp = n >= 1 && token(n - 1) >= tb;
    const bool penultimate_was_timestamp = n < 2 || token(n - 2) >= tb;
    torch::Tensor row = scores[k];
    if (last_was_timestamp) {
      if (penultimate_was_timestamp) {
        row.narrow(0, tb, vocab - tb).fill_(minus_inf);  // a pair is closed: text must follow
      } else {
        row.narrow(0, 0, special.end_of_text).fill_(minus_inf);  // a pair is open: no text
      }
    }
    std::int64_t last_timestamp = -1;
    for (std::int64_t i = 0; i < n; ++i) {
      if (token(i) >= tb) last_timestamp = token(i);
    }
    if (last_timestamp >= 0) {
      // Timestamps never go back; a closed pair's time is not emitted again.
      const std::int64_t floor = (last_was_timestamp && !penultimate_was_timestamp) ? last_timestamp : last_timestamp + 1;
      if (floor > tb) row.narrow(0, tb, std::min(floor, vocab) - tb).fill_(minus_inf);
    }
  }
  if (cur_len == begin_index) {
    scores.narrow(1, 0, tb).fill_(minus_inf);
    if (config.max_initial_timestamp_index) {
      const std::int64_t last_allowed = tb + *config.max_initial_timestamp_index;
      if (last_allowed + 1 < vocab) scores.narrow(1, last_allowed + 1, vocab - last_allowed - 1).fill_(minus_inf);
    }
  }
  // When the timestamps together are likelier than any one text token, emit one.
  const torch::Tensor logprobs = torch::log_softmax(scores.to(torch::kFloat), -1);
  for (std::int64_t k = 0; k < scores.size(0); ++k) {
    const float timestamp_logprob = logprobs[k].narrow(0, tb, vocab - tb).logsumexp(0).item<float>();
    const float max_text_logprob = logprobs[k].narrow(0, 0, tb).max().item<float>();
    if (timestamp_logprob > max_text_logprob) scores[k].narrow(0, 0, tb).fill_(minus_inf);
  }
}

}  // namespace

std::size_t LoopedTokens(const std::vector<std::int64_t>& text_tokens) {
  constexpr std::size_t kLongestPhrase = 32;
  constexpr std::size_t kShortestLoop = 12;  // tokens in the three copies together
  const std::size_t n = text_tokens.size();
  auto same_block = [&](std::size_t period, std::size_t copy) {  // copy 1 is the last block
    return std::equal(text_tokens.end() - static_cast<std::ptrdiff_t>(copy * period),
                      text_tokens.end() - static_cast<std::ptrdiff_t>((copy - 1) * period),
                      text_tokens.end() - static_cast<std::ptrdiff_t>((copy + 1) * period));
  };
  for (std::size_t period = 1; period <= kLongestPhrase && 3 * period <= n; ++period) {
    const std::size_t copies_needed = std::max<std::size_t>(3, (kShortestLoop + period - 1) / period);
    if (copies_needed * period > n) continue;
    std::size_t copies = 1;
    while ((copies + 1) * period <= n && same_block(period, copies)) ++copies;
    if (copies >= copies_needed) return (copies - 1) * period;
  }
  return 0;
}

std::shared_ptr<const WhisperTranscriber> WhisperTranscriber::Load(const std::string& dir, const ModelOptions& options) {
  // The config first: a checkpoint of another architecture is named as such.
  LoadWhisperConfig(dir);
  WhisperTokenizer tokenizer = WhisperTokenizer::Load(dir);
  std::shared_ptr<const WhisperModel> model = WhisperModel::Load(dir, options);
  const WhisperConfig& c = model->config();
  if (tokenizer.size() > c.vocab_size) {
    Fail(ErrorCode::kInvalidArgument, dir + ": the tokenizer has " + std::to_string(tokenizer.size()) +
                                          " tokens but config.json's vocab_size is " + std::to_string(c.vocab_size) +
                                          ": they are from different models");
  }
  WhisperFeatures features = WhisperFeatures::Load(dir, c.num_mel_bins);
  if (features.window_frames() != model->input_frames()) {
    Fail(ErrorCode::kInvalidArgument, dir + "/preprocessor_config.json: a window of " + std::to_string(features.window_frames()) +
                                          " frames, but the encoder takes " + std::to_string(model->input_frames()));
  }
  WhisperSpecialTokens special = ResolveSpecialTokens(c, tokenizer, dir);
  // Timestamps are known from the config, not the vocabulary (whisper_tokenizer.h).
  tokenizer.AddTimestampTokens(special.timestamp_begin, c.vocab_size);
  return std::shared_ptr<const WhisperTranscriber>(
      new WhisperTranscriber(std::move(model), std::move(tokenizer), std::move(features), std::move(special)));
}

std::vector<std::pair<std::string, double>> WhisperTranscriber::DetectLanguage(const torch::Tensor& encoder_out) const {
  torch::NoGradGuard no_grad;
  if (!multilingual()) Fail(ErrorCode::kInvalidArgument, "this Whisper checkpoint is English-only: it has no language tokens");
  auto state = model_->StartDecoder(encoder_out.narrow(0, 0, 1), 1, 1);
  const torch::Tensor logits = state->Step(torch::full({1}, special_.start_of_transcript, torch::kLong)).to(torch::kCPU)[0];
  std::vector<std::int64_t> ids;
  std::vector<std::string> codes;
  for (const auto& [code, id] : special_.languages) {
    codes.push_back(code);
    ids.push_back(id);
  }
  const torch::Tensor probs = torch::softmax(logits.index_select(0, torch::tensor(ids, torch::kLong)).to(torch::kDouble), 0);
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < codes.size(); ++i) out.emplace_back(codes[i], probs[static_cast<std::int64_t>(i)].item<double>());
  // Highest first; ties keep the lower token id first, as argmax does.
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return special_.languages.at(a.first) < special_.languages.at(b.first);
  });
  return out;
}

std::vector<std::int64_t> WhisperTranscriber::Prompt(const std::string& language, const WhisperOptions& options) const {
  std::vector<std::int64_t> prompt;
  if (!options.previous_tokens.empty()) {
    if (special_.start_of_prev < 0) {
      Fail(ErrorCode::kInvalidArgument, tokenizer_.dir() + ": the checkpoint has no <|startofprev|> token to give previous text");
    }
    const std::int64_t vocab = model_->config().vocab_size;
    for (std::int64_t id : options.previous_tokens) {
      if (id < 0 || id >= special_.end_of_text) {
        Fail(ErrorCode::kInvalidArgument, "previous_tokens holds " + std::to_string(id) + ", not a text token (below " +
                                              std::to_string(special_.end_of_text) + " of " + std::to_string(vocab) + ")");
      }
    }
    // As the reference: the newest half of the decoder's positions at most.
    const auto keep = static_cast<std::size_t>(std::max<std::int64_t>(model_->config().max_target_positions / 2 - 1, 0));
    prompt.push_back(special_.start_of_prev);
    const std::size_t from = options.previous_tokens.size() > keep ? options.previous_tokens.size() - keep : 0;
    prompt.insert(prompt.end(), options.previous_tokens.begin() + static_cast<std::ptrdiff_t>(from), options.previous_tokens.end());
  }
  prompt.push_back(special_.start_of_transcript);
  if (multilingual()) {
    auto it = special_.languages.find(language);
    if (it == special_.languages.end()) {
      Fail(ErrorCode::kInvalidArgument, "language \"" + language + "\" has no token in this Whisper checkpoint (" +
                                            std::to_string(special_.languages.size()) + " languages, e.g. en, zh)");
    }
    prompt.push_back(it->second);
    const std::int64_t task = options.task == WhisperTask::kTranslate ? special_.translate : special_.transcribe;
    if (task < 0) Fail(ErrorCode::kInvalidArgument, tokenizer_.dir() + ": the checkpoint has no task token for this task");
    prompt.push_back(task);
  } else if (options.task == WhisperTask::kTranslate) {
    Fail(ErrorCode::kInvalidArgument, "this Whisper checkpoint is English-only: it cannot translate");
  } else if (!language.empty() && language != "en") {
    Fail(ErrorCode::kInvalidArgument, "this Whisper checkpoint is English-only: it cannot transcribe \"" + language + "\"");
  }
  if (!options.timestamps) prompt.push_back(special_.no_timestamps);
  return prompt;
}

WhisperResult WhisperTranscriber::Transcribe(const float* samples, std::int64_t count, const WhisperOptions& options) const {
  if (count > features_.window_samples()) {
    Fail(ErrorCode::kInvalidArgument, std::to_string(count) + " samples is more than one Whisper window (" +
                                          std::to_string(features_.window_samples()) + ")");
  }
  // The reference's attention mask: one mel frame per hop of heard samples.
  const std::int64_t hop = features_.options().hop_length;
  const std::int64_t heard_frames = (count + hop - 1) / hop;
  // The whole window's features either way: their normalization (the floor 8
  // below the maximum) and the padding's values are the window's.
  torch::Tensor features = features_.Compute(samples, count).unsqueeze(0);
  if (options.encode_heard_only) {
    const std::int64_t window = features.size(2);
    const std::int64_t frames = std::clamp<std::int64_t>(heard_frames + std::max<std::int64_t>(options.heard_margin_frames, 0), 2, window);
    features = features.narrow(2, 0, std::min(window, (frames + 1) / 2 * 2));
  }
  return TranscribeFeatures(features, options, heard_frames);
}

WhisperResult WhisperTranscriber::TranscribeFeatures(const torch::Tensor& features, const WhisperOptions& options,
                                                     std::int64_t heard_frames) const {
  torch::NoGradGuard no_grad;
  const WhisperConfig& c = model_->config();
  if (options.word_timestamps) RequireAlignmentHeads(c, tokenizer_.dir());  // before any work
  if (features.dim() != 3 || features.size(0) != 1) {
    Fail(ErrorCode::kInvalidArgument, "TranscribeFeatures takes one window of features (1, mels, frames), not " +
                                          ShapeString(features.sizes().vec()));
  }
  const torch::Tensor encoded = options.encoder_output.defined() ? options.encoder_output : model_->Encode(features);
  WhisperResult result;
  // A copy: on CUDA the encoder may hand out a graph's static buffer, which the
  // next encode of any session overwrites.
  if (options.keep_encoder_output) result.encoder_output = encoded.clone();
  result.language = options.language;
  if (multilingual() && options.language.empty()) {
    const auto detected = DetectLanguage(encoded);
    result.language = detected.front().first;
    result.language_probability = detected.front().second;
  } else if (!multilingual()) {
    result.language = "en";
  }
  std::vector<std::int64_t> prompt = Prompt(multilingual() ? result.language : "", options);
  // Whisper's rules start after the task prompt; a forced prefix is text they judge.
  const auto rules_begin = static_cast<std::int64_t>(prompt.size());
  const auto start_position = static_cast<std::int64_t>(
      std::find(prompt.begin(), prompt.end(), special_.start_of_transcript) - prompt.begin());
  for (std::int64_t id : options.prefix_tokens) {
    if (id < 0 || id >= c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, "prefix_tokens holds " + std::to_string(id) + ", outside vocab_size " +
                                            std::to_string(c.vocab_size));
    }
  }
  prompt.insert(prompt.end(), options.prefix_tokens.begin(), options.prefix_tokens.end());
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());

  GenerationOptions g;
  g.prompt = prompt;
  g.start_token_id = special_.start_of_transcript;
  g.eos_token_id = special_.end_of_text;
  g.pad_token_id = c.pad_token_id;
  g.num_beams = std::max<std::int64_t>(options.num_beams, 1);
  g.length_penalty = options.length_penalty;
  g.max_new_tokens = options.max_new_tokens > 0 ? options.max_new_tokens
                                                : std::min(c.max_length + prompt_length, c.max_target_positions) - prompt_length;
  if (prompt_length + g.max_new_tokens > c.max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "a prompt of " + std::to_string(prompt_length) + " tokens and max_new_tokens " +
                                          std::to_string(g.max_new_tokens) + " exceed max_target_positions (" +
                                          std::to_string(c.max_target_positions) + ")");
  }
  for (std::int64_t id : c.suppress_tokens) {
    if (id >= 0 && id < c.vocab_size) g.suppressed_tokens.push_back(id);
  }
  for (std::int64_t id : c.begin_suppress_tokens) {
    if (id < 0 || id >= c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, "begin_suppress_tokens holds " + std::to_string(id) + ", outside vocab_size " +
                                            std::to_string(c.vocab_size));
    }
  }
  const bool timestamps = options.timestamps;
  const bool end_loops = options.end_loops;
  if (timestamps || end_loops) {
    g.process_scores = [&, rules_begin, timestamps, end_loops](torch::Tensor& scores, const torch::Tensor& sequences) {
      ApplyWhisperRules(scores, sequences, rules_begin, timestamps, special_, c);
      if (end_loops) EndLoops(scores, sequences, rules_begin, special_);
    };
  } else if (rules_begin == prompt_length) {
    // Without timestamps Whisper's rules are the begin suppression alone: a mask
    // greedy search applies on the device (the static path, CUDA graphs). After a
    // forced prefix generation starts past rules_begin and it never applies.
    g.begin_suppressed_tokens = c.begin_suppress_tokens;
  }
  g.stop = options.stop;

  torch::Tensor after_start;  // the logits after <|startoftranscript|>
  std::vector<CrossKv> cross;  // what the decode projected, for the word timestamps
  const std::vector<std::int64_t> sequence =
      model_->Generate(encoded, g, start_position, after_start, nullptr, options.word_timestamps ? &cross : nullptr).front();
  if (after_start.defined()) {
    result.no_speech_probability = torch::softmax(after_start[0].to(torch::kCPU).to(torch::kFloat), 0)[special_.no_speech].item<double>();
  }
  result.sequence = sequence;
  result.tokens_begin = static_cast<std::size_t>(rules_begin);
  for (std::size_t i = static_cast<std::size_t>(rules_begin); i < sequence.size() && sequence[i] != special_.end_of_text; ++i) {
    result.tokens.push_back(sequence[i]);
  }
  if (end_loops && !options.word_timestamps) {
    // A loop that EndLoops ended keeps its phrase once (word timestamps align
    // every token of the sequence, so there the copies stay).
    std::vector<std::int64_t> text;
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < result.tokens.size(); ++i) {
      if (result.tokens[i] < special_.end_of_text) {
        text.push_back(result.tokens[i]);
        positions.push_back(i);
      }
    }
    if (const std::size_t looped = LoopedTokens(text); looped > 0) result.tokens.resize(positions[text.size() - looped]);
  }
  result.text = tokenizer_.Decode(result.tokens);
  const double window_seconds = static_cast<double>(features.size(2) * features_.options().hop_length) /
                                static_cast<double>(features_.options().sampling_rate);
  result.segments = timestamps ? Segments(result.tokens, window_seconds)
                               : std::vector<WhisperSegment>{{0.0, window_seconds, result.text}};
  if (options.word_timestamps) {
    // Translations are English whatever was spoken.
    AddWordTimes(encoded, cross, rules_begin, heard_frames > 0 ? std::min(heard_frames, features.size(2)) : features.size(2),
                 options.task == WhisperTask::kTranslate ? "en" : result.language, result);
  }
  return result;
}

void WhisperTranscriber::AddWordTimes(const torch::Tensor& encoded, const std::vector<CrossKv>& cross,
                                      std::int64_t rules_begin, std::int64_t heard_frames,
                                      const std::string& written_language, WhisperResult& result) const {
  WhisperWordTimes times = AlignWords(*model_, tokenizer_, encoded, result.sequence, rules_begin, heard_frames,
                                      written_language, special_.end_of_text, cross.empty() ? nullptr : &cross);
  result.token_timestamps = std::move(times.token_timestamps);
  result.words = std::move(times.words);
}

std::vector<WhisperSegment> WhisperTranscriber::Segments(const std::vector<std::int64_t>& tokens, double window_seconds) const {
  std::vector<WhisperSegment> segments;
  std::vector<std::int64_t> text;
  std::optional<double> start;
  for (std::int64_t id : tokens) {
    if (id >= special_.timestamp_begin) {
      const double time = static_cast<double>(id - special_.timestamp_begin) * kSecondsPerTimestamp;
      if (start && !text.empty()) {
        segments.push_back({*start, time, tokenizer_.Decode(text)});
        text.clear();
        start.reset();
      } else {
        start = time;
      }
    } else {
      text.push_back(id);
    }
  }
  if (!text.empty()) segments.push_back({start.value_or(0.0), window_seconds, tokenizer_.Decode(text)});
  return segments;
}

std::vector<double> WhisperTranscriber::ScoreOpenings(const torch::Tensor& encoder_out,
                                                      const std::vector<std::int64_t>& prompt,
                                                      const std::vector<std::vector<std::int64_t>>& openings,
                                                      std::size_t max_tokens) const {
  std::vector<double> scores(openings.size(), -std::numeric_limits<double>::infinity());
  if (openings.empty() || max_tokens == 0) return scores;
  if (prompt.empty()) Fail(ErrorCode::kInvalidArgument, "scoring openings needs a prompt to follow");
  const std::int64_t vocab = model_->config().vocab_size;
  for (const std::vector<std::int64_t>& opening : openings) {
    for (std::int64_t id : opening) {
      if (id < 0 || id >= vocab) {
        Fail(ErrorCode::kInvalidArgument, "an opening holds " + std::to_string(id) + ", outside vocab_size " +
                                              std::to_string(vocab));
      }
    }
  }
  // The prompt is every row's: fed once, its cache then copied to one row per
  // opening, which feeds only its own tokens (a short opening padded with its
  // last token or the prompt's, unscored; the decoder is causal, so padding
  // changes nothing before it).
  const std::int64_t rows = static_cast<std::int64_t>(openings.size());
  const auto width = static_cast<std::int64_t>(prompt.size() + max_tokens);
  if (width > model_->config().max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "a prompt of " + std::to_string(prompt.size()) + " tokens leaves no room for " +
                                          std::to_string(max_tokens) + " more in " +
                                          std::to_string(model_->config().max_target_positions) + " positions");
  }
  const torch::Device device = encoder_out.device();
  const std::unique_ptr<WhisperDecoderState> decoder = model_->StartDecoder(encoder_out, 1, width);
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());
  // The logits after the prompt: each opening's first token.
  const torch::Tensor first = torch::log_softmax(
      decoder->PrefillRows(torch::tensor(prompt, torch::kLong).view({1, prompt_length}).to(device), {prompt_length - 1}),
      -1);  // (1, 1, V)
  decoder->Select(torch::zeros({rows}, torch::kLong));
  // Then each opening's own tokens but its last: the logits of its later tokens.
  torch::Tensor later;  // (rows, max_tokens - 1, V)
  if (max_tokens > 1) {
    std::vector<std::int64_t> fed;
    for (const std::vector<std::int64_t>& opening : openings) {
      for (std::size_t i = 0; i + 1 < max_tokens; ++i) {
        fed.push_back(i < opening.size() ? opening[i] : (opening.empty() ? prompt.back() : opening.back()));
      }
    }
    std::vector<std::int64_t> positions(max_tokens - 1);
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
    const torch::Tensor input = torch::tensor(fed, torch::kLong).view({rows, -1}).to(device);
    later = torch::log_softmax(decoder->PrefillRows(input, positions), -1);
  }
  // Each row's scored tokens gathered on the device; only (rows, max_tokens) comes back.
  std::vector<std::int64_t> targets;
  for (const std::vector<std::int64_t>& opening : openings) {
    for (std::size_t i = 0; i < max_tokens; ++i) targets.push_back(i < opening.size() ? opening[i] : 0);
  }
  const auto columns = static_cast<std::int64_t>(max_tokens);
  const torch::Tensor index = torch::tensor(targets, torch::kLong).view({rows, columns}).to(device);
  torch::Tensor picked = first.view({-1}).index_select(0, index.select(1, 0)).unsqueeze(1);  // (rows, 1)
  if (later.defined()) {
    picked = torch::cat({picked, later.gather(2, index.narrow(1, 1, columns - 1).unsqueeze(2)).squeeze(2)}, 1);
  }
  picked = picked.to(torch::kCPU).contiguous();
  const float* values = picked.data_ptr<float>();
  for (std::size_t r = 0; r < openings.size(); ++r) {
    const std::size_t scored = std::min(openings[r].size(), max_tokens);
    if (scored == 0) continue;
    double sum = 0;
    for (std::size_t i = 0; i < scored; ++i) sum += values[r * max_tokens + i];
    scores[r] = sum / static_cast<double>(scored);
  }
  return scores;
}

}  // namespace lingcast::neural
