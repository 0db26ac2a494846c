#include "mt/llm_translator.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mt/glossary.h"
#include "mt/llm_answer.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using Json = nlohmann::json;

// libcurl wants curl_global_init once per process before any thread uses it; a
// function-local static makes that happen exactly once, thread-safely.
void EnsureCurlInitialized() {
  static const CURLcode initialized = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)initialized;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

std::string LanguageName(Language language) { return language == Language::kZh ? "Chinese" : "English"; }

std::string Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(begin, end - begin + 1));
}

const char* EnvOrNull(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

struct TransferState {
  LlmAnswerReader* reader;
  std::stop_token stop;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<TransferState*>(user)->reader->Append(std::string_view(data, size * count));
  return size * count;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<TransferState*>(user)->stop.stop_requested() ? 1 : 0;
}

bool Retryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status) || absl::IsDataLoss(status);
}

}  // namespace

LlmConfig LlmConfigFromEnvironment(LlmConfig config) {
  if (config.endpoint.empty()) {
    if (const char* v = EnvOrNull("LINGCAST_LLM_ENDPOINT")) config.endpoint = v;
    else if (const char* o = EnvOrNull("OPENAI_BASE_URL")) config.endpoint = o;
  }
  if (config.model.empty()) {
    if (const char* v = EnvOrNull("LINGCAST_LLM_MODEL")) config.model = v;
  }
  if (config.api_key.empty()) {
    if (const char* v = EnvOrNull("LINGCAST_LLM_API_KEY")) config.api_key = v;
    else if (const char* o = EnvOrNull("OPENAI_API_KEY")) config.api_key = o;
  }
  return config;
}

std::string BuildChatMessages(const TranslationRequest& request, int context_lines) {
  std::string system = absl::StrCat(
      "You are a professional simultaneous interpreter for a live-commerce stream. Translate the user's ",
      LanguageName(request.from), " line into natural spoken ", LanguageName(request.to),
      ". Reply with the translation only: no quotes, notes or explanations. Keep numbers, prices, units and "
      "product names exact.");
  if (request.glossary != nullptr) {
    std::vector<GlossaryTerm> terms = request.glossary->TermsIn(request.source, request.from);
    if (!terms.empty()) {
      absl::StrAppend(&system, " Always translate these terms this way:");
      for (const GlossaryTerm& term : terms) {
        absl::StrAppend(&system, " ", term.In(request.from), " = ", term.In(request.to), ";");
      }
    }
  }
  Json messages = Json::array();
  messages.push_back({{"role", "system"}, {"content", system}});
  const size_t keep = static_cast<size_t>(std::max(0, context_lines));
  const size_t first = request.context.size() > keep ? request.context.size() - keep : 0;
  for (size_t i = first; i < request.context.size(); ++i) {
    messages.push_back({{"role", "user"}, {"content", request.context[i].source}});
    messages.push_back({{"role", "assistant"}, {"content", request.context[i].target}});
  }
  messages.push_back({{"role", "user"}, {"content", request.source}});
  return messages.dump();
}

absl::StatusOr<std::unique_ptr<LlmTranslator>> LlmTranslator::Create(LlmConfig config, Clock& clock) {
  std::string url = Trim(config.endpoint);
  if (url.empty()) {
    return absl::InvalidArgumentError(
        "no LLM endpoint: give one (e.g. http://127.0.0.1:8080) or set LINGCAST_LLM_ENDPOINT");
  }
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("LLM endpoint \"", url, "\" is not an http:// or https:// URL"));
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  const std::string suffix = "/chat/completions";
  if (url.size() < suffix.size() || url.compare(url.size() - suffix.size(), suffix.size(), suffix) != 0) {
    const bool has_version = url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0;
    url += has_version ? suffix : "/v1" + suffix;
  }
  if (config.max_attempts < 1) return absl::InvalidArgumentError("LLM max_attempts must be at least 1");
  EnsureCurlInitialized();
  return std::unique_ptr<LlmTranslator>(new LlmTranslator(std::move(config), clock, std::move(url)));
}

LlmTranslator::LlmTranslator(LlmConfig config, Clock& clock, std::string url)
    : config_(std::move(config)), clock_(clock), url_(std::move(url)) {}

LlmTranslator::~LlmTranslator() = default;

absl::StatusOr<std::string> LlmTranslator::Attempt(const std::string& body, MediaTime timeout, std::stop_token stop,
                                                   const PartialTranslation& on_partial) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return absl::InternalError("libcurl could not create a handle");
  std::unique_ptr<curl_slist, HeaderListDeleter> headers;
  auto add_header = [&headers](const std::string& header) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  };
  add_header("Content-Type: application/json");
  add_header("Accept: text/event-stream, application/json");
  if (!config_.api_key.empty()) add_header("Authorization: Bearer " + config_.api_key);

  LlmAnswerReader reader(on_partial);
  TransferState state{&reader, stop};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we run in threads
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(1, std::min(config_.connect_timeout, timeout).millis())));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(1, timeout.millis())));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &state);
  ++attempts_;
  const CURLcode code = curl_easy_perform(h);
  if (code == CURLE_ABORTED_BY_CALLBACK) return absl::CancelledError("translation cancelled");
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return absl::DeadlineExceededError(absl::StrCat("no complete answer from ", url_, " within ", timeout.millis(),
                                                    " ms"));
  }
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(url_, ": ", curl_easy_strerror(code)));
  }
  long http_status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http_status);
  if (http_status == 401 || http_status == 403) {
    return absl::PermissionDeniedError(
        absl::StrCat(url_, " refused the request (HTTP ", http_status, "): check the API key"));
  }
  if (http_status == 429 || http_status >= 500) {
    return absl::UnavailableError(absl::StrCat(url_, " answered HTTP ", http_status));
  }
  if (http_status < 200 || http_status >= 300) {
    return absl::FailedPreconditionError(
        absl::StrCat(url_, " answered HTTP ", http_status, ": check the endpoint and the model name"));
  }
  return reader.Finish();
}

absl::StatusOr<Translation> LlmTranslator::Translate(const TranslationRequest& request, std::stop_token stop,
                                                     const PartialTranslation& on_partial) {
  Json body = {{"messages", Json::parse(BuildChatMessages(request, config_.context_lines))},
               {"stream", true},
               {"temperature", config_.temperature}};
  if (!config_.model.empty()) body["model"] = config_.model;
  const std::string payload = body.dump();

  const MediaTime start = clock_.Now();
  MediaTime backoff = config_.initial_backoff;
  absl::Status last;
  int tries = 0;
  for (int attempt = 0; attempt < config_.max_attempts; ++attempt) {
    const MediaTime remaining = config_.deadline - (clock_.Now() - start);
    if (remaining <= MediaTime::Zero()) break;
    ++tries;
    absl::StatusOr<std::string> text =
        Attempt(payload, std::min(config_.attempt_timeout, remaining), stop, on_partial);
    if (text.ok()) {
      Translation result;
      result.text = *std::move(text);
      result.engine = "llm";
      result.confidence = 0.5;  // a generative answer has no match score; below any TM hit
      return result;
    }
    last = text.status();
    if (!Retryable(last) || attempt + 1 == config_.max_attempts) break;
    if (clock_.Now() + backoff - start >= config_.deadline) break;
    if (stop.stop_requested()) return absl::CancelledError("translation cancelled");
    clock_.SleepUntil(clock_.Now() + backoff);
    backoff = std::min(backoff * 2, config_.max_backoff);
  }
  if (last.ok()) {
    last = absl::DeadlineExceededError(absl::StrCat("no answer from ", url_, " within ", config_.deadline.millis(),
                                                    " ms"));
  }
  return absl::Status(last.code(), absl::StrCat(std::string(last.message()), " (after ", tries, " attempt",
                                                tries == 1 ? "" : "s", ")"));
}

}  // namespace lingcast
