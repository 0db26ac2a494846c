// Where lingcast's generated data files (the Mandarin lexicon, ...) live at run time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lingcast {

// The directories searched, in order:
//   1. $LINGCAST_DATA_DIR (if set and non-empty)
//   2. <directory of the running executable>/data      (build/lingcast -> build/data/)
//   3. <directory of the running executable>/../share/lingcast   (installed layout)
std::vector<std::string> DataSearchPath();

// The full path of data file `name` (e.g. "zh_lexicon.tsv") in the first directory
// of DataSearchPath() that holds it; NotFound listing the places looked in otherwise.
absl::StatusOr<std::string> FindDataFile(std::string_view name);

}  // namespace lingcast
