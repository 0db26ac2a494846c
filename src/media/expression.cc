#include "media/expression.h"

namespace lingcast {

const char* ExpressionName(Expression e) {
  switch (e) {
    case Expression::kNeutral: return "neutral";
    case Expression::kSmile: return "smile";
    case Expression::kSurprised: return "surprised";
    case Expression::kThinking: return "thinking";
  }
  return "neutral";
}

std::optional<Expression> ExpressionFromName(const std::string& name) {
  for (int i = 0; i < kExpressionCount; ++i) {
    if (name == ExpressionName(static_cast<Expression>(i))) return static_cast<Expression>(i);
  }
  return std::nullopt;
}

}  // namespace lingcast
