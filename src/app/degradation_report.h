// What the live report (app/live_watchdog.h) and the server's /metrics
// (app/serve_watchdog.h) say of a degradation ladder, in one shape.
#pragma once

#include "core/degradation_ladder.h"
#include "nlohmann/json.hpp"

namespace lingcast {

// {"taken": {rung: n}, "given_back": {rung: n}} for rungs 1 to `top_rung`,
// named as DegradationRungName names them; a rung never moved counts 0.
nlohmann::json RungCounts(const DegradationLadder& ladder, int top_rung);

}  // namespace lingcast
