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

namespace {

// The k-th smallest (from 0) of the values of two sorted ranges, k < |a| + |b|:
// binary search for how many of the k + 1 smallest come from `a`.
double KthOfSorted(std::span<const double> a, std::span<const double> b, size_t k) {
  const size_t want = k + 1;
  size_t low = want > b.size() ? want - b.size() : 0, high = std::min(want, a.size());
  while (true) {
    const size_t from_a = low + (high - low) / 2, from_b = want - from_a;
    if (from_a < a.size() && from_b > 0 && b[from_b - 1] > a[from_a]) {
      low = from_a + 1;  // too few from a
    } else if (from_a > 0 && from_b < b.size() && a[from_a - 1] > b[from_b]) {
      high = from_a - 1;  // too many from a
    } else {
      if (from_a == 0) return b[from_b - 1];
      if (from_b == 0) return a[from_a - 1];
      return std::max(a[from_a - 1], b[from_b - 1]);
    }
  }
}

}  // namespace

Percentiles PercentilesOfSorted(std::span<const double> a, std::span<const double> b) {
  Percentiles p;
  const size_t n = a.size() + b.size();
  p.count = static_cast<int64_t>(n);
  if (n == 0) return p;
  auto rank = [&](double q) {
    const size_t index = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
    return KthOfSorted(a, b, std::min(n - 1, index == 0 ? 0 : index - 1));
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  return p;
}

void LiveMonitor::Figures::Add(const LiveLineRecord& r, std::optional<MediaTime> first_caption) {
  const HeardLine& l = r.line;
  ++lines;
  if (!l.line_number) ++off_script;
  if (r.skipped) ++skipped;
  if (r.spoken) ++spoken;
  if (!r.spoken && !r.skipped) ++subtitles_only;
  provisional_updates += l.provisional_updates;
  if (r.compute_latency) compute.push_back(Millis(*r.compute_latency));
  if (r.queue_wait) waits.push_back(Millis(*r.queue_wait));
  if (auto start = r.start_offset()) start_offsets.push_back(Millis(*start));
  if (auto end = r.end_offset()) end_offsets.push_back(Millis(*end));
  if (l.commit_point) commit_points.push_back(*l.commit_point);
  if (first_caption) first_captions.push_back(Millis(*first_caption - l.utterance_start));
}

void LiveMonitor::Figures::Sort() {
  for (std::vector<double>* v : {&compute, &waits, &start_offsets, &end_offsets, &commit_points, &first_captions}) {
    std::sort(v->begin(), v->end());
  }
}

void LiveMonitor::Figures::SortLast() {
  for (std::vector<double>* v : {&compute, &waits, &start_offsets, &end_offsets, &commit_points, &first_captions}) {
    if (v->size() > 1) std::rotate(std::upper_bound(v->begin(), v->end() - 1, v->back()), v->end() - 1, v->end());
  }
}

std::optional<MediaTime> LiveMonitor::FirstCaptionLocked(const LiveLineRecord& record) const {
  const auto it = first_caption_.find(record.line.utterance);
  if (it == first_caption_.end() || record.line.provisional_updates == 0) return std::nullopt;
  return it->second;
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
  MutexLock lock(&mu_);
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
  folded_.Add(r, FirstCaptionLocked(r));
  folded_.SortLast();
  // Utterances before the oldest kept line's are no kept line's.
  const int64_t oldest = records_.empty() ? l.utterance : records_.begin()->second.line.utterance;
  utterances_.erase(utterances_.begin(), utterances_.lower_bound(std::min(oldest, l.utterance)));
  first_caption_.erase(first_caption_.begin(), first_caption_.lower_bound(std::min(oldest, l.utterance)));
}

void LiveMonitor::UtteranceEnd(const UtteranceEnded& ended) {
  MutexLock lock(&mu_);
  utterances_[ended.utterance] = ended;
  for (auto& [id, record] : records_) {
    if (record.line.utterance == ended.utterance) record.utterance = ended;
  }
}

void LiveMonitor::SpeechStarted(int64_t id, MediaTime at, MediaTime compute_latency, MediaTime queue_wait) {
  if (observed()) Publish({{"type", "speech_start"}, {"line", id}, {"at_ms", at.millis()}});
  MutexLock lock(&mu_);
  if (!records_.empty() && id < records_.begin()->first) return;  // folded already
  LiveLineRecord& record = records_[id];
  record.spoken = true;
  record.speech_start = at;
  record.compute_latency = compute_latency;
  record.queue_wait = queue_wait;
}

void LiveMonitor::SpeechEnded(int64_t id, MediaTime at) {
  if (observed()) Publish({{"type", "speech_end"}, {"line", id}, {"at_ms", at.millis()}});
  MutexLock lock(&mu_);
  if (!records_.empty() && id < records_.begin()->first) return;  // folded already
  records_[id].speech_end = at;
}

void LiveMonitor::CaptionShown(int64_t utterance, MediaTime at) {
  MutexLock lock(&mu_);
  first_caption_.try_emplace(utterance, at);
}

void LiveMonitor::UpdateCounters(const LiveCounters& counters) {
  {
    MutexLock lock(&mu_);
    counters_ = counters;
  }
  if (tick_observer_) tick_observer_(counters);
}

LiveCounters LiveMonitor::counters() const {
  MutexLock lock(&mu_);
  return counters_;
}

int64_t LiveMonitor::line_count() const {
  MutexLock lock(&mu_);
  return folded_.lines + static_cast<int64_t>(records_.size());
}

std::vector<LiveLineRecord> LiveMonitor::records() const {
  MutexLock lock(&mu_);
  std::vector<LiveLineRecord> out;
  for (const auto& [id, record] : records_) out.push_back(record);
  return out;
}

nlohmann::json LiveMonitor::Report(const std::vector<LatencySummary>& stage_latency, const nlohmann::json& extra) const {
  const LiveCounters c = counters();
  std::vector<LiveLineRecord> lines;
  std::vector<std::optional<MediaTime>> first_captions;
  nlohmann::json summary;
  {
    // Bounded work under the lock, whatever the show's length: the kept
    // records (at most kKeptRecords) are copied and their figures sorted; the
    // folded lines' figures are read in place (sorted as they were folded).
    MutexLock lock(&mu_);
    Figures kept;
    for (const auto& [id, record] : records_) {
      lines.push_back(record);
      first_captions.push_back(FirstCaptionLocked(record));
      kept.Add(record, first_captions.back());
    }
    kept.Sort();
    const Figures& f = folded_;
    summary["lines"] = f.lines + kept.lines;
    summary["lines_not_listed"] = f.lines;  // older than the last kKeptRecords
    summary["spoken"] = f.spoken + kept.spoken;
    summary["skipped"] = f.skipped + kept.skipped;
    summary["subtitles_only"] = f.subtitles_only + kept.subtitles_only;
    summary["off_script"] = f.off_script + kept.off_script;
    summary["compute_latency_ms"] = PercentilesJson(PercentilesOfSorted(f.compute, kept.compute));
    summary["queue_wait_ms"] = PercentilesJson(PercentilesOfSorted(f.waits, kept.waits));
    summary["start_offset_ms"] = PercentilesJson(PercentilesOfSorted(f.start_offsets, kept.start_offsets));
    summary["end_offset_ms"] = PercentilesJson(PercentilesOfSorted(f.end_offsets, kept.end_offsets));
    summary["commit_point"] = PercentilesJson(PercentilesOfSorted(f.commit_points, kept.commit_points));
    summary["provisional_updates"] = f.provisional_updates + kept.provisional_updates;
    summary["first_provisional_ms"] = PercentilesJson(PercentilesOfSorted(f.first_captions, kept.first_captions));
  }
  nlohmann::json utterances = nlohmann::json::array();
  for (size_t i = 0; i < lines.size(); ++i) {
    const LiveLineRecord& r = lines[i];
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
    u["opening_logp"] = l.opening_logp ? nlohmann::json(std::round(*l.opening_logp * 1000) / 1000) : nlohmann::json(nullptr);
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
    const std::optional<MediaTime> first_provisional =
        first_captions[i] ? std::optional<MediaTime>(*first_captions[i] - l.utterance_start) : std::nullopt;
    u["provisional_updates"] = l.provisional_updates;
    u["first_provisional_ms"] = OptionalMillis(first_provisional);
    u["provisional_revised"] = l.revised;
    utterances.push_back(std::move(u));
  }
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
