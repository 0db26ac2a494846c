#include "neural/marian/marian_batcher.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include <torch/torch.h>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

std::exception_ptr Cancelled(const std::string& why) {
  return std::make_exception_ptr(NeuralError(ErrorCode::kCancelled, why));
}

}  // namespace

MarianBatcher::MarianBatcher(std::shared_ptr<const MarianModel> model, GenerationOptions generation,
                             MarianBatcherOptions options)
    : model_(std::move(model)), generation_(std::move(generation)), options_(options) {
  if (options_.max_batch < 1) {
    Fail(ErrorCode::kInvalidArgument,
         "MarianBatcherOptions::max_batch must be at least 1, not " + std::to_string(options_.max_batch));
  }
  if (options_.window.count() < 0) Fail(ErrorCode::kInvalidArgument, "MarianBatcherOptions::window must not be negative");
  worker_ = std::jthread([this](std::stop_token shutdown) { Run(shutdown); });
}

MarianBatcher::~MarianBatcher() {
  worker_.request_stop();  // wakes NextBatch and stops the batch in flight
  worker_.join();
  std::lock_guard lock(mutex_);
  for (Request& request : queue_) {
    request.result.set_exception(Cancelled("the Marian batcher shut down before this line was translated"));
  }
  stats_.requests += static_cast<std::int64_t>(queue_.size());
  queue_.clear();
}

std::future<std::vector<std::int64_t>> MarianBatcher::Submit(std::vector<std::int64_t> source_ids,
                                                             std::stop_token stop) {
  Request request{std::move(source_ids), std::move(stop), {}, std::chrono::steady_clock::now()};
  std::future<std::vector<std::int64_t>> future = request.result.get_future();
  if (request.source_ids.empty()) {
    // Caught here: padded into a batch it would decode as a line of padding.
    request.result.set_exception(std::make_exception_ptr(
        NeuralError(ErrorCode::kInvalidArgument, "a line to translate has no tokens (not even eos)")));
    return future;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(request));
  }
  queued_.notify_one();
  return future;
}

MarianBatcherStats MarianBatcher::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void MarianBatcher::Run(std::stop_token shutdown) {
  torch::NoGradGuard no_grad;  // grad mode is per thread
  while (!shutdown.stop_requested()) {
    std::vector<Request> batch = NextBatch(shutdown);
    if (batch.empty()) continue;
    Decode(batch, shutdown);
    std::lock_guard lock(mutex_);
    stats_.requests += static_cast<std::int64_t>(batch.size());
  }
}

std::vector<MarianBatcher::Request> MarianBatcher::NextBatch(std::stop_token shutdown) {
  std::unique_lock lock(mutex_);
  if (!queued_.wait(lock, shutdown, [&] { return !queue_.empty(); })) return {};
  const auto deadline = queue_.front().arrived + options_.window;
  const auto full = [&] { return static_cast<std::int64_t>(queue_.size()) >= options_.max_batch; };
  if (!queued_.wait_until(lock, shutdown, deadline, full) && shutdown.stop_requested()) return {};
  const auto take = std::min<std::size_t>(queue_.size(), static_cast<std::size_t>(options_.max_batch));
  std::vector<Request> batch;
  batch.reserve(take);
  for (std::size_t i = 0; i < take; ++i) {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void MarianBatcher::Decode(std::vector<Request>& batch, std::stop_token shutdown) {
  std::vector<Request*> rows;
  for (Request& request : batch) {
    if (request.stop.stop_requested()) {
      request.result.set_exception(Cancelled("translation cancelled before it started"));
    } else {
      rows.push_back(&request);
    }
  }
  if (rows.empty()) return;
  {
    std::lock_guard lock(mutex_);
    ++stats_.batches;
    stats_.largest_batch = std::max(stats_.largest_batch, static_cast<std::int64_t>(rows.size()));
  }
  const auto deliver = [&](Request& request, std::vector<std::int64_t> tokens) {
    if (request.stop.stop_requested()) {
      request.result.set_exception(Cancelled("translation cancelled while its batch was decoding"));
    } else {
      request.result.set_value(std::move(tokens));
    }
  };
  try {
    std::vector<std::vector<std::int64_t>> results = Generate(rows, shutdown);
    for (std::size_t i = 0; i < rows.size(); ++i) deliver(*rows[i], std::move(results[i]));
    return;
  } catch (const std::exception&) {
    if (shutdown.stop_requested() || rows.size() == 1) {
      const std::exception_ptr error = std::current_exception();
      for (Request* request : rows) request->result.set_exception(error);
      return;
    }
  }
  // One line spoiled the batch: decode each alone so that only it fails.
  {
    std::lock_guard lock(mutex_);
    ++stats_.retried_alone;
  }
  for (Request* request : rows) {
    try {
      deliver(*request, Generate({request}, shutdown).front());
    } catch (const std::exception&) {
      request->result.set_exception(std::current_exception());
    }
  }
}

std::vector<std::vector<std::int64_t>> MarianBatcher::Generate(const std::vector<Request*>& rows,
                                                               std::stop_token shutdown) const {
  std::size_t longest = 0;
  for (const Request* request : rows) longest = std::max(longest, request->source_ids.size());
  const auto batch = static_cast<std::int64_t>(rows.size());
  // Greedy on the static path: padded to the source bucket (the model pads the
  // rows to theirs), so batches of a seen shape reuse a kept decoder and replay its graph.
  const bool bucketed =
      options_.pad_to_buckets && UseStaticPath(generation_, model_->options().device) && generation_.cuda_graphs;
  const auto length = bucketed ? MarianSourceBucket(static_cast<std::int64_t>(longest),
                                                    model_->config().max_position_embeddings)
                               : static_cast<std::int64_t>(longest);
  // Built on the host and moved to the device once per batch, not once per row.
  torch::Tensor ids = torch::full({batch, length}, model_->config().pad_token_id, torch::kLong);
  torch::Tensor mask = torch::zeros({batch, length}, torch::kLong);
  auto ids_rows = ids.accessor<std::int64_t, 2>();
  auto mask_rows = mask.accessor<std::int64_t, 2>();
  for (std::int64_t r = 0; r < batch; ++r) {
    const std::vector<std::int64_t>& source = rows[static_cast<std::size_t>(r)]->source_ids;
    for (std::size_t t = 0; t < source.size(); ++t) {
      ids_rows[r][static_cast<std::int64_t>(t)] = source[t];
      mask_rows[r][static_cast<std::int64_t>(t)] = 1;
    }
  }
  GenerationOptions generation = generation_;
  generation.stop = shutdown;
  return bucketed ? model_->GenerateBucketed(ids, mask, generation) : model_->Generate(ids, mask, generation);
}

}  // namespace lingcast::neural
