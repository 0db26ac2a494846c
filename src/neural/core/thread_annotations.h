// Abseil's thread annotations where abseil is there. The GPU machine builds
// src/neural alone, without abseil: there the annotations are documentation.
#pragma once

#if __has_include("absl/base/thread_annotations.h")
#include "absl/base/thread_annotations.h"
#else
#ifndef ABSL_GUARDED_BY
#define ABSL_GUARDED_BY(x)
#endif
#ifndef ABSL_EXCLUSIVE_LOCKS_REQUIRED
#define ABSL_EXCLUSIVE_LOCKS_REQUIRED(...)
#endif
#ifndef ABSL_LOCKS_EXCLUDED
#define ABSL_LOCKS_EXCLUDED(...)
#endif
#endif
