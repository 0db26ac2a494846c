// `lingcast translate`: lines on stdin, translations on stdout, one per line, as
// they come (a pipe gets each answer before the next line is read).
//
//   plain: the translation, or an empty line when no engine had one;
//   --json: {"line":N,"source":...,"target":...|null,"engine":...|null,"score":S,
//            "confidence":C,"origin":...,"glossary_fixed":K,"error":...} per line.
// The last few lines and their translations go with each request as context.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "app/command.h"
#include "app/translation_setup.h"
#include "core/clock.h"
#include "core/logger.h"

namespace lingcast {

struct TranslateCommandOptions {
  TranslationOptions translation;
  bool json = false;
};

struct TranslateSummary {
  int lines = 0;
  int translated = 0;
  int untranslated = 0;
};

absl::StatusOr<TranslateSummary> RunTranslateCommand(const TranslateCommandOptions& options, std::istream& in,
                                                     std::ostream& out, Clock& clock, Logger& logger);

// `lingcast translate [--from zh] [--to en] ...`: its flags, and
// RunTranslateCommand on stdin/stdout with the system clock.
Command AddTranslateCommand(CLI::App& app);

}  // namespace lingcast
