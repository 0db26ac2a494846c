/* A test fixture for the neural plug-in's C ABI (src/neural/plugin/
 * lingcast_plugin_abi.h), not an engine anyone should speak with: a plug-in
 * written in C and built by another toolchain than lingcast (clang, as C99;
 * src/app/CMakeLists.txt), which neural_plugin_test.cc loads through the real
 * loader and adapters.
 *
 * It implements one engine of the table, minimally but genuinely: a "vits"
 * voice (model "sine") whose speech is a sine tone of FIXTURE_TONE_HZ at
 * FIXTURE_SAMPLE_RATE, 100 ms per byte of text, one word boundary and one
 * phoneme per space-separated word. A session streams a clause in one part per
 * word. Its other engines are absent (their entries NULL), as in a plug-in
 * built without them.
 *
 * Built several ways from this one file:
 *   FIXTURE_ABI_MAJOR   the table's abi_major (default: the header's)
 *   FIXTURE_TABLE_SIZE  the table's struct_size (default: sizeof the table)
 *   FIXTURE_NEWER_MINOR the table of a later minor: one more entry appended */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "neural/plugin/lingcast_plugin_abi.h"

#define FIXTURE_SAMPLE_RATE 16000
#define FIXTURE_TONE_HZ 440.0
#define FIXTURE_US_PER_BYTE 100000
#define FIXTURE_SAMPLES_PER_BYTE (FIXTURE_SAMPLE_RATE / 10)
#define FIXTURE_PI 3.14159265358979323846

#ifndef FIXTURE_ABI_MAJOR
#define FIXTURE_ABI_MAJOR LC_PLUGIN_ABI_MAJOR
#endif

struct lc_voice {
  char name[16];
};

struct lc_voice_session {
  lc_language language;
  double volume;
  volatile int cancelled; /* set by voice_session_cancel */
};

struct lc_stop {
  volatile int requested;
};

static lc_status_code fail(lc_status* status, lc_status_code code, const char* message) {
  if (status != NULL) {
    status->code = code;
    strncpy(status->message, message, sizeof(status->message) - 1);
    status->message[sizeof(status->message) - 1] = '\0';
  }
  return code;
}

static void describe_runtime(lc_runtime_report* report) {
  if (report == NULL || report->struct_size < sizeof(lc_runtime_report)) return;
  strcpy(report->summary, "sine fixture (C, no libtorch)");
  report->reference_blas = 0;
  report->gpus = 0;
}

static lc_stop* stop_create(void) { return calloc(1, sizeof(lc_stop)); }
static void stop_request(lc_stop* stop) { stop->requested = 1; }
static void stop_destroy(lc_stop* stop) { free(stop); }

static lc_voice* create_vits_voice(const lc_vits_options* options, lc_status* status) {
  lc_voice* voice;
  if (options == NULL || options->struct_size < sizeof(lc_vits_options)) {
    fail(status, LC_INVALID_ARGUMENT, "lc_vits_options too short for this plug-in");
    return NULL;
  }
  if (options->model_dir == NULL || strcmp(options->model_dir, "sine") != 0) {
    fail(status, LC_NOT_FOUND, "the sine fixture speaks only the model \"sine\"");
    return NULL;
  }
  voice = calloc(1, sizeof(lc_voice));
  if (voice == NULL) {
    fail(status, LC_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  strcpy(voice->name, "sine");
  if (options->placed_on != NULL) strcpy(options->placed_on, "cpu float32");
  return voice;
}

static void voice_destroy(lc_voice* voice) { free(voice); }
static const char* voice_name(const lc_voice* voice) { return voice->name; }
static int32_t voice_sample_rate(const lc_voice* voice) {
  (void)voice;
  return FIXTURE_SAMPLE_RATE;
}

static int check_settings(const lc_voice_settings* settings, lc_status* status) {
  if (settings == NULL || settings->struct_size < sizeof(lc_voice_settings)) {
    fail(status, LC_INVALID_ARGUMENT, "lc_voice_settings too short for this plug-in");
    return 0;
  }
  if (!(settings->volume >= 0.0 && settings->volume <= 4.0)) {
    fail(status, LC_INVALID_ARGUMENT, "volume must be in [0, 4]");
    return 0;
  }
  return 1;
}

/* The tone for bytes [begin, end) of a text, one phoneme and one word boundary
 * per word, timed from `origin_us`; word offsets are into the whole text. */
static lc_status_code speak(const char* text, size_t begin, size_t end, lc_language language, double volume,
                            int64_t origin_us, lc_synthesis_sink sink, void* user, lc_status* status) {
  size_t count = (end - begin) * FIXTURE_SAMPLES_PER_BYTE;
  size_t words = 0;
  size_t i;
  float* samples = malloc((count > 0 ? count : 1) * sizeof(float));
  lc_phoneme* phonemes = malloc(((end - begin) + 1) * sizeof(lc_phoneme));
  lc_word_boundary* bounds = malloc(((end - begin) + 1) * sizeof(lc_word_boundary));
  lc_synthesis part;
  lc_status_code code;
  if (samples == NULL || phonemes == NULL || bounds == NULL) {
    free(samples);
    free(phonemes);
    free(bounds);
    return fail(status, LC_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (i = 0; i < count; ++i) {
    samples[i] = (float)(0.5 * volume * sin(2.0 * FIXTURE_PI * FIXTURE_TONE_HZ * (double)i / FIXTURE_SAMPLE_RATE));
  }
  for (i = begin; i < end; ++i) {
    if (text[i] != ' ' && (i == begin || text[i - 1] == ' ')) {
      size_t length = 0;
      while (i + length < end && text[i + length] != ' ') ++length;
      phonemes[words].phoneme = "a";
      phonemes[words].phoneme_size = 1;
      phonemes[words].start_us = origin_us + (int64_t)(i - begin) * FIXTURE_US_PER_BYTE;
      phonemes[words].duration_us = (int64_t)length * FIXTURE_US_PER_BYTE;
      bounds[words].start_us = phonemes[words].start_us;
      bounds[words].text_offset = (int32_t)i;
      bounds[words].text_length = (int32_t)length;
      ++words;
    }
  }
  memset(&part, 0, sizeof(part));
  part.struct_size = sizeof(part);
  part.samples = samples;
  part.sample_count = count;
  part.sample_rate = FIXTURE_SAMPLE_RATE;
  part.channels = 1;
  part.track_language = language;
  part.phonemes = phonemes;
  part.phoneme_count = words;
  part.words = bounds;
  part.word_count = words;
  code = sink(user, &part, status);
  free(samples);
  free(phonemes);
  free(bounds);
  return code;
}

static lc_status_code voice_synthesize(lc_voice* voice, const lc_voice_settings* settings, const char* text,
                                       size_t text_size, lc_synthesis_sink sink, void* user, lc_status* status) {
  (void)voice;
  if (!check_settings(settings, status)) return status->code;
  return speak(text, 0, text_size, settings->language, settings->volume, 0, sink, user, status);
}

static lc_voice_session* voice_open_session(lc_voice* voice, const lc_voice_settings* settings, lc_status* status) {
  lc_voice_session* session;
  (void)voice;
  if (!check_settings(settings, status)) return NULL;
  session = calloc(1, sizeof(lc_voice_session));
  if (session == NULL) {
    fail(status, LC_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  session->language = settings->language;
  session->volume = settings->volume;
  return session;
}

static void voice_session_destroy(lc_voice_session* session) { free(session); }

static lc_status_code voice_session_synthesize_clause(lc_voice_session* session, const char* clause,
                                                      size_t clause_size, lc_language language,
                                                      lc_synthesis_sink sink, void* user, lc_status* status) {
  if (session->cancelled) return fail(status, LC_CANCELLED, "the sine session was cancelled");
  return speak(clause, 0, clause_size, language, session->volume, 0, sink, user, status);
}

/* One part per word (with the spaces after it), each timed from the clause's start. */
static lc_status_code voice_session_stream_clause(lc_voice_session* session, const char* clause, size_t clause_size,
                                                  lc_language language, lc_synthesis_sink sink, void* user,
                                                  lc_status* status) {
  size_t begin = 0;
  while (begin < clause_size) {
    size_t end = begin;
    lc_status_code code;
    if (session->cancelled) return fail(status, LC_CANCELLED, "the sine session was cancelled");
    while (end < clause_size && clause[end] != ' ') ++end;
    while (end < clause_size && clause[end] == ' ') ++end;
    code = speak(clause, begin, end, language, session->volume, (int64_t)begin * FIXTURE_US_PER_BYTE, sink, user,
                 status);
    if (code != LC_OK) return code;
    begin = end;
  }
  return LC_OK;
}

static void voice_session_cancel(lc_voice_session* session) { session->cancelled = 1; }
static int32_t voice_session_cancelled(const lc_voice_session* session) { return session->cancelled; }

#ifdef FIXTURE_NEWER_MINOR
/* A table of a later minor: minor 0's fields, then one appended entry. */
typedef struct fixture_table {
  lc_plugin_table minor0;
  int32_t (*appended_entry)(void);
} fixture_table;
static int32_t appended_entry(void) { return 1; }
static fixture_table table;
#define MINOR0 table.minor0
#else
static lc_plugin_table table;
#define MINOR0 table
#endif

__attribute__((visibility("default"))) const lc_plugin_table* lingcast_neural_plugin_table(void) {
  MINOR0.abi_major = FIXTURE_ABI_MAJOR;
#ifdef FIXTURE_NEWER_MINOR
  MINOR0.abi_minor = LC_PLUGIN_ABI_MINOR + 1;
  MINOR0.struct_size = sizeof(fixture_table);
  table.appended_entry = &appended_entry;
#else
  MINOR0.abi_minor = LC_PLUGIN_ABI_MINOR;
  MINOR0.struct_size = sizeof(lc_plugin_table);
#endif
#ifdef FIXTURE_TABLE_SIZE
  MINOR0.struct_size = FIXTURE_TABLE_SIZE;
#endif
  MINOR0.describe_runtime = &describe_runtime;
  MINOR0.stop_create = &stop_create;
  MINOR0.stop_request = &stop_request;
  MINOR0.stop_destroy = &stop_destroy;
  MINOR0.create_vits_voice = &create_vits_voice;
  MINOR0.voice_destroy = &voice_destroy;
  MINOR0.voice_name = &voice_name;
  MINOR0.voice_sample_rate = &voice_sample_rate;
  MINOR0.voice_synthesize = &voice_synthesize;
  MINOR0.voice_open_session = &voice_open_session;
  MINOR0.voice_session_destroy = &voice_session_destroy;
  MINOR0.voice_session_synthesize_clause = &voice_session_synthesize_clause;
  MINOR0.voice_session_stream_clause = &voice_session_stream_clause;
  MINOR0.voice_session_cancel = &voice_session_cancel;
  MINOR0.voice_session_cancelled = &voice_session_cancelled;
  return (const lc_plugin_table*)&table;
}
