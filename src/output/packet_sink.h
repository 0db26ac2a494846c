// Where encoders put their packets: a muxer, several muxers, or a test.
#pragma once

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

extern "C" {
#include <libavcodec/packet.h>
}

namespace lingcast {

// Receives one encoded packet, timestamps in the encoder's time_base(). The
// packet is only borrowed for the call (take a reference with av_packet_ref
// to keep it); an error stops the encode and is returned to its caller.
using PacketSink = absl::FunctionRef<absl::Status(AVPacket& packet)>;

}  // namespace lingcast
