// The sessions of `lingcast serve`: ids, states, their threads, their event
// streams and the reports they leave. Knows nothing of what a session does:
// the app hands it a factory that turns settings into a SessionJob.
//
//   starting --(the job is created: engines loaded, outputs open)--> running
//   running  --(Stop(): the line being said is finished, outputs flushed)--> draining
//   running | draining --(the job ends)--> finished (report kept) | failed (error kept)
//   starting --(the job cannot be created)--> failed
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "core/sync.h"
#include "server/http_server.h"

namespace lingcast {

enum class SessionState { kStarting, kRunning, kDraining, kFinished, kFailed };
const char* SessionStateName(SessionState state);

// What a session runs. Run() is called once, on the session's own thread;
// the others from any thread while it runs.
class SessionJob {
 public:
  virtual ~SessionJob() = default;
  virtual absl::StatusOr<nlohmann::json> Run() = 0;  // the final report
  virtual void RequestStop() = 0;                     // graceful; returns at once
  virtual nlohmann::json Progress() const = 0;        // the report so far
  virtual absl::Status SubmitCorrection(const std::string& command) = 0;
  // The server's process-wide degradation level (core/degradation_ladder.h):
  // the job stays at least that far down its own ladder. A job without a
  // ladder has nothing to give up and ignores it.
  virtual void SetDegradationFloor(int /*level*/) {}
};

// Fans one session's events out to its stream clients (WebSocket or SSE), and
// keeps the latest of each kind so a client that joins late (an overlay page
// reloaded mid-show) starts from what is on screen now.
class EventHub {
 public:
  // `valid_for`: how long the event stays true after it is published (a
  // subtitle on screen); a client that joins later is not sent it.
  void Publish(const nlohmann::json& event, absl::Duration valid_for = absl::InfiniteDuration());
  // Sends the kept events, then everything published from now on.
  void Join(std::shared_ptr<EventClient> client);
  void CloseAll();  // the session ended: a final {"type":"end"} and no more
  int clients() const;

 private:
  mutable Mutex mu_;
  std::vector<std::shared_ptr<EventClient>> clients_ ABSL_GUARDED_BY(mu_);
  struct Kept {
    int64_t sequence = 0;  // publish order
    std::string text;
    absl::Time valid_until;
  };
  std::map<std::string, Kept> latest_ ABSL_GUARDED_BY(mu_);  // by event type
  int64_t published_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

struct SessionFactory {
  // Synchronous, before anything starts: InvalidArgument with the one-line
  // message the CLI would give (a 400), or OK.
  std::function<absl::Status(const nlohmann::json& settings)> check;
  // On the session's thread: load the engines, open the input and outputs.
  // `events` outlives the job.
  std::function<absl::StatusOr<std::unique_ptr<SessionJob>>(const nlohmann::json& settings, EventHub& events)> create;
};

struct SessionManagerOptions {
  int max_sessions = 4;        // starting + running + draining at once
  int keep_ended = 64;         // finished/failed sessions kept for their reports (oldest dropped)
};

struct SessionSummary {
  std::string id;
  SessionState state = SessionState::kStarting;
  std::string error;          // kFailed: why
  nlohmann::json settings;    // as the session was created
  nlohmann::json progress;    // the job's report so far, or its final report ({} before it runs)
  double age_seconds = 0;
  // Admits this session's overlay page and event stream, nothing else: a URL that
  // can go into OBS without handing over control of the server (AdmitsViewer).
  std::string view_token;
};

class SessionManager {
 public:
  SessionManager(SessionFactory factory, SessionManagerOptions options);
  ~SessionManager();  // stops every session and joins its thread
  SessionManager(const SessionManager&) = delete;
  SessionManager& operator=(const SessionManager&) = delete;

  // InvalidArgument (bad settings), ResourceExhausted (max_sessions), or
  // Unavailable (shutting down): nothing is started. Else the new id.
  absl::StatusOr<std::string> Create(const nlohmann::json& settings);
  absl::StatusOr<SessionSummary> Get(const std::string& id) const;  // NotFound
  std::vector<SessionSummary> List() const;                          // by creation
  absl::Status Stop(const std::string& id);                          // NotFound; idempotent
  // The final report: FailedPrecondition until the session has finished.
  absl::StatusOr<nlohmann::json> Report(const std::string& id) const;
  absl::Status SubmitCorrection(const std::string& id, const std::string& command);
  absl::Status JoinEvents(const std::string& id, std::shared_ptr<EventClient> client);
  // True when `token` is session `id`'s view token (compared in constant time).
  bool AdmitsViewer(const std::string& id, std::string_view token) const;

  // The server's watchdog (app/serve_watchdog.h): every session, running or
  // still to come, at least `floor` down its ladder (0-3); with `refuse_new`,
  // Create() answers Unavailable with `why` until it is lifted.
  void SetDegradation(int floor, bool refuse_new, const std::string& why);
  bool refusing_new() const;  // for readiness

  // No new sessions from now on; every session is asked to stop.
  void BeginShutdown();
  // Waits for every session's thread; true if all ended within `deadline`.
  bool WaitAll(absl::Duration deadline);
  // True once at most `count` sessions are active, false after `deadline`.
  bool WaitForActive(int count, absl::Duration deadline) const;
  // True once session `id` is in `state`, false after `deadline` (or no such session).
  bool WaitForState(const std::string& id, SessionState state, absl::Duration deadline) const;
  bool shutting_down() const;
  int active() const;  // starting + running + draining
  int capacity_left() const;

 private:
  struct Session;
  void RunSession(Session& session, nlohmann::json settings);
  // Takes the oldest ended sessions out of the table; their threads are
  // returned to be joined once the lock is released (a thread may still be
  // closing its job's outputs, and nobody should wait for that under mu_).
  std::vector<std::thread> DropOldEnded() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int active_locked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool session_stop_requested(const Session& session) const;
  SessionSummary SummaryOf(const Session& session) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SessionFactory factory_;
  const SessionManagerOptions options_;
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> ended_order_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  int degradation_floor_ ABSL_GUARDED_BY(mu_) = 0;
  std::string refusing_why_ ABSL_GUARDED_BY(mu_);  // empty: new sessions taken
};

}  // namespace lingcast
