#include "output/av_muxer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"

extern "C" {
#include <libavutil/dict.h>
#include <libavutil/opt.h>
}

namespace lingcast {
namespace {

struct CodecParametersDeleter {
  void operator()(AVCodecParameters* parameters) const { avcodec_parameters_free(&parameters); }
};

}  // namespace

absl::StatusOr<std::unique_ptr<AvMuxer>> AvMuxer::Open(const std::string& format_name, const std::string& url,
                                                       const std::vector<StreamSource>& streams,
                                                       const std::map<std::string, std::string>& options,
                                                       const std::string& display_name,
                                                       const AvConnection& connection) {
  // Parameters copied from the encoders; freed when this function returns.
  std::vector<std::unique_ptr<AVCodecParameters, CodecParametersDeleter>> owned;
  std::vector<const AVCodecParameters*> parameters;
  std::vector<AVRational> time_bases, frame_rates;
  for (const StreamSource& source : streams) {
    owned.emplace_back(avcodec_parameters_alloc());
    if (!owned.back()) return absl::ResourceExhaustedError("out of memory copying codec parameters");
    const int err = avcodec_parameters_from_context(owned.back().get(), source.encoder);
    if (err < 0) return AvError(err, absl::StrCat("output ", display_name, ": copying codec parameters"));
    parameters.push_back(owned.back().get());
    time_bases.push_back(source.encoder->time_base);
    frame_rates.push_back(source.encoder->framerate);
  }
  return OpenStreams(format_name, url, parameters, time_bases, frame_rates, options, display_name, connection);
}

absl::StatusOr<std::unique_ptr<AvMuxer>> AvMuxer::Open(const std::string& format_name, const std::string& url,
                                                       const std::vector<const AVCodecParameters*>& streams,
                                                       const std::vector<AVRational>& time_bases,
                                                       const std::map<std::string, std::string>& options,
                                                       const std::string& display_name,
                                                       const AvConnection& connection) {
  std::vector<AVRational> frame_rates;
  for (size_t i = 0; i < streams.size(); ++i) {
    const bool video = streams[i]->codec_type == AVMEDIA_TYPE_VIDEO;
    frame_rates.push_back(video && i < time_bases.size() ? av_inv_q(time_bases[i]) : AVRational{0, 1});
  }
  return OpenStreams(format_name, url, streams, time_bases, frame_rates, options, display_name, connection);
}

absl::StatusOr<std::unique_ptr<AvMuxer>> AvMuxer::OpenStreams(
    const std::string& format_name, const std::string& url, const std::vector<const AVCodecParameters*>& streams,
    const std::vector<AVRational>& time_bases, const std::vector<AVRational>& frame_rates,
    const std::map<std::string, std::string>& options, const std::string& display_name,
    const AvConnection& connection) {
  AVFormatContext* raw = nullptr;
  int err = avformat_alloc_output_context2(&raw, nullptr, format_name.c_str(), url.c_str());
  if (err < 0 || raw == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("output ", display_name, ": libavformat has no \"",
                                                   format_name, "\" muxer: ", AvErrorText(err)));
  }
  // From here the muxer object owns the context, so every early return frees it.
  std::unique_ptr<AvMuxer> muxer(new AvMuxer(raw, display_name));
  AVFormatContext* ctx = muxer->context_;
  ctx->interrupt_callback = connection.interrupt;
  if (connection.prepare) connection.prepare(ctx);
  auto report = [&connection](int code) {
    if (connection.open_error != nullptr) *connection.open_error = code;
  };

  for (size_t i = 0; i < streams.size(); ++i) {
    AVStream* stream = avformat_new_stream(ctx, nullptr);
    if (stream == nullptr) return absl::ResourceExhaustedError("out of memory adding an output stream");
    err = avcodec_parameters_copy(stream->codecpar, streams[i]);
    if (err < 0) return AvError(err, absl::StrCat("output ", display_name, ": copying codec parameters"));
    stream->time_base = time_bases[i];  // a hint; the muxer may choose its own
    if (streams[i]->codec_type == AVMEDIA_TYPE_VIDEO) {
      stream->avg_frame_rate = frame_rates[i];
      stream->sample_aspect_ratio = streams[i]->sample_aspect_ratio;
    }
  }

  if (!(ctx->oformat->flags & AVFMT_NOFILE)) {
    AVDictionary* io_raw = nullptr;
    for (const auto& [key, value] : connection.io_options) av_dict_set(&io_raw, key.c_str(), value.c_str(), 0);
    err = avio_open2(&ctx->pb, url.c_str(), AVIO_FLAG_WRITE, &ctx->interrupt_callback, &io_raw);
    av_dict_free(&io_raw);
    if (err < 0) {
      report(err);
      return AvError(err, absl::StrCat("cannot open output ", display_name, " for writing"));
    }
  }

  AVDictionary* raw_dict = nullptr;
  for (const auto& [key, value] : options) av_dict_set(&raw_dict, key.c_str(), value.c_str(), 0);
  err = avformat_write_header(ctx, &raw_dict);
  std::unique_ptr<AVDictionary, DictionaryDeleter> unused(raw_dict);
  if (err < 0) {
    report(err);
    return AvError(err, absl::StrCat("output ", display_name, ": writing the header"));
  }
  if (const AVDictionaryEntry* entry = av_dict_get(unused.get(), "", nullptr, AV_DICT_IGNORE_SUFFIX)) {
    return absl::InvalidArgumentError(absl::StrCat("output ", display_name, ": the ", format_name,
                                                   " muxer has no option \"", entry->key, "\""));
  }
  if (ctx->pb != nullptr) muxer->bytes_written_ = avio_tell(ctx->pb);
  return muxer;
}

AvMuxer::AvMuxer(AVFormatContext* context, std::string display_name)
    : context_(context), scratch_(av_packet_alloc()), display_name_(std::move(display_name)) {}

AvMuxer::~AvMuxer() {
  CloseOutput();
  // Frees the streams and, for a muxer that was initialised but never
  // finished, its private state (libavformat calls the muxer's deinit).
  avformat_free_context(context_);
}

void AvMuxer::CloseOutput() {
  if (context_ != nullptr && context_->pb != nullptr && !(context_->oformat->flags & AVFMT_NOFILE)) {
    avio_closep(&context_->pb);
  }
}

absl::Status AvMuxer::WritePacket(int stream_index, const AVPacket& packet, AVRational time_base) {
  if (finished_) return absl::InternalError(absl::StrCat("output ", display_name_, ": packet after Finish"));
  if (stream_index < 0 || stream_index >= static_cast<int>(context_->nb_streams)) {
    return absl::InternalError(absl::StrFormat("output %s: no stream %d", display_name_, stream_index));
  }
  if (!scratch_) return absl::ResourceExhaustedError("out of memory allocating a packet");
  int err = av_packet_ref(scratch_.get(), &packet);
  if (err < 0) return AvError(err, "referencing a packet");
  scratch_->stream_index = stream_index;
  av_packet_rescale_ts(scratch_.get(), time_base, context_->streams[stream_index]->time_base);
  // Takes ownership of the reference and leaves scratch_ blank.
  err = av_interleaved_write_frame(context_, scratch_.get());
  if (err < 0) {
    last_error_ = err;
    return AvError(err, absl::StrCat("writing to ", display_name_));
  }
  if (context_->pb != nullptr) bytes_written_ = avio_tell(context_->pb);
  return absl::OkStatus();
}

absl::Status AvMuxer::SetMuxerOption(const std::string& name, const std::string& value) {
  if (context_->priv_data == nullptr) return absl::InternalError(absl::StrCat("output ", display_name_, ": no muxer options"));
  const int err = av_opt_set(context_->priv_data, name.c_str(), value.c_str(), 0);
  if (err < 0) return AvError(err, absl::StrCat("output ", display_name_, ": setting ", name, "=", value));
  return absl::OkStatus();
}

absl::Status AvMuxer::ReplaceExtradata(int stream_index, const uint8_t* data, int size) {
  if (stream_index < 0 || stream_index >= static_cast<int>(context_->nb_streams) || size <= 0) {
    return absl::InternalError(absl::StrFormat("output %s: no stream %d for new extradata", display_name_, stream_index));
  }
  AVCodecParameters* parameters = context_->streams[stream_index]->codecpar;
  auto* copy = static_cast<uint8_t*>(av_mallocz(static_cast<size_t>(size) + AV_INPUT_BUFFER_PADDING_SIZE));
  if (copy == nullptr) return absl::ResourceExhaustedError("out of memory copying extradata");
  std::copy_n(data, size, copy);
  av_freep(&parameters->extradata);
  parameters->extradata = copy;
  parameters->extradata_size = size;
  return absl::OkStatus();
}

absl::Status AvMuxer::Finish(const std::function<void()>& before_close) {
  if (finished_) return absl::OkStatus();
  finished_ = true;
  int err = av_write_trailer(context_);
  if (err < 0) {
    last_error_ = err;
    return AvError(err, absl::StrCat("finishing ", display_name_));
  }
  if (context_->pb != nullptr && !(context_->oformat->flags & AVFMT_NOFILE)) {
    avio_flush(context_->pb);
    bytes_written_ = avio_size(context_->pb);
    err = context_->pb->error;
    if (err >= 0 && before_close) before_close();
    const int close_err = avio_closep(&context_->pb);
    if (err >= 0) err = close_err;
    if (err < 0) {
      last_error_ = err;
      return AvError(err, absl::StrCat("writing to ", display_name_));
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast
