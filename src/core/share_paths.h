// Files that lingcast's Debian packages install under /usr/share (the CJK font,
// OpenCC's tables, pocketsphinx's model and dictionary) when lingcast runs from a
// relocatable bundle (tools/gpu/make_bundle.sh, docs/gpu.md): the bundle's
// launcher sets LINGCAST_SHARE_DIR to its own share/ folder, which holds the same
// files under the same names below /usr/share.
#pragma once

#include <string>
#include <string_view>

namespace lingcast {

inline constexpr char kShareDirVariable[] = "LINGCAST_SHARE_DIR";

// `system_path` as found in the folder LINGCAST_SHARE_DIR names:
// "/usr/share/opencc" -> "$LINGCAST_SHARE_DIR/opencc" when that exists there.
// `system_path` itself when the variable is unset or empty, when the path is not
// below /usr/share, or when the bundle lacks it (so an error names the path a
// Debian install would have).
std::string SharePath(std::string_view system_path);

// The same, with the folder given rather than read from the environment (tests).
std::string SharePathIn(std::string_view share_dir, std::string_view system_path);

}  // namespace lingcast
