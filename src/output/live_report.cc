#include "output/live_report.h"

#include <algorithm>
#include <cmath>

namespace lingcast {

namespace {

double Millis(MediaTime t) { return std::round(t.micros() / 100.0) / 10.0; }

nlohmann::json OptionalMillis(const std::optional<MediaTime>& t) {
  return t ? nlohmann::json(Millis(*t)) : nlohmann::json(nullptr);
}

nlohmann::json PercentilesJson(const Percentiles& p) {
  return {{"p50", p.p50}, {"p95", p.p95}, {"p99", p.p99}, {"count", p.count}};
}

}  // namespace

std::optional<MediaTime> LiveLineRecord::start_offset() const {
  if (!speech_start) return std::nullopt;
  return *speech_start - line.utterance_start;
}

std::optional<MediaTime> LiveLineRecord::end_offset() const {
  if (!speech_end || !utterance) return std::nullopt;
  return *speech_end - utterance->end;
}

Percentiles ComputePercentiles(std::vector<double> values) {
  Percentiles p;
  p.count = static_cast<int64_t>(values.size());
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    const size_t index = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, index == 0 ? 0 : index - 1)];
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  return p;
}

void LiveMonitor::Publish(const nlohmann::json& event) const {
  if (observer_) observer_(event);
}

void LiveMonitor::LineQueued(const SpokenLine& spoken) {
  if (observed()) {
    const HeardLine& line = spoken.line;
    nlohmann::json event = {{"type", "decision"},       {"line", line.id},
                            {"source", line.source_text}, {"translation", line.translation},
                            {"engine", line.engine},      {"skipped", spoken.skipped},
                            {"at_ms", line.decided_at.millis()}};
    event["line_number"] = line.line_number ? nlohmann::json(*line.line_number) : nlohmann::json(nullptr);
    Publish(event);
  }
  absl::MutexLock lock(&mu_);
  if (records_.empty() || spoken.line.id >= records_.begin()->first) {  // (a folded line's news is late)
    LiveLineRecord& record = records_[spoken.line.id];
    record.line = spoken.line;
    record.skipped = spoken.skipped;
    record.rate = spoken.rate;
    if (auto it = utterances_.find(spoken.line.utterance); it != utterances_.end()) record.utterance = it->second;
  }
  while (records_.size() > kKeptRecords) FoldOldestLocked();
}

void LiveMonitor::FoldOldestLocked() {
  const LiveLineRecord r = std::move(records_.begin()->second);
  records_.erase(records_.begin());
  const HeardLine& l = r.line;
  Folded& f = folded_;
  ++f.lines;
  if (!l.line_number) ++f.off_script;
  if (r.skipped) ++f.skipped;
  if (r.spoken) ++f.spoken;
  if (!r.spoken && !r.skipped) ++f.subtitles_only;
  f.provisional_updates += l.provisional_updates;
  if (r.compute_latency) f.compute.push_back(Millis(*r.compute_latency));
  if (r.queue_wait) f.waits.push_back(Millis(*r.queue_wait));
  if (auto start = r.start_offset()) f.start_offsets.push_back(Millis(*start));
  if (auto end = r.end_offset()) f.end_offsets.push_back(Millis(*end));
  if (l.commit_point) f.commit_points.push_back(*l.commit_point);
  if (auto it = first_caption_.find(l.utterance); it != first_caption_.end() && l.provisional_updates > 0) {
    f.first_captions.push_back(Millis(it->second - l.utterance_start));
  }
  // Utterances before the oldest kept line's are no kept line's.
  const int64_t oldest = records_.empty() ? l.utterance : records_.begin()->second.line.utterance;
  utterances_.erase(utterances_.begin(), utterances_.lower_bound(std::min(oldest, l.utterance)));
  first_caption_.erase(first_caption_.begin(), first_caption_.lower_bound(std::min(oldest, l.utterance)));
}

void LiveMonitor::UtteranceEnd(const UtteranceEnded& ended) {
  absl::MutexLock lock(&mu_);
  utterances_[ended.utterance] = ended;
  for (auto& [id, record] : records_) {
    if (record.line.utterance == ended.utterance) record.utterance = ended;
  }
}

void LiveMonitor::SpeechStarted(int64_t id, MediaTime at, MediaTime compute_latency, MediaTime queue_wait) {
  if (observed()) Publish({{"type", "speech_start"}, {"line", id}, {"at_ms", at.millis()}});
  absl::MutexLock lock(&mu_);
  if (!records_.empty() && id < records_.begin()->first) return;  // folded already
  LiveLineRecord& record = records_[id];
  record.spoken = true;
  record.speech_start = at;
  record.compute_latency = compute_latency;
  record.queue_wait = queue_wait;
}

void LiveMonitor::SpeechEnded(int64_t id, MediaTime at) {
  if (observed()) Publish({{"type", "speech_end"}, {"line", id}, {"at_ms", at.millis()}});
  absl::MutexLock lock(&mu_);
  if (!records_.empty() && id < records_.begin()->first) return;  // folded already
  records_[id].speech_end = at;
}

void LiveMonitor::CaptionShown(int64_t utterance, MediaTime at) {
  absl::MutexLock lock(&mu_);
  first_caption_.try_emplace(utterance, at);
}

void LiveMonitor::UpdateCounters(const LiveCounters& counters) {
  {
    absl::MutexLock lock(&mu_);
    counters_ = counters;
  }
  if (tick_observer_) tick_observer_(counters);
}

LiveCounters LiveMonitor::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

int64_t LiveMonitor::line_count() const {
  absl::MutexLock lock(&mu_);
  return folded_.lines + static_cast<int64_t>(records_.size());
}

std::vector<LiveLineRecord> LiveMonitor::records() const {
  absl::MutexLock lock(&mu_);
  std::vector<LiveLineRecord> out;
  for (const auto& [id, record] : records_) out.push_back(record);
  return out;
}

nlohmann::json LiveMonitor::Report(const std::vector<LatencySummary>& stage_latency, const nlohmann::json& extra) const {
  const LiveCounters c = counters();
  std::vector<LiveLineRecord> lines;
  std::map<int64_t, MediaTime> first_caption;
  Folded folded;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, record] : records_) lines.push_back(record);
    first_caption = first_caption_;
    folded = folded_;
  }
  nlohmann::json utterances = nlohmann::json::array();
  std::vector<double> compute = std::move(folded.compute), waits = std::move(folded.waits),
                      start_offsets = std::move(folded.start_offsets), end_offsets = std::move(folded.end_offsets),
                      commit_points = std::move(folded.commit_points), first_captions = std::move(folded.first_captions);
  int64_t spoken = folded.spoken, skipped = folded.skipped, subtitles_only = folded.subtitles_only,
          off_script = folded.off_script, provisional_updates = folded.provisional_updates;
  for (const LiveLineRecord& r : lines) {
    const HeardLine& l = r.line;
    nlohmann::json u;
    u["id"] = l.id;
    u["utterance"] = l.utterance;
    u["line"] = l.line_number ? nlohmann::json(*l.line_number) : nlohmann::json(nullptr);
    u["off_script"] = !l.line_number.has_value();
    u["source_text"] = l.source_text;
    u["heard"] = l.heard;
    u["translation"] = l.translation;
    u["engine"] = l.engine.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.engine);
    u["confidence"] = std::round(l.confidence * 1000) / 1000;
    u["commit_point"] = l.commit_point ? nlohmann::json(std::round(*l.commit_point * 1000) / 1000) : nlohmann::json(nullptr);
    u["spoken"] = r.spoken;
    u["skipped"] = r.skipped;
    u["rate"] = std::round(r.rate * 1000) / 1000;
    u["utterance_start_ms"] = Millis(l.utterance_start);
    u["utterance_end_ms"] = r.utterance ? nlohmann::json(Millis(r.utterance->end)) : nlohmann::json(nullptr);
    u["decided_at_ms"] = Millis(l.decided_at);
    u["speech_start_ms"] = OptionalMillis(r.speech_start);
    u["speech_end_ms"] = OptionalMillis(r.speech_end);
    u["start_offset_ms"] = OptionalMillis(r.start_offset());
    u["end_offset_ms"] = OptionalMillis(r.end_offset());
    u["compute_latency_ms"] = OptionalMillis(r.compute_latency);
    u["queue_wait_ms"] = OptionalMillis(r.queue_wait);
    // The captions belong to the line that closed its utterance's captions.
    std::optional<MediaTime> first_provisional;
    if (auto it = first_caption.find(l.utterance); it != first_caption.end() && l.provisional_updates > 0) {
      first_provisional = it->second - l.utterance_start;
      first_captions.push_back(Millis(*first_provisional));
    }
    u["provisional_updates"] = l.provisional_updates;
    u["first_provisional_ms"] = OptionalMillis(first_provisional);
    u["provisional_revised"] = l.revised;
    provisional_updates += l.provisional_updates;
    utterances.push_back(std::move(u));

    if (!l.line_number) ++off_script;
    if (r.skipped) ++skipped;
    if (r.spoken) ++spoken;
    if (!r.spoken && !r.skipped) ++subtitles_only;
    if (r.compute_latency) compute.push_back(Millis(*r.compute_latency));
    if (r.queue_wait) waits.push_back(Millis(*r.queue_wait));
    if (auto s = r.start_offset()) start_offsets.push_back(Millis(*s));
    if (auto e = r.end_offset()) end_offsets.push_back(Millis(*e));
    if (l.commit_point) commit_points.push_back(*l.commit_point);
  }
  nlohmann::json summary;
  summary["lines"] = folded.lines + static_cast<int64_t>(lines.size());
  summary["lines_not_listed"] = folded.lines;  // older than the last kKeptRecords
  summary["spoken"] = spoken;
  summary["skipped"] = skipped;
  summary["subtitles_only"] = subtitles_only;
  summary["off_script"] = off_script;
  summary["compute_latency_ms"] = PercentilesJson(ComputePercentiles(compute));
  summary["queue_wait_ms"] = PercentilesJson(ComputePercentiles(waits));
  summary["start_offset_ms"] = PercentilesJson(ComputePercentiles(start_offsets));
  summary["end_offset_ms"] = PercentilesJson(ComputePercentiles(end_offsets));
  summary["commit_point"] = PercentilesJson(ComputePercentiles(commit_points));
  summary["provisional_updates"] = provisional_updates;
  summary["first_provisional_ms"] = PercentilesJson(ComputePercentiles(first_captions));
  summary["audio_drops"] = c.audio_drops;
  summary["video_drops"] = c.video_drops;
  summary["video_switches"] = c.video_switches;
  summary["passthrough_underruns"] = c.passthrough_underruns;
  summary["voice_underruns"] = c.voice_underruns;
  summary["frames"] = c.frames;
  summary["output_seconds"] = c.output_time.seconds();
  summary["host_seconds"] = c.host_time.seconds();
  summary.update(extra);

  nlohmann::json stages = nlohmann::json::object();
  for (const LatencySummary& s : stage_latency) {
    stages[s.boundary] = {{"count", s.count},   {"p50_ms", Millis(s.p50)}, {"p95_ms", Millis(s.p95)},
                          {"p99_ms", Millis(s.p99)}, {"max_ms", Millis(s.max)}};
  }
  return {{"utterances", std::move(utterances)}, {"summary", std::move(summary)}, {"stage_latency", std::move(stages)}};
}

}  // namespace lingcast
