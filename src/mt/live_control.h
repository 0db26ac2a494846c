// Corrections an operator makes while `lingcast live` runs (`--control`): one
// command per line, read from stdin or from a file or FIFO the operator writes to.
//
//   line N = TEXT      script line N is translated TEXT from now on
//   term SOURCE = TEXT the glossary translates SOURCE as TEXT (needs --glossary)
//   tm SOURCE = TEXT   the memory translates SOURCE as TEXT (off-script speech)
//   video WxH@FPS      the picture switches to this size and frame rate at the
//   video WxH          next frame (`video 1920x1080` keeps the frame rate,
//   video @FPS         `video @60` the size); same rules as --size and --fps
//   # ...              a comment; blank lines are ignored
//
// Commands already in a control file when the job starts apply before the first
// line is heard (so a show's corrections can be replayed); later ones apply to
// the next line decided after they arrive. With --corrections FILE every
// applied command is also kept there (mt/corrections.h), for the next show.
// A command that cannot apply (a typo, an unknown line) is logged and counted;
// it never stops the show. `video` commands are not corrections: the playout
// takes them (TakeVideoChanges) and switches the picture at a frame boundary;
// a `video` line that is not a valid command goes there too, as its reason
// (the playout warns "bad video command at PATH:LINE: ...").
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "media/video_format.h"

namespace lingcast {

struct ControlCommand {
  enum class Kind { kLine, kTerm, kMemory, kVideo };
  Kind kind = Kind::kLine;
  int line_number = 0;   // kLine: the script line (1-based, as reports give it)
  std::string source;    // kTerm, kMemory
  std::string target;
  VideoChange video;     // kVideo
  std::string text;      // the command as typed, for messages
};

// InvalidArgument with a one-line reason for anything that is not a command.
absl::StatusOr<ControlCommand> ParseControlCommand(const std::string& text);

// What the reader hands over: a command, or the reason a line was not one.
struct ControlInput {
  absl::StatusOr<ControlCommand> command;
  std::string where;  // "PATH:LINE" or "stdin:LINE"
};

class LiveControl {
 public:
  // `path`: "-" reads stdin (file descriptor 0); else a regular file (read to its
  // end now, then followed as it grows) or a FIFO. NotFound / PermissionDenied
  // naming the path when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<LiveControl>> Open(const std::string& path);
  // No file: commands come from Submit() alone (the server's corrections endpoint).
  static std::unique_ptr<LiveControl> InProcess();
  ~LiveControl();  // stops the reader
  LiveControl(const LiveControl&) = delete;
  LiveControl& operator=(const LiveControl&) = delete;

  // Everything read (or submitted) since the last call, in order, but the
  // `video` lines: the corrections, and the lines that are no command at all.
  std::vector<ControlInput> Take();
  // The `video` lines read (or submitted) since the last call, in order: each
  // a change, or InvalidArgument "bad video command at PATH:LINE: " and the
  // parser's reason for a line that is not a valid one.
  std::vector<absl::StatusOr<VideoChange>> TakeVideoChanges();
  // Parses `text` (one command) and queues it like a line read from the file,
  // to apply to the next line decided; a line that is not a command fails here
  // with the parser's one-line reason, and nothing is queued.
  absl::Status Submit(const std::string& text, const std::string& where);

 private:
  LiveControl(std::string path, int fd, bool owns_fd, bool follow_at_eof);
  void ReadAvailable();  // reads what is there now, without blocking
  void ReadLoop();
  void AddLines(const char* data, size_t size);
  // `video_line`: the line's verb is `video`, whether or not it parsed.
  void Queue(ControlInput input, bool video_line) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const int fd_;
  const bool owns_fd_;
  const bool follow_at_eof_;  // a regular file or FIFO: wait for more; stdin: its end is the end
  std::string partial_;       // the reader's: a line not yet ended
  int line_number_ = 0;       // the reader's

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<ControlInput> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::StatusOr<VideoChange>> pending_video_ ABSL_GUARDED_BY(mu_);

  std::thread reader_;  // last: started when everything above exists
};

}  // namespace lingcast
