// HlsDirectory: the one directory an HLS output writes, held open by a file
// descriptor so that nothing in it is reached through a symbolic link.
//
// An HLS directory is written file by file for as long as the show runs, and
// under `lingcast serve` it lies in a shared --output-dir where another
// session, or a user with access to it, could plant a link named like the
// next segment, a playlist or its temporary file (video.m3u8.tmp), or swap the
// directory itself for a link. So:
//
//   * the directory is opened once (the path is followed then, as a user's
//     own symlinked output directory should be) and every later operation is
//     relative to that descriptor (openat/renameat/unlinkat), so a directory
//     swapped for a link mid-show is not followed;
//   * libavformat's hls muxer is given "/proc/self/fd/N/NAME" paths, so its
//     own renames (NAME.tmp -> NAME) and deletions of old segments resolve to
//     the same directory, and its opens go through io_open (Install), which
//     creates files with O_CREAT|O_EXCL|O_NOFOLLOW;
//   * a link (or anything not a regular file) at a name about to be written
//     or at its temporary name is refused: the write fails with an error
//     naming the path, the link and its target are left alone.
//
// A refusal inside libavformat cannot always travel back through it (the hls
// muxer ignores a playlist it could not open), so the first one is kept and
// the output asks for it after each call into the muxer (refusal()).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

extern "C" {
#include <libavformat/avformat.h>
}

namespace lingcast {

class HlsDirectory {
 public:
  // Creates `path` (and its parents) when missing and opens it. Errors name `path`.
  static absl::StatusOr<std::unique_ptr<HlsDirectory>> Open(const std::string& path);
  ~HlsDirectory();
  HlsDirectory(const HlsDirectory&) = delete;
  HlsDirectory& operator=(const HlsDirectory&) = delete;

  const std::string& path() const { return path_; }
  // "DIR/NAME", for messages.
  std::string DisplayPath(std::string_view name) const;
  // "/proc/self/fd/N/NAME": a path for libavformat that always means this directory.
  std::string MuxerPath(std::string_view name) const;

  // A plain file name: not empty, no '/', not "." or "..", no NUL.
  static bool IsPlainName(std::string_view name);

  // Whether NAME exists as a regular file. A link or anything else there is an
  // error naming it (nothing is written through it).
  absl::StatusOr<bool> RegularFileExists(std::string_view name) const;
  // The contents of regular file NAME (opened without following a link).
  absl::StatusOr<std::string> Read(std::string_view name) const;
  // Writes NAME atomically: a new hidden temporary file created with
  // O_EXCL|O_NOFOLLOW, flushed, renamed over NAME. A link at NAME is refused.
  absl::Status WriteAtomically(std::string_view name, std::string_view contents);
  // Removes NAME (a link is removed, never followed). Missing is fine.
  void Remove(std::string_view name);
  // Bytes in the directory's regular files (links and subdirectories not counted).
  int64_t RegularFileBytes() const;

  // Routes `context`'s file opens (and those of the muxers it nests) through
  // this directory: writes and reads of MuxerPath names only, no links followed.
  // `context` must not outlive this object.
  void Install(AVFormatContext* context);
  // The first write refused inside the muxer (OK when none).
  const absl::Status& refusal() const { return refusal_; }

 private:
  HlsDirectory(std::string path, int fd);
  static int IoOpen(AVFormatContext* context, AVIOContext** pb, const char* url, int flags, AVDictionary** options);
  static int IoClose(AVFormatContext* context, AVIOContext* pb);
  // The muxer's open of `url`: a descriptor, or an error (also kept in refusal_).
  absl::StatusOr<int> OpenForMuxer(std::string_view url, bool write);
  // Refuses NAME when something other than a regular file is there.
  absl::Status CheckWritable(std::string_view name) const;
  // Creates NAME with O_CREAT|O_EXCL|O_NOFOLLOW; a regular file left there by
  // an interrupted run is replaced, a link is refused.
  absl::StatusOr<int> CreateExclusive(std::string_view name) const;

  std::string path_;
  int fd_;
  absl::Status refusal_;
};

}  // namespace lingcast
