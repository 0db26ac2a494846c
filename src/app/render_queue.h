// Render jobs on a Redis Stream (`lingcast submit`, `lingcast worker`): jobs are
// added with XADD; workers read them through one consumer group, so each job
// goes to one worker. A job is acknowledged only after its outputs are
// complete, in one MULTI/EXEC with its entry in the done stream; a worker that
// dies mid-job leaves the job pending, and another claims it (XAUTOCLAIM) once
// it has been idle `claim_idle`. A job delivered `max_tries` times without
// success, or one that cannot succeed (a bad command line), goes to the
// dead-letter stream with its last error. docs/serve.md, "Render workers".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace lingcast {

struct RenderQueueOptions {
  std::string url = "redis://127.0.0.1:6379";  // redis://HOST[:PORT][/DB]
  std::string stream = "lingcast:render";       // jobs; STREAM:done and STREAM:dead beside it
  std::string group = "lingcast-workers";
  absl::Duration claim_idle = absl::Seconds(60);  // a pending job this long untouched is taken over
  int max_tries = 3;
};

struct RenderJob {
  std::string id;                  // the stream entry id
  std::vector<std::string> args;   // the `lingcast render` command line, after "render"
  int64_t deliveries = 1;          // how many times it has been handed out, this time included
};

class RenderQueue {
 public:
  // Connects and makes the group if there is none (MKSTREAM). Unavailable
  // naming the URL when Redis does not answer; InvalidArgument for a bad URL.
  static absl::StatusOr<std::unique_ptr<RenderQueue>> Connect(RenderQueueOptions options);
  ~RenderQueue();
  RenderQueue(const RenderQueue&) = delete;
  RenderQueue& operator=(const RenderQueue&) = delete;

  // Adds a job; its id.
  absl::StatusOr<std::string> Submit(const std::vector<std::string>& render_args);
  // The next job for `consumer`: first one another worker left idle for
  // claim_idle, else a new one, waiting up to `wait`. nullopt when none came.
  absl::StatusOr<std::optional<RenderJob>> Next(const std::string& consumer, absl::Duration wait);
  // The job is done: acknowledged and recorded in STREAM:done, atomically.
  absl::Status Done(const RenderJob& job, const std::string& consumer);
  // `consumer` is still at `job`: its idle time starts again, so a long render
  // is not taken over while it runs (XCLAIM JUSTID, which counts no delivery).
  absl::Status KeepClaimed(const RenderJob& job, const std::string& consumer);
  // The job will not be done: acknowledged and moved to STREAM:dead with `error`.
  absl::Status DeadLetter(const RenderJob& job, const std::string& error);

  int64_t Length(const std::string& stream);  // entries in `stream` (0 when absent or on error)
  int64_t Pending(const std::string& consumer);  // jobs handed to `consumer` and not yet acknowledged
  // The fields of every entry of `stream`, oldest first (for tools and tests).
  std::vector<std::map<std::string, std::string>> Entries(const std::string& stream);
  const RenderQueueOptions& options() const { return options_; }

 private:
  struct Connection;
  RenderQueue(RenderQueueOptions options, std::unique_ptr<Connection> connection);
  absl::StatusOr<std::optional<RenderJob>> JobFromEntry(const void* entry);
  // MULTI, `commands`, EXEC; an error in any of them fails the whole (DISCARD).
  absl::Status Transaction(const std::vector<std::vector<std::string>>& commands);

  RenderQueueOptions options_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace lingcast
