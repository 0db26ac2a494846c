#include "output/live_queue.h"

#include <algorithm>
#include <utility>

#include "output/output_sink.h"

namespace lingcast {
namespace {

bool IsVideo(const AVPacket& packet) { return packet.stream_index == kVideoStreamIndex; }
bool IsKeyVideo(const AVPacket& packet) { return IsVideo(packet) && (packet.flags & AV_PKT_FLAG_KEY) != 0; }

}  // namespace

LivePacketQueue::LivePacketQueue(MediaTime congestion_threshold, MediaTime reconnect_buffer)
    : congestion_threshold_(congestion_threshold), reconnect_buffer_(reconnect_buffer) {}

MediaTime LivePacketQueue::SpanLocked() const {
  if (video_dts_.size() < 2) return MediaTime::Zero();
  return std::max(MediaTime::Zero(), MediaTime::Micros(video_dts_.back() - video_dts_.front()));
}

MediaTime LivePacketQueue::AllSpanLocked() const {
  if (packets_.size() < 2) return MediaTime::Zero();
  return std::max(MediaTime::Zero(), MediaTime::Micros(packets_.back()->dts - packets_.front()->dts));
}

PacketPtr LivePacketQueue::TakeFrontLocked() {
  PacketPtr packet = std::move(packets_.front());
  packets_.pop_front();
  if (IsVideo(*packet) && !video_dts_.empty()) video_dts_.pop_front();
  bytes_ -= packet->size;
  return packet;
}

void LivePacketQueue::AppendLocked(PacketPtr packet) {
  if (IsVideo(*packet)) video_dts_.push_back(packet->dts);
  bytes_ += packet->size;
  packets_.push_back(std::move(packet));
  max_bytes_ = std::max(max_bytes_, bytes_);
  max_packets_ = std::max(max_packets_, packets_.size());
}

void LivePacketQueue::Push(PacketPtr packet) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || aborted_) return;
    if (need_keyframe_) {
      if (!IsKeyVideo(*packet)) {
        ++discarded_;
        return;
      }
      need_keyframe_ = false;
    }
    if (connected_ && IsVideo(*packet)) {
      const bool congested = SpanLocked() > congestion_threshold_;
      if (IsKeyVideo(*packet)) {
        if (!congested) dropping_video_ = false;
      } else if (dropping_video_ || congested) {
        dropping_video_ = true;
        ++dropped_video_;
        return;
      }
    }
    AppendLocked(std::move(packet));
    if (!connected_) {
      while (AllSpanLocked() > reconnect_buffer_) {
        TakeFrontLocked();
        ++discarded_;
      }
    }
  }
  ready_.notify_one();
}

PacketPtr LivePacketQueue::Pop() {
  std::unique_lock<std::mutex> lock(mu_);
  ready_.wait(lock, [this] { return aborted_ || closed_ || !packets_.empty(); });
  if (aborted_ || packets_.empty()) return nullptr;
  return TakeFrontLocked();
}

void LivePacketQueue::SetConnected(bool connected, bool reconnect) {
  std::lock_guard<std::mutex> lock(mu_);
  connected_ = connected;
  dropping_video_ = false;
  if (!connected) return;
  // A decoder joining here needs a keyframe first: drop what comes before the
  // first queued one (on the first connection only the video before it, since
  // the encoder's first packet is a keyframe anyway and early audio is wanted).
  const auto first_key = std::find_if(packets_.begin(), packets_.end(),
                                      [](const PacketPtr& p) { return IsKeyVideo(*p); });
  const bool found_key = first_key != packets_.end();
  std::deque<PacketPtr> old = std::move(packets_);
  packets_.clear();
  video_dts_.clear();
  bytes_ = 0;
  for (auto it = old.begin(); it != old.end(); ++it) {
    const bool before_key = !found_key || it < first_key;
    if (before_key && (reconnect || IsVideo(**it))) {
      ++discarded_;
    } else {
      AppendLocked(std::move(*it));
    }
  }
  need_keyframe_ = reconnect && !found_key;
}

void LivePacketQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  ready_.notify_all();
}

void LivePacketQueue::Abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
  }
  ready_.notify_all();
}

MediaTime LivePacketQueue::span() const {
  std::lock_guard<std::mutex> lock(mu_);
  return SpanLocked();
}

int64_t LivePacketQueue::dropped_video() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_video_;
}

int64_t LivePacketQueue::discarded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return discarded_;
}

int64_t LivePacketQueue::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

int64_t LivePacketQueue::packets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(packets_.size());
}

int64_t LivePacketQueue::max_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_bytes_;
}

int64_t LivePacketQueue::max_packets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(max_packets_);
}

}  // namespace lingcast
