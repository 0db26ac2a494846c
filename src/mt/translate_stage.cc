#include "mt/translate_stage.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {

namespace {
constexpr size_t kContextLines = 3;

// The warning for an off-script line no engine could translate (it shows as subtitles only).
absl::Status Untranslated(const HeardLine& line, const absl::Status& why) {
  return absl::Status(why.code(), absl::StrCat("off-script line ", line.id, " left untranslated: ", why.message()));
}
}  // namespace

TranslateStage::TranslateStage(TranslationStack& stack, Language from, Language to, std::vector<FollowerLine> lines,
                               LiveControl* control, Logger& logger, ProvisionalOptions provisional)
    : Stage("translate"),
      stack_(stack),
      from_(from),
      to_(to),
      lines_(std::move(lines)),
      control_(control),
      logger_(logger),
      provisional_(provisional),
      spelling_(stack_.memory != nullptr ? stack_.memory->spelling(from_) : MatchSpelling(from_)) {
  for (const FollowerLine& line : lines_) script_tokens_.push_back(spelling_.Tokens(line.spoken.empty() ? line.source : line.spoken));
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

void TranslateStage::ApplyControl() {
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

absl::Status TranslateStage::Apply(const ControlCommand& command) {
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
    case ControlCommand::Kind::kVideo:
      break;  // LiveControl hands these to the playout (TakeVideoChanges), never here
  }
  return absl::InternalError("unknown control command");
}

absl::Status TranslateStage::Keep(const Correction& correction) {
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

bool TranslateStage::MayBeScripted(const std::string& heard, const std::vector<std::vector<std::string>>& script_tokens,
                                   const ProvisionalOptions& options) {
  if (script_tokens.empty()) return false;
  const std::vector<std::string> words = MatchTokens(heard);
  if (words.size() < static_cast<size_t>(std::max(1, options.min_words))) return true;
  const double bar = options.max_script_distance * static_cast<double>(words.size());
  // Close to some stretch of a line (mt/match_text.h: BestStretch).
  for (const std::vector<std::string>& line : script_tokens) {
    if (BestStretch(words, line).distance <= bar) return true;
  }
  return false;
}

TranslateStage::AdLib& TranslateStage::AdLibOf(int64_t utterance) {
  if (!ad_lib_ || ad_lib_->utterance != utterance) {
    // A new utterance: the last one's session, if it was never closed, is done.
    ad_lib_.emplace();
    ad_lib_->utterance = utterance;
  }
  return *ad_lib_;
}

int TranslateStage::CloseAdLib(int64_t utterance) {
  if (pending_partial_ && pending_partial_->value.partial->utterance <= utterance) {
    pending_partial_.reset();  // stale: its line is here
    provisional_dropped_.fetch_add(1);
  }
  AdLib& ad_lib = AdLibOf(utterance);
  ad_lib.closed = true;
  ad_lib.session.reset();
  return std::exchange(ad_lib.updates, 0);
}

absl::Status TranslateStage::TranslateLine(HeardLine& line) {
  if (line.line_number) {
    if (auto corrected = corrected_lines_.find(line.source_text); corrected != corrected_lines_.end()) {
      line.translation = corrected->second;
      line.engine = "correction";
    }
    line.provisional_updates = CloseAdLib(line.utterance);
  } else if (line.translation.empty() && stack_.chain != nullptr && !line.source_text.empty()) {
    std::string shown_stable;
    bool translated = false;
    if (ad_lib_ && ad_lib_->utterance == line.utterance && !ad_lib_->closed) {
      shown_stable = ad_lib_->shown_stable;
      if (ad_lib_->session) {
        // The session's final: no second engine call when the last partial
        // translated was already the whole line.
        absl::StatusOr<SessionOutput> finished = ad_lib_->session->Finish(line.source_text);
        if (finished.ok()) {
          line.translation = finished->stable;
          line.engine = finished->engine;
          line.revised = finished->revised;
          translated = true;
        } else if (!absl::IsCancelled(finished.status())) {
          failures_.fetch_add(1);
          Warn(Untranslated(line, finished.status()));
          translated = true;  // the engines were asked: nothing to say
        }
      }
    }
    if (!translated) {
      TranslationRequest request;
      request.source = line.source_text;
      request.from = from_;
      request.to = to_;
      request.context.assign(context_.begin(), context_.end());
      request.glossary = stack_.glossary.get();
      absl::StatusOr<Translation> translation = stack_.chain->Translate(request);
      if (translation.ok()) {
        line.translation = translation->text;
        line.engine = translation->engine;
        const std::string stable = shown_stable.substr(0, shown_stable.find_last_not_of(' ') + 1);
        line.revised = !stable.empty() && !absl::StartsWith(line.translation, stable);
      } else {
        failures_.fetch_add(1);
        Warn(Untranslated(line, translation.status()));
      }
    }
    line.provisional_updates = CloseAdLib(line.utterance);
  } else {
    line.provisional_updates = CloseAdLib(line.utterance);
  }
  // The translators had nothing: the recognizer's own translation, when it made one.
  if (!line.line_number && line.translation.empty() && !line.speech_translation.empty()) {
    line.translation = line.speech_translation;
    line.engine = "whisper";
  }
  if (!line.translation.empty()) {
    context_.push_back({line.source_text, line.translation});
    if (context_.size() > kContextLines) context_.erase(context_.begin());
  }
  return absl::OkStatus();
}

absl::Status TranslateStage::TranslatePartial() {
  Packet<LiveEvent> packet = std::move(*pending_partial_);
  pending_partial_.reset();
  const HeardPartial& partial = *packet.value.partial;
  if (!provisional_.enabled || stack_.chain == nullptr) return absl::OkStatus();
  if (provisional_pause_.load()) {
    provisional_paused_.fetch_add(1);
    return absl::OkStatus();
  }
  AdLib& ad_lib = AdLibOf(partial.utterance);
  if (ad_lib.closed) return absl::OkStatus();
  if (!ad_lib.off_script) {
    if (MayBeScripted(spelling_.Spell(partial.text), script_tokens_, provisional_)) return absl::OkStatus();
    ad_lib.off_script = true;  // for the rest of the utterance: no flicker between the two
  }
  if (!ad_lib.session) {
    TranslationSessionOptions options;
    options.from = from_;
    options.to = to_;
    options.context = context_;
    options.glossary = stack_.glossary.get();
    options.min_new_tokens = provisional_.min_new_tokens;
    options.agreement = provisional_.agreement;
    LC_ASSIGN_OR_RETURN(TranslationSession session, TranslationSession::Create(*stack_.chain, std::move(options)));
    ad_lib.session.emplace(std::move(session));
  }
  ProvisionalInterrupt* interrupt = provisional_.interrupt;
  if (interrupt != nullptr && !interrupt->Begin(*ad_lib.session, urgent_taken_)) {
    provisional_dropped_.fetch_add(1);  // a line or an utterance's end is waiting: it goes first
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<SessionOutput>> updated = ad_lib.session->Update(partial.text);
  if (interrupt != nullptr) interrupt->End();
  if (!updated.ok()) {
    if (absl::IsCancelled(updated.status())) {
      ad_lib.session.reset();  // interrupted for a line: its final is translated on its own
    } else {
      // A sick engine costs this caption, never the show; the line's final
      // translation still asks the engines again.
      provisional_failures_.fetch_add(1);
      Warn(absl::Status(updated.status().code(),
                        absl::StrCat("a provisional caption was not translated: ", updated.status().message())));
    }
    return absl::OkStatus();
  }
  if (!updated->has_value()) return absl::OkStatus();
  const SessionOutput& output = **updated;
  ad_lib.shown_stable = output.stable;
  ++ad_lib.updates;
  provisional_captions_.fetch_add(1);
  LiveEvent event;
  watermark_ = std::max(watermark_, packet.value.watermark);
  event.watermark = watermark_;
  event.caption = ProvisionalCaption{partial.utterance, partial.text,          output.stable,     output.provisional,
                                     ad_lib.updates,    partial.utterance_start, partial.decided_at};
  return out.Push(Packet<LiveEvent>{std::move(event), watermark_, MediaTime::Zero(), packet.origin});
}

absl::Status TranslateStage::Handle(Packet<LiveEvent> packet) {
  ApplyControl();
  LiveEvent& event = packet.value;
  if (event.partial) {
    if (pending_partial_) provisional_dropped_.fetch_add(1);  // a newer one is here
    pending_partial_ = std::move(packet);
    return absl::OkStatus();
  }
  if (event.line || event.ended) ++urgent_taken_;
  if (event.line) LC_RETURN_IF_ERROR(TranslateLine(*event.line));
  if (event.ended) CloseAdLib(event.ended->utterance);
  watermark_ = std::max(watermark_, event.watermark);
  return out.Push(std::move(packet));
}

absl::StatusOr<Flow> TranslateStage::Process() {
  auto packet = in.Pop();
  if (!packet) {
    if (pending_partial_) provisional_dropped_.fetch_add(1);
    pending_partial_.reset();
    return Flow::kFinished;
  }
  LC_RETURN_IF_ERROR(Handle(std::move(*packet)));
  if (provisional_.enabled && provisional_.newest_only) {
    // Everything queued now goes first; of the partials only the newest is
    // worth a caption.
    while (auto more = in.TryPop()) LC_RETURN_IF_ERROR(Handle(std::move(*more)));
  }
  if (pending_partial_) LC_RETURN_IF_ERROR(TranslatePartial());
  return Flow::kContinue;
}

}  // namespace lingcast
