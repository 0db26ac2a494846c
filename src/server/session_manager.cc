#include "server/session_manager.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/auth.h"

namespace lingcast {

const char* SessionStateName(SessionState state) {
  switch (state) {
    case SessionState::kStarting: return "starting";
    case SessionState::kRunning: return "running";
    case SessionState::kDraining: return "draining";
    case SessionState::kFinished: return "finished";
    case SessionState::kFailed: return "failed";
  }
  return "unknown";
}

void EventHub::Publish(const nlohmann::json& event, absl::Duration valid_for) {
  // Text that is not UTF-8 (a recognizer's odd byte) is replaced, not thrown on.
  const std::string text = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto type = event.find("type");
  MutexLock lock(&mu_);
  if (closed_) return;
  latest_[type != event.end() && type->is_string() ? type->get<std::string>() : std::string()] =
      Kept{++published_, text, absl::Now() + valid_for};
  // A client that is gone, or too slow to keep up (its queue full), is dropped.
  std::erase_if(clients_, [&](const std::shared_ptr<EventClient>& client) { return !client->Send(text); });
}

void EventHub::Join(std::shared_ptr<EventClient> client) {
  MutexLock lock(&mu_);
  // What is still true, in the order it happened.
  std::vector<const Kept*> replay;
  const absl::Time now = absl::Now();
  for (const auto& [type, kept] : latest_) {
    if (kept.valid_until > now) replay.push_back(&kept);
  }
  std::sort(replay.begin(), replay.end(), [](const Kept* a, const Kept* b) { return a->sequence < b->sequence; });
  for (const Kept* kept : replay) {
    if (!client->Send(kept->text)) return;
  }
  if (closed_) {
    client->Send(R"({"type":"end"})");
    client->Close();
    return;
  }
  clients_.push_back(std::move(client));
}

void EventHub::CloseAll() {
  MutexLock lock(&mu_);
  closed_ = true;
  for (const std::shared_ptr<EventClient>& client : clients_) {
    client->Send(R"({"type":"end"})");
    client->Close();
  }
  clients_.clear();
}

int EventHub::clients() const {
  MutexLock lock(&mu_);
  return static_cast<int>(clients_.size());
}

struct SessionManager::Session {
  std::string id;
  SessionState state = SessionState::kStarting;
  std::string error;
  nlohmann::json settings;
  std::shared_ptr<SessionJob> job;  // from kRunning until the thread ends
  std::optional<nlohmann::json> report;
  nlohmann::json last_progress = nlohmann::json::object();
  bool stop_requested = false;
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
  std::string view_token = RandomToken();
  EventHub events;
  std::thread thread;
};

SessionManager::SessionManager(SessionFactory factory, SessionManagerOptions options)
    : factory_(std::move(factory)), options_(options) {}

SessionManager::~SessionManager() {
  BeginShutdown();
  WaitAll(absl::InfiniteDuration());
}

absl::StatusOr<std::string> SessionManager::Create(const nlohmann::json& settings) {
  {
    MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the server is shutting down: no new sessions");
  }
  if (absl::Status checked = factory_.check(settings); !checked.ok()) return checked;
  MutexLock lock(&mu_);
  if (shutting_down_) return absl::UnavailableError("the server is shutting down: no new sessions");
  if (!refusing_why_.empty()) return absl::UnavailableError(refusing_why_);
  if (active_locked() >= options_.max_sessions) {
    return absl::ResourceExhaustedError(
        absl::StrCat("already ", options_.max_sessions, " sessions (--max-sessions): end one first"));
  }
  auto session = std::make_shared<Session>();
  session->id = absl::StrCat("s", next_id_++);
  session->settings = settings;
  sessions_[session->id] = session;
  // The thread holds the session too: it may outlive its place in the table.
  session->thread = std::thread([this, session, settings] { RunSession(*session, settings); });
  return session->id;
}

void SessionManager::SetDegradation(int floor, bool refuse_new, const std::string& why) {
  MutexLock lock(&mu_);
  degradation_floor_ = floor;
  refusing_why_ = refuse_new ? (why.empty() ? std::string("the server is under pressure: no new sessions") : why)
                             : std::string();
  for (const auto& [id, session] : sessions_) {
    if (session->job != nullptr) session->job->SetDegradationFloor(floor);
  }
}

bool SessionManager::refusing_new() const {
  MutexLock lock(&mu_);
  return !refusing_why_.empty();
}

void SessionManager::RunSession(Session& session, nlohmann::json settings) {
  absl::StatusOr<std::unique_ptr<SessionJob>> created = factory_.create(settings, session.events);
  std::shared_ptr<SessionJob> job;
  if (created.ok()) {
    job = std::move(*created);
    MutexLock lock(&mu_);
    session.job = job;
    if (degradation_floor_ > 0) job->SetDegradationFloor(degradation_floor_);
    session.state = session.stop_requested ? SessionState::kDraining : SessionState::kRunning;
  }
  if (job != nullptr && session_stop_requested(session)) job->RequestStop();
  absl::StatusOr<nlohmann::json> report =
      job != nullptr ? job->Run() : absl::StatusOr<nlohmann::json>(created.status());
  session.events.CloseAll();
  // The state leaves starting/running/draining here only, in this thread's last
  // locked section: WaitAll() joins threads once none is active.
  std::vector<std::thread> dropped;
  {
    MutexLock lock(&mu_);
    if (report.ok()) {
      session.state = SessionState::kFinished;
      session.last_progress = *report;
      session.report = std::move(*report);
    } else {
      session.state = SessionState::kFailed;
      session.error = std::string(report.status().message());
    }
    // The table lets go of the job; the last holder (this thread, below, unless a
    // status request still has it) destroys it outside the lock.
    session.job.reset();
    ended_order_.push_back(session.id);
    dropped = DropOldEnded();
  }
  job.reset();
  for (std::thread& thread : dropped) thread.join();
}

bool SessionManager::session_stop_requested(const Session& session) const {
  MutexLock lock(&mu_);
  return session.stop_requested;
}

std::vector<std::thread> SessionManager::DropOldEnded() {
  std::vector<std::thread> to_join;
  while (static_cast<int>(ended_order_.size()) > options_.keep_ended) {
    auto it = sessions_.find(ended_order_.front());
    ended_order_.pop_front();
    if (it == sessions_.end()) continue;
    // Its thread is past its last lock; it may still be destroying its job.
    std::shared_ptr<Session> old = it->second;
    sessions_.erase(it);
    if (old->thread.get_id() == std::this_thread::get_id()) {
      old->thread.detach();  // this very thread, about to return; the lambda's copy keeps the Session alive
      continue;
    }
    if (old->thread.joinable()) to_join.push_back(std::move(old->thread));
  }
  return to_join;
}

SessionSummary SessionManager::SummaryOf(const Session& session) const {
  SessionSummary summary;
  summary.id = session.id;
  summary.state = session.state;
  summary.error = session.error;
  summary.settings = session.settings;
  summary.progress = session.last_progress;
  summary.age_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - session.created).count();
  summary.view_token = session.view_token;
  return summary;
}

absl::StatusOr<SessionSummary> SessionManager::Get(const std::string& id) const {
  std::shared_ptr<SessionJob> job;
  SessionSummary summary;
  {
    MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return absl::NotFoundError(absl::StrCat("no session \"", id, "\""));
    summary = SummaryOf(*it->second);
    job = it->second->job;
  }
  // Outside the lock: the report so far walks every line of the show.
  if (job != nullptr) summary.progress = job->Progress();
  return summary;
}

std::vector<SessionSummary> SessionManager::List() const {
  std::vector<std::pair<SessionSummary, std::shared_ptr<SessionJob>>> all;
  {
    MutexLock lock(&mu_);
    for (const auto& [id, session] : sessions_) all.emplace_back(SummaryOf(*session), session->job);
  }
  std::vector<SessionSummary> out;
  for (auto& [summary, job] : all) {
    if (job != nullptr) summary.progress = job->Progress();
    out.push_back(std::move(summary));
  }
  // Ids are s1, s2, ...: by creation is by number.
  std::sort(out.begin(), out.end(), [](const SessionSummary& a, const SessionSummary& b) {
    return a.id.size() != b.id.size() ? a.id.size() < b.id.size() : a.id < b.id;
  });
  return out;
}

absl::Status SessionManager::Stop(const std::string& id) {
  std::shared_ptr<SessionJob> job;
  {
    MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return absl::NotFoundError(absl::StrCat("no session \"", id, "\""));
    Session& session = *it->second;
    session.stop_requested = true;
    if (session.state == SessionState::kRunning || session.state == SessionState::kStarting) {
      session.state = SessionState::kDraining;
    }
    job = session.job;
  }
  if (job != nullptr) job->RequestStop();
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> SessionManager::Report(const std::string& id) const {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return absl::NotFoundError(absl::StrCat("no session \"", id, "\""));
  const Session& session = *it->second;
  if (session.state == SessionState::kFailed) {
    return absl::FailedPreconditionError(absl::StrCat("session ", id, " failed: ", session.error));
  }
  if (!session.report) {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", id, " is ", SessionStateName(session.state), ": its report comes when it ends"));
  }
  return *session.report;
}

absl::Status SessionManager::SubmitCorrection(const std::string& id, const std::string& command) {
  std::shared_ptr<SessionJob> job;
  {
    MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return absl::NotFoundError(absl::StrCat("no session \"", id, "\""));
    job = it->second->job;
    if (job == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("session ", id, " is ", SessionStateName(it->second->state), ": no corrections now"));
    }
  }
  return job->SubmitCorrection(command);
}

absl::Status SessionManager::JoinEvents(const std::string& id, std::shared_ptr<EventClient> client) {
  std::shared_ptr<Session> session;
  {
    MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return absl::NotFoundError(absl::StrCat("no session \"", id, "\""));
    session = it->second;
  }
  session->events.Join(std::move(client));
  return absl::OkStatus();
}

bool SessionManager::AdmitsViewer(const std::string& id, std::string_view token) const {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  return it != sessions_.end() && ConstantTimeEquals(token, it->second->view_token);
}

void SessionManager::BeginShutdown() {
  std::vector<std::shared_ptr<SessionJob>> jobs;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    for (auto& [id, session] : sessions_) {
      session->stop_requested = true;
      if (session->state == SessionState::kRunning || session->state == SessionState::kStarting) {
        session->state = SessionState::kDraining;
      }
      if (session->job != nullptr) jobs.push_back(session->job);
    }
  }
  for (const auto& job : jobs) job->RequestStop();
}

bool SessionManager::WaitAll(absl::Duration deadline) {
  const absl::Time until = deadline == absl::InfiniteDuration() ? absl::InfiniteFuture() : absl::Now() + deadline;
  auto all_ended = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_locked() == 0; };
  std::vector<std::thread> threads;
  {
    MutexLock lock(&mu_);
    if (!mu_.AwaitWithDeadline(all_ended, until)) return false;
    // Every thread is past its last lock; joined outside it, since one may still
    // be closing its job's outputs.
    for (auto& [id, session] : sessions_) {
      if (session->thread.joinable()) threads.push_back(std::move(session->thread));
    }
  }
  for (std::thread& thread : threads) thread.join();
  return true;
}

bool SessionManager::WaitForActive(int count, absl::Duration deadline) const {
  auto reached = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_locked() <= count; };
  MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(reached, deadline);
}

bool SessionManager::WaitForState(const std::string& id, SessionState state, absl::Duration deadline) const {
  auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = sessions_.find(id);
    return it == sessions_.end() || it->second->state == state;
  };
  MutexLock lock(&mu_);
  if (!mu_.AwaitWithTimeout(reached, deadline)) return false;
  auto it = sessions_.find(id);
  return it != sessions_.end() && it->second->state == state;
}

bool SessionManager::shutting_down() const {
  MutexLock lock(&mu_);
  return shutting_down_;
}

int SessionManager::active_locked() const {
  int n = 0;
  for (const auto& [id, session] : sessions_) {
    if (session->state == SessionState::kStarting || session->state == SessionState::kRunning ||
        session->state == SessionState::kDraining) {
      ++n;
    }
  }
  return n;
}

int SessionManager::active() const {
  MutexLock lock(&mu_);
  return active_locked();
}

int SessionManager::capacity_left() const {
  MutexLock lock(&mu_);
  return shutting_down_ ? 0 : std::max(0, options_.max_sessions - active_locked());
}

}  // namespace lingcast
