#include "app/degradation_report.h"

#include <string>

namespace lingcast {

nlohmann::json RungCounts(const DegradationLadder& ladder, int top_rung) {
  nlohmann::json taken = nlohmann::json::object();
  nlohmann::json given_back = nlohmann::json::object();
  for (int rung = 1; rung <= top_rung; ++rung) {
    const std::string name(DegradationRungName(rung));
    taken[name] = ladder.taken()[rung - 1];
    given_back[name] = ladder.given_back()[rung - 1];
  }
  return {{"taken", std::move(taken)}, {"given_back", std::move(given_back)}};
}

}  // namespace lingcast
