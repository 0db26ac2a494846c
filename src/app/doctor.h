// `lingcast doctor`: checks what lingcast needs at run time (voices, lexicon,
// fonts, encoders) and says how to fix what is missing.
#pragma once

#include <string>
#include <vector>

#include "app/command.h"

namespace lingcast {

struct DoctorCheck {
  std::string name;    // "espeak-ng voices"
  bool ok = false;
  std::string detail;  // what was found, or what is wrong
  std::string fix;     // how to fix it (empty when ok)
};

std::vector<DoctorCheck> RunDoctorChecks();

// Prints the checks (a table, or JSON) on stdout; 0 when all pass, else 1.
int RunDoctor(bool json);

// `lingcast doctor [--json]`: its flag, and RunDoctor.
Command AddDoctorCommand(CLI::App& app);

}  // namespace lingcast
