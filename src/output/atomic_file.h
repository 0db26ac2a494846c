// Moved to core/atomic_file.h (the translation layer persists corrections with it);
// kept until every include is updated.
#pragma once
#include "core/atomic_file.h"
