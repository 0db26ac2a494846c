#include "app/render_queue.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/status.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

struct Address {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
};

absl::StatusOr<Address> ParseRedisUrl(const std::string& url) {
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "redis://")) {
    return absl::InvalidArgumentError(absl::StrCat("--redis ", url, ": expected redis://HOST[:PORT][/DB]"));
  }
  Address address;
  if (const size_t slash = rest.find('/'); slash != absl::string_view::npos) {
    if (!absl::SimpleAtoi(rest.substr(slash + 1), &address.db) || address.db < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--redis ", url, ": the database must be a number"));
    }
    rest = rest.substr(0, slash);
  }
  if (const size_t colon = rest.rfind(':'); colon != absl::string_view::npos) {
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &address.port) || address.port < 1 || address.port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("--redis ", url, ": bad port"));
    }
    rest = rest.substr(0, colon);
  }
  if (!rest.empty()) address.host = std::string(rest);
  return address;
}

std::string Text(const redisReply* r) { return r != nullptr && r->str != nullptr ? std::string(r->str, r->len) : ""; }

}  // namespace

struct RenderQueue::Connection {
  redisContext* context = nullptr;
  ~Connection() {
    if (context != nullptr) redisFree(context);
  }
  // One command, its reply; an error reply or a lost connection is a Status.
  absl::StatusOr<Reply> Run(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    Reply reply(static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(args.size()), argv.data(), lengths.data())));
    if (reply == nullptr) {
      return absl::UnavailableError(absl::StrCat("redis: ", context->errstr[0] != '\0' ? context->errstr : "no reply"));
    }
    if (reply->type == REDIS_REPLY_ERROR) return absl::FailedPreconditionError(absl::StrCat("redis: ", Text(reply.get())));
    return reply;
  }
};

RenderQueue::RenderQueue(RenderQueueOptions options, std::unique_ptr<Connection> connection)
    : options_(std::move(options)), connection_(std::move(connection)) {}
RenderQueue::~RenderQueue() = default;

absl::StatusOr<std::unique_ptr<RenderQueue>> RenderQueue::Connect(RenderQueueOptions options) {
  LC_ASSIGN_OR_RETURN(const Address address, ParseRedisUrl(options.url));
  auto connection = std::make_unique<Connection>();
  const timeval connect_timeout{5, 0};
  connection->context = redisConnectWithTimeout(address.host.c_str(), address.port, connect_timeout);
  if (connection->context == nullptr || connection->context->err != 0) {
    return absl::UnavailableError(absl::StrCat(
        "--redis ", options.url, ": ", connection->context != nullptr ? connection->context->errstr : "cannot connect"));
  }
  if (address.db != 0) LC_RETURN_IF_ERROR(connection->Run({"SELECT", absl::StrCat(address.db)}).status());
  absl::StatusOr<Reply> group =
      connection->Run({"XGROUP", "CREATE", options.stream, options.group, "0", "MKSTREAM"});
  if (!group.ok() && group.status().message().find("BUSYGROUP") == std::string_view::npos) return group.status();
  return std::unique_ptr<RenderQueue>(new RenderQueue(std::move(options), std::move(connection)));
}

absl::StatusOr<std::string> RenderQueue::Submit(const std::vector<std::string>& render_args) {
  LC_ASSIGN_OR_RETURN(Reply reply,
                      connection_->Run({"XADD", options_.stream, "*", "args", nlohmann::json(render_args).dump()}));
  return Text(reply.get());
}

absl::StatusOr<std::optional<RenderJob>> RenderQueue::JobFromEntry(const void* entry_pointer) {
  const auto* entry = static_cast<const redisReply*>(entry_pointer);
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements < 2 || entry->element[1] == nullptr) {
    return std::nullopt;
  }
  RenderJob job;
  job.id = Text(entry->element[0]);
  const redisReply* fields = entry->element[1];
  std::string args;
  for (size_t i = 0; fields != nullptr && i + 1 < fields->elements; i += 2) {
    if (Text(fields->element[i]) == "args") args = Text(fields->element[i + 1]);
  }
  const nlohmann::json parsed = nlohmann::json::parse(args, nullptr, false);
  if (parsed.is_array()) {
    for (const nlohmann::json& a : parsed) {
      if (a.is_string()) job.args.push_back(a.get<std::string>());
    }
  }
  // How often it has been handed out, this time included.
  LC_ASSIGN_OR_RETURN(Reply pending, connection_->Run({"XPENDING", options_.stream, options_.group, job.id, job.id, "1"}));
  if (pending->type == REDIS_REPLY_ARRAY && pending->elements == 1 && pending->element[0] != nullptr &&
      pending->element[0]->type == REDIS_REPLY_ARRAY && pending->element[0]->elements >= 4) {
    job.deliveries = pending->element[0]->element[3]->integer;
  }
  return job;
}

absl::StatusOr<std::optional<RenderJob>> RenderQueue::Next(const std::string& consumer, absl::Duration wait) {
  // A job a dead (or stuck) worker left behind comes first.
  LC_ASSIGN_OR_RETURN(Reply claimed,
                      connection_->Run({"XAUTOCLAIM", options_.stream, options_.group, consumer,
                                        absl::StrCat(absl::ToInt64Milliseconds(options_.claim_idle)), "0-0", "COUNT",
                                        "1"}));
  if (claimed->type == REDIS_REPLY_ARRAY && claimed->elements >= 2 && claimed->element[1] != nullptr &&
      claimed->element[1]->type == REDIS_REPLY_ARRAY && claimed->element[1]->elements > 0) {
    return JobFromEntry(claimed->element[1]->element[0]);
  }
  const timeval read_timeout{static_cast<time_t>(absl::ToInt64Seconds(wait) + 10), 0};
  redisSetTimeout(connection_->context, read_timeout);
  LC_ASSIGN_OR_RETURN(Reply read, connection_->Run({"XREADGROUP", "GROUP", options_.group, consumer, "COUNT", "1",
                                                    "BLOCK", absl::StrCat(absl::ToInt64Milliseconds(wait)),
                                                    "STREAMS", options_.stream, ">"}));
  if (read->type != REDIS_REPLY_ARRAY || read->elements == 0) return std::nullopt;  // nothing within `wait`
  const redisReply* stream = read->element[0];
  if (stream == nullptr || stream->type != REDIS_REPLY_ARRAY || stream->elements < 2 || stream->element[1] == nullptr ||
      stream->element[1]->type != REDIS_REPLY_ARRAY || stream->element[1]->elements == 0) {
    return std::nullopt;
  }
  return JobFromEntry(stream->element[1]->element[0]);
}

absl::Status RenderQueue::Transaction(const std::vector<std::vector<std::string>>& commands) {
  LC_RETURN_IF_ERROR(connection_->Run({"MULTI"}).status());
  for (const std::vector<std::string>& command : commands) {
    if (absl::Status queued = connection_->Run(command).status(); !queued.ok()) {
      connection_->Run({"DISCARD"}).IgnoreError();
      return queued;
    }
  }
  LC_ASSIGN_OR_RETURN(Reply executed, connection_->Run({"EXEC"}));
  if (executed->type != REDIS_REPLY_ARRAY) return absl::AbortedError("redis: the transaction was not run");
  for (size_t i = 0; i < executed->elements; ++i) {
    if (executed->element[i] != nullptr && executed->element[i]->type == REDIS_REPLY_ERROR) {
      return absl::FailedPreconditionError(absl::StrCat("redis: ", Text(executed->element[i])));
    }
  }
  return absl::OkStatus();
}

absl::Status RenderQueue::Done(const RenderJob& job, const std::string& consumer) {
  return Transaction({{"XACK", options_.stream, options_.group, job.id},
                      {"XADD", options_.stream + ":done", "*", "job", job.id, "worker", consumer}});
}

absl::Status RenderQueue::KeepClaimed(const RenderJob& job, const std::string& consumer) {
  return connection_->Run({"XCLAIM", options_.stream, options_.group, consumer, "0", job.id, "JUSTID"}).status();
}

absl::Status RenderQueue::DeadLetter(const RenderJob& job, const std::string& error) {
  return Transaction({{"XACK", options_.stream, options_.group, job.id},
                      {"XADD", options_.stream + ":dead", "*", "job", job.id, "args", nlohmann::json(job.args).dump(),
                       "error", error, "deliveries", absl::StrCat(job.deliveries)}});
}

int64_t RenderQueue::Length(const std::string& stream) {
  absl::StatusOr<Reply> reply = connection_->Run({"XLEN", stream});
  return reply.ok() ? (*reply)->integer : 0;
}

}  // namespace lingcast

namespace lingcast {

int64_t RenderQueue::Pending(const std::string& consumer) {
  absl::StatusOr<Reply> reply =
      connection_->Run({"XPENDING", options_.stream, options_.group, "-", "+", "1000", consumer});
  return reply.ok() && (*reply)->type == REDIS_REPLY_ARRAY ? static_cast<int64_t>((*reply)->elements) : 0;
}

std::vector<std::map<std::string, std::string>> RenderQueue::Entries(const std::string& stream) {
  std::vector<std::map<std::string, std::string>> entries;
  absl::StatusOr<Reply> reply = connection_->Run({"XRANGE", stream, "-", "+"});
  if (!reply.ok() || (*reply)->type != REDIS_REPLY_ARRAY) return entries;
  for (size_t i = 0; i < (*reply)->elements; ++i) {
    const redisReply* entry = (*reply)->element[i];
    if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements < 2) continue;
    std::map<std::string, std::string> fields = {{"id", Text(entry->element[0])}};
    const redisReply* values = entry->element[1];
    for (size_t j = 0; j + 1 < values->elements; j += 2) fields[Text(values->element[j])] = Text(values->element[j + 1]);
    entries.push_back(std::move(fields));
  }
  return entries;
}

}  // namespace lingcast
