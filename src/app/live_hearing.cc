#include "app/live_hearing.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {

namespace {
constexpr MediaTime kIngestPiece = MediaTime::Millis(20);
constexpr size_t kContextLines = 3;
}  // namespace

// --- LiveIngest ---------------------------------------------------------------

LiveIngest::LiveIngest(LiveAudioReader read, LiveIngestOptions options, const std::atomic<bool>& stop)
    : Stage("ingest"), read_(std::move(read)), options_(options), stop_(stop) {}

absl::StatusOr<Flow> LiveIngest::Process() {
  if (stop_.load()) return Flow::kFinished;
  AudioBuffer chunk;
  LC_ASSIGN_OR_RETURN(const bool more, read_(chunk));
  if (!more) return Flow::kFinished;
  if (chunk.sample_rate != 16000 || chunk.channels != 1) {
    return absl::InternalError("the live source must deliver 16 kHz mono audio");
  }
  // Pieces of at most 20 ms, so the VAD and the watermarks move in small steps
  // whatever size the source reads.
  const int64_t piece = kIngestPiece.micros() * 16000 / 1'000'000;
  for (size_t begin = 0; begin < chunk.samples.size(); begin += static_cast<size_t>(piece)) {
    const size_t end = std::min(chunk.samples.size(), begin + static_cast<size_t>(piece));
    AudioBuffer part{16000, 1, std::vector<float>(chunk.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                                                  chunk.samples.begin() + static_cast<std::ptrdiff_t>(end))};
    const MediaTime pts = MediaTime::FromSamples(samples_, 16000);
    samples_ += static_cast<int64_t>(part.samples.size());
    const MediaTime part_end = MediaTime::FromSamples(samples_, 16000);
    // A live source delivers a piece once all of it has been captured.
    if (options_.pace) clock().SleepUntil(options_.session_start + part_end);
    const MediaTime origin = options_.origin_from_timeline ? options_.session_start + part_end : clock().Now();
    position_us_.store(part_end.micros());
    LC_RETURN_IF_ERROR(out.Push(Packet<AudioBuffer>{std::move(part), pts, part_end - pts, origin}));
    if (stop_.load()) return Flow::kFinished;
  }
  return Flow::kContinue;
}

// --- LiveHear -----------------------------------------------------------------

LiveHear::LiveHear(SpeechFollower follower, std::vector<FollowerLine> lines)
    : Stage("hear"), follower_(std::move(follower)), lines_(std::move(lines)) {}

absl::StatusOr<Flow> LiveHear::Process() {
  auto packet = in.Pop();
  if (!packet) {
    // End of input: the utterance in flight is finished and decided.
    LC_RETURN_IF_ERROR(
        follower_.Flush([&](FollowEvent event) { return Send(std::move(event), heard_until_, last_origin_); }));
    LC_RETURN_IF_ERROR(SendWatermark(follower_.position(), last_origin_));
    return Flow::kFinished;
  }
  last_origin_ = packet->origin;
  const MediaTime origin = packet->origin;
  LC_RETURN_IF_ERROR(follower_.Push(
      packet->value, [&](FollowEvent event) { return Send(std::move(event), heard_until_, origin); }));
  heard_until_ = packet->end();
  LC_RETURN_IF_ERROR(SendWatermark(heard_until_, origin));
  return Flow::kContinue;
}

absl::Status LiveHear::Send(FollowEvent event, MediaTime watermark, MediaTime origin) {
  LiveEvent out_event;
  out_event.watermark = watermark;
  if (event.type == FollowEvent::Type::kDecision) {
    const FollowDecision& d = event.decision;
    HeardLine line;
    line.id = next_id_++;
    line.utterance = event.utterance;
    line.confidence = d.confidence;
    line.commit_point = d.commit_point;
    line.at_endpoint = d.at_endpoint;
    line.heard = d.heard;
    line.utterance_start = event.utterance_start;
    line.decided_at = event.decided_at;
    line.trigger_origin = origin;
    if (!d.off_script && d.line && static_cast<size_t>(*d.line) < lines_.size()) {
      const FollowerLine& script_line = lines_[static_cast<size_t>(*d.line)];
      line.line_number = script_line.line_number;
      line.source_text = script_line.source;
      line.translation = script_line.translation;
      line.engine = line.translation.empty() ? "" : "script";
    } else {
      line.source_text = d.heard;
    }
    out_event.line = std::move(line);
  } else if (event.type == FollowEvent::Type::kUtteranceEnd) {
    out_event.ended = UtteranceEnded{event.utterance, event.utterance_start, event.utterance_end, event.text};
  } else {
    return absl::OkStatus();
  }
  return out.Push(Packet<LiveEvent>{std::move(out_event), watermark, MediaTime::Zero(), origin});
}

absl::Status LiveHear::SendWatermark(MediaTime watermark, MediaTime origin) {
  // Everything heard up to here has been decided.
  LiveEvent mark;
  mark.watermark = watermark;
  return out.Push(Packet<LiveEvent>{std::move(mark), watermark, MediaTime::Zero(), origin});
}

// --- LiveTranslate ------------------------------------------------------------

LiveTranslate::LiveTranslate(TranslationStack& stack, Language from, Language to, std::vector<FollowerLine> lines,
                             LiveControl* control, Logger& logger)
    : Stage("translate"),
      stack_(stack),
      from_(from),
      to_(to),
      lines_(std::move(lines)),
      control_(control),
      logger_(logger) {
  // Corrections of earlier shows (--corrections) that name a script line.
  if (stack_.corrections) {
    for (const Correction& c : stack_.corrections->corrections()) {
      if (c.kind != Correction::Kind::kLine || c.from != from_ || c.to != to_) continue;
      for (const FollowerLine& line : lines_) {
        if (line.source == c.source) corrected_lines_[c.source] = c.target;
      }
    }
  }
}

void LiveTranslate::ApplyControl() {
  if (control_ == nullptr) return;
  for (ControlInput& input : control_->Take()) {
    absl::Status applied = input.command.ok() ? Apply(*input.command) : input.command.status();
    if (applied.ok()) {
      corrections_applied_.fetch_add(1);
      logger_.Info("live", "correction applied", {{"at", input.where}, {"command", input.command->text}});
    } else {
      corrections_rejected_.fetch_add(1);
      logger_.Warn("live", "correction not applied",
                   {{"at", input.where}, {"reason", std::string(applied.message())}});
    }
  }
}

absl::Status LiveTranslate::Apply(const ControlCommand& command) {
  Correction correction;
  correction.from = from_;
  correction.to = to_;
  correction.target = command.target;
  switch (command.kind) {
    case ControlCommand::Kind::kLine: {
      auto line = std::find_if(lines_.begin(), lines_.end(),
                               [&](const FollowerLine& l) { return l.line_number == command.line_number; });
      if (line == lines_.end()) {
        return absl::NotFoundError(absl::StrCat("line ", command.line_number, " is not a script line in ",
                                                std::string(LanguageCode(from_))));
      }
      correction.source = line->source;
      LC_RETURN_IF_ERROR(Keep(correction));
      corrected_lines_[line->source] = command.target;
      return absl::OkStatus();
    }
    case ControlCommand::Kind::kTerm:
      correction.kind = Correction::Kind::kTerm;
      correction.source = command.source;
      return Keep(correction);
    case ControlCommand::Kind::kMemory:
      correction.source = command.source;
      return Keep(correction);
  }
  return absl::InternalError("unknown control command");
}

absl::Status LiveTranslate::Keep(const Correction& correction) {
  if (correction.kind == Correction::Kind::kTerm && stack_.glossary == nullptr) {
    return absl::FailedPreconditionError("a term correction needs a glossary (--glossary)");
  }
  if (stack_.corrections && stack_.memory != nullptr) {
    // Recorded first: a correction that cannot be kept changes nothing.
    return stack_.corrections->Record(correction, *stack_.memory, stack_.glossary.get());
  }
  if (correction.kind == Correction::Kind::kTerm) {
    GlossaryTerm term;
    term.origin = "correction";
    (correction.from == Language::kZh ? term.zh : term.en) = correction.source;
    (correction.to == Language::kZh ? term.zh : term.en) = correction.target;
    stack_.glossary->Put(std::move(term));
  } else if (stack_.memory != nullptr) {
    stack_.memory->Put(TmEntry{correction.source, correction.target, correction.from, correction.to, "correction"});
  }
  return absl::OkStatus();
}

absl::StatusOr<Flow> LiveTranslate::Process() {
  auto packet = in.Pop();
  if (!packet) return Flow::kFinished;
  ApplyControl();
  if (packet->value.line) {
    HeardLine& line = *packet->value.line;
    if (line.line_number) {
      if (auto corrected = corrected_lines_.find(line.source_text); corrected != corrected_lines_.end()) {
        line.translation = corrected->second;
        line.engine = "correction";
      }
    }
    if (line.translation.empty() && !line.line_number && stack_.chain != nullptr && !line.source_text.empty()) {
      TranslationRequest request;
      request.source = line.source_text;
      request.from = from_;
      request.to = to_;
      request.context.assign(context_.begin(), context_.end());
      request.glossary = stack_.glossary.get();
      absl::StatusOr<Translation> translated = stack_.chain->Translate(request);
      if (translated.ok()) {
        line.translation = translated->text;
        line.engine = translated->engine;
      } else {
        failures_.fetch_add(1);
      }
    }
    if (!line.translation.empty()) {
      context_.push_back({line.source_text, line.translation});
      if (context_.size() > kContextLines) context_.erase(context_.begin());
    }
  }
  LC_RETURN_IF_ERROR(out.Push(std::move(*packet)));
  return Flow::kContinue;
}

}  // namespace lingcast
