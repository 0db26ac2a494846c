// The facial expressions a script or the API can ask for (`@emotion smile`):
// a value that travels from the script through the speech stage to the
// avatar's animator.
#pragma once

#include <optional>
#include <string>

namespace lingcast {

enum class Expression { kNeutral, kSmile, kSurprised, kThinking };
inline constexpr int kExpressionCount = 4;
const char* ExpressionName(Expression e);                         // "neutral", "smile", ...
std::optional<Expression> ExpressionFromName(const std::string& name);

}  // namespace lingcast
