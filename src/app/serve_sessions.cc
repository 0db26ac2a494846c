#include "app/serve_sessions.h"

#include <filesystem>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "app/live_flags.h"
#include "app/live_job.h"
#include "audio/audio_decoder.h"
#include "core/status.h"
#include "output/output_spec.h"

namespace lingcast {
namespace {

namespace fs = std::filesystem;

// `path` (relative: from `root`) if it is inside `root` after links are
// followed; else InvalidArgument naming the setting.
absl::StatusOr<std::string> Confine(const std::string& setting, const std::string& path, const std::string& root,
                                    const std::string& root_flag) {
  if (path.empty()) return path;
  std::error_code error;
  const fs::path base = fs::weakly_canonical(fs::absolute(root), error);
  if (error) return absl::InvalidArgumentError(absl::StrCat(root_flag, " ", root, ": ", error.message()));
  const fs::path given(path);
  const fs::path resolved = fs::weakly_canonical(given.is_absolute() ? given : base / given, error);
  if (error) return absl::InvalidArgumentError(absl::StrCat("setting \"", setting, "\": ", path, ": ", error.message()));
  const fs::path inside = resolved.lexically_relative(base);
  if (inside.empty() || *inside.begin() == "..") {
    return absl::InvalidArgumentError(absl::StrCat("setting \"", setting, "\": ", path, " is outside ", root_flag,
                                                   " (", base.string(), ")"));
  }
  return resolved.string();
}

// A model checkpoint may be under any of the model roots, or the media
// directory: a relative path is taken from the first of them that has it.
absl::StatusOr<std::string> ConfineModel(const std::string& setting, const std::string& path,
                                         const ServeDirectories& directories) {
  if (path.empty()) return path;
  std::vector<std::pair<std::string, std::string>> roots;
  for (const std::string& root : directories.models) roots.emplace_back(root, "the model directories");
  roots.emplace_back(directories.media, "--media-dir");
  absl::Status first_error;
  for (const auto& [root, flag] : roots) {
    absl::StatusOr<std::string> inside = Confine(setting, path, root, flag);
    if (inside.ok() && fs::exists(*inside)) return inside;
    if (first_error.ok()) first_error = inside.ok() ? absl::NotFoundError("") : inside.status();
  }
  if (absl::IsNotFound(first_error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("setting \"", setting, "\": ", path, " is in none of the model directories or --media-dir"));
  }
  return first_error;
}

// The network sources a session may read (ffmpeg's other protocols, file://,
// pipe://, ..., would read the server's own files or stdin).
bool IsNetworkSource(const std::string& url) {
  for (const char* scheme : {"rtmp://", "rtmps://", "srt://", "rtsp://", "http://", "https://", "udp://"}) {
    if (absl::StartsWith(url, scheme)) return true;
  }
  return false;
}

// Inputs are read as they are: a FIFO or a device would block the session's
// start (or read forever); only regular files are taken.
absl::Status CheckRegularFile(const std::string& setting, const std::string& path) {
  std::error_code error;
  if (!path.empty() && fs::exists(path, error) && !fs::is_regular_file(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat("setting \"", setting, "\": ", path, " is not a regular file"));
  }
  return absl::OkStatus();
}

// The session's LiveJob, as the SessionManager runs it.
class LiveSessionJob : public SessionJob {
 public:
  explicit LiveSessionJob(std::unique_ptr<LiveJob> job) : job_(std::move(job)) {}
  absl::StatusOr<nlohmann::json> Run() override { return job_->Run(nullptr, nullptr); }
  void RequestStop() override { job_->RequestStop(); }
  nlohmann::json Progress() const override {
    LiveProgress progress = job_->Progress();
    nlohmann::json out = std::move(progress.report);
    out["summary"]["lag_seconds"] = progress.planned_lag.seconds();
    out["summary"]["queued_lines"] = progress.counters.queued_lines;
    out["summary"]["speaking"] = progress.counters.speaking;
    if (!progress.degradation.is_null()) out["summary"]["degradation"] = std::move(progress.degradation);
    nlohmann::json queues = nlohmann::json::array();
    for (const ChannelStats& q : progress.queues) {
      queues.push_back({{"name", q.name},
                        {"depth", q.counters.size},
                        {"capacity", q.options.capacity},
                        {"high_water", q.counters.high_water},
                        {"dropped", q.counters.dropped}});
    }
    out["queues"] = std::move(queues);
    return out;
  }
  absl::Status SubmitCorrection(const std::string& command) override { return job_->SubmitCorrection(command); }
  void SetDegradationFloor(int level) override { job_->SetDegradationFloor(level); }

 private:
  std::unique_ptr<LiveJob> job_;
};

}  // namespace

const std::set<std::string>& RefusedSessionSettings() {
  static const std::set<std::string> refused = {"report", "control", "quiet", "json"};
  return refused;
}

absl::Status ConfineSessionPaths(LiveOptions& options, const ServeDirectories& directories) {
  const std::string& media = directories.media;
  if (options.input.path == "-") {
    return absl::InvalidArgumentError("setting \"in\": a session cannot read stdin; give a file or a URL");
  }
  if (AudioFileReader::IsUrl(options.input.path)) {
    if (!IsNetworkSource(options.input.path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "setting \"in\": ", options.input.path,
          ": a session reads a file in --media-dir or an rtmp, rtmps, srt, rtsp, "
          "http(s) or udp source"));
    }
  } else {
    LC_ASSIGN_OR_RETURN(options.input.path, Confine("in", options.input.path, media, "--media-dir"));
    LC_RETURN_IF_ERROR(CheckRegularFile("in", options.input.path));
  }
  TranslationConfig& translation = options.translation;
  LC_ASSIGN_OR_RETURN(translation.script_path, Confine("script", translation.script_path, media, "--media-dir"));
  LC_RETURN_IF_ERROR(CheckRegularFile("script", translation.script_path));
  for (std::string& path : translation.memory_paths) {
    LC_ASSIGN_OR_RETURN(path, Confine("tm", path, media, "--media-dir"));
  }
  LC_ASSIGN_OR_RETURN(translation.glossary_path, Confine("glossary", translation.glossary_path, media, "--media-dir"));
  LookConfig& look = options.look;
  LC_ASSIGN_OR_RETURN(look.avatar_path, Confine("avatar", look.avatar_path, media, "--media-dir"));
  look.avatar_images_within = media;  // and the images the rig names
  if (look.background != "studio" && !absl::StartsWith(look.background, "#")) {
    LC_ASSIGN_OR_RETURN(look.background, Confine("background", look.background, media, "--media-dir"));
  }
  for (std::string& out : options.outputs.destinations) {
    LC_ASSIGN_OR_RETURN(const OutputSpec spec, ParseOutputSpec(out));
    if (spec.is_network()) continue;
    LC_ASSIGN_OR_RETURN(std::string target, Confine("out", spec.target, directories.output, "--output-dir"));
    out = spec.kind == OutputSpec::kHls ? absl::StrCat("hls:", target) : target;
  }
  LC_ASSIGN_OR_RETURN(translation.corrections_path,
                      Confine("corrections", translation.corrections_path, directories.output, "--output-dir"));
  LC_ASSIGN_OR_RETURN(options.recognition.model_dir,
                      ConfineModel("asr_model", options.recognition.model_dir, directories));
  LC_ASSIGN_OR_RETURN(options.voice.model_dir, ConfineModel("tts_model", options.voice.model_dir, directories));
  LC_ASSIGN_OR_RETURN(translation.marian_model_dir,
                      ConfineModel("marian_model", translation.marian_model_dir, directories));
  return absl::OkStatus();
}

absl::StatusOr<LiveOptions> SessionOptions(const nlohmann::json& settings, const ServeDirectories& directories) {
  LC_ASSIGN_OR_RETURN(LiveOptions options, LiveOptionsFromSettings(settings, RefusedSessionSettings()));
  LC_RETURN_IF_ERROR(ConfineSessionPaths(options, directories));
  options.quiet = true;
  options.translation.control_in_process = true;
  LC_RETURN_IF_ERROR(ValidateLiveOptions(options));
  return options;
}

SessionFactory LiveSessionFactory(ServeDirectories directories, Logger& logger, EngineCache& engines) {
  SessionFactory factory;
  factory.check = [directories](const nlohmann::json& settings) {
    LC_ASSIGN_OR_RETURN(const LiveOptions options, SessionOptions(settings, directories));
    return CheckLiveLookAndScript(options);
  };
  factory.create = [directories, &logger, &engines](const nlohmann::json& settings,
                                          EventHub& events) -> absl::StatusOr<std::unique_ptr<SessionJob>> {
    LC_ASSIGN_OR_RETURN(const LiveOptions options, SessionOptions(settings, directories));
    std::istringstream no_stdin;
    LC_ASSIGN_OR_RETURN(std::unique_ptr<LiveJob> job, LiveJob::Create(options, logger, no_stdin, &engines));
    job->SetEventObserver([&events](const nlohmann::json& event) {
      // A subtitle is true while the video shows it: a client that joins later is not sent it.
      absl::Duration valid_for = absl::InfiniteDuration();
      if (event.value("type", "") == "subtitle") {
        valid_for = absl::Milliseconds(event.value("until_ms", int64_t{0}) - event.value("from_ms", int64_t{0}));
      }
      events.Publish(event, valid_for);
    });
    return std::make_unique<LiveSessionJob>(std::move(job));
  };
  return factory;
}

}  // namespace lingcast
