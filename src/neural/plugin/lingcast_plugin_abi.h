/* The neural plug-in's C ABI: the only thing `lingcast` and
 * liblingcast_neural_plugin.so share.
 *
 * lingcast does not link libtorch (marian_plugin.cc says why); it opens the
 * plug-in with dlopen when a neural engine is asked for. Everything that crosses
 * between the two is declared here, in C99: integers, floats, doubles, byte
 * strings (UTF-8, pointer + size), POD structs, opaque handles and function
 * pointers with a `void* user`. No C++ object, exception, allocator or standard
 * library type crosses, so a plug-in built by another compiler, standard
 * library, absl or libtorch loads into the same binary: the two sides must agree
 * on LC_PLUGIN_ABI_MAJOR and nothing else.
 *
 * Versioning:
 *   - The plug-in exports one symbol, LC_PLUGIN_ENTRY_SYMBOL, returning its
 *     table. The table's first three fields (abi_major, abi_minor, struct_size)
 *     keep their place in every version: they are how two versions recognize
 *     each other.
 *   - The host takes a table of its own major only, whose struct_size covers at
 *     least the fields of minor 0 (LC_PLUGIN_TABLE_V2_0_SIZE). Anything else is
 *     refused with one line before any entry is called.
 *   - A newer minor may only append: fields at the end of the table and of
 *     every struct below that carries a struct_size, and new constants. A host
 *     reads an appended table field only when struct_size shows the plug-in has
 *     it; a plug-in reads an appended request field only when the request's
 *     struct_size shows the host filled it. Anything else (a field moved,
 *     removed or retyped, a signature changed) is a new major.
 *
 * Conventions:
 *   - Errors: a call that can fail returns an lc_status_code (LC_OK or one of
 *     absl's canonical codes, same numbers) and fills the caller's lc_status with
 *     the code and a one-line message, which the caller copies. A create call
 *     returns NULL on failure. A plug-in lets no exception out of a call.
 *   - Results are handed to a sink callback during the call; every pointer a
 *     sink receives is valid only until the sink returns (copy what you keep).
 *     A plug-in never hands the host memory to free.
 *   - Times are microseconds (int64_t); audio is float samples, interleaved.
 *   - A handle made by a create or open call is released by its destroy call;
 *     a session must be destroyed before the engine that opened it; nothing
 *     made by a plug-in may outlive the plug-in staying loaded.
 *   - Threads: a translator and a recognizer may be used from several threads at
 *     once (a recognizer's new_session included); a session, and a voice's
 *     synthesize, one thread at a time, except voice_session_cancel (any thread)
 *     and stop_request (any thread).
 */
#ifndef LINGCAST_NEURAL_PLUGIN_LINGCAST_PLUGIN_ABI_H_
#define LINGCAST_NEURAL_PLUGIN_LINGCAST_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Minor 2: how a recognizer's concurrent sessions shared its decoder passes
 * (Whisper's step batcher, neural/whisper/whisper_step_batcher.h), counted
 * since it was created. */
typedef struct lc_step_batching {
  uint32_t struct_size; /* the host's sizeof; the plug-in fills what both know */
  uint32_t reserved;
  int64_t steps;        /* decoder steps run, alone or joined */
  int64_t passes;       /* passes over the decoder's weights (a step alone is one) */
  int64_t joined_steps; /* steps that shared their pass with another session's */
  int64_t largest_pass; /* most steps in one pass */
} lc_step_batching;

/* Major 1 was the C++ table of lingcast before this header (std::string, absl
 * and lingcast types across the boundary); its plug-ins are refused. */
#define LC_PLUGIN_ABI_MAJOR 2
/* Minor 1 appended lc_whisper_options.min_partial_interval_gpu_us and
 * lc_vits_options.capture_as_needed. Minor 2 appended the table's
 * recognizer_step_batching and lc_step_batching. Minor 3 appended the table's
 * recognizer_session_score_openings and lc_whisper_options.max_compute_share. */
#define LC_PLUGIN_ABI_MINOR 3
#define LC_PLUGIN_ENTRY_SYMBOL "lingcast_neural_plugin_table"

/* absl::StatusCode's numbers. */
typedef int32_t lc_status_code;
#define LC_OK 0
#define LC_CANCELLED 1
#define LC_UNKNOWN 2
#define LC_INVALID_ARGUMENT 3
#define LC_DEADLINE_EXCEEDED 4
#define LC_NOT_FOUND 5
#define LC_RESOURCE_EXHAUSTED 8
#define LC_FAILED_PRECONDITION 9
#define LC_OUT_OF_RANGE 11
#define LC_UNIMPLEMENTED 12
#define LC_INTERNAL 13
#define LC_UNAVAILABLE 14

/* Caller-owned; the plug-in writes a NUL-terminated message, cut to fit. */
#define LC_STATUS_MESSAGE_CAPACITY 1024
typedef struct lc_status {
  lc_status_code code;
  char message[LC_STATUS_MESSAGE_CAPACITY];
} lc_status;

/* Languages (lingcast's Language). */
typedef int32_t lc_language;
#define LC_LANGUAGE_ZH 0
#define LC_LANGUAGE_EN 1

/* Log levels (lingcast's LogLevel). */
#define LC_LOG_DEBUG 0
#define LC_LOG_INFO 1
#define LC_LOG_WARNING 2
#define LC_LOG_ERROR 3
#define LC_LOG_OFF 4

typedef struct lc_log_field {
  const char* key;
  const char* value;
} lc_log_field;

/* A structured log record for the host's logger (strings NUL-terminated). */
typedef void (*lc_log_fn)(void* user, int32_t level, const char* component, const char* message,
                          const lc_log_field* fields, size_t field_count);

/* Text handed over during a call (a translation so far, a final translation). */
typedef void (*lc_text_sink)(void* user, const char* text, size_t size);

/* Where an engine was placed ("cuda:0 float16"): the caller's buffer, filled
 * NUL-terminated when the engine is created. */
#define LC_PLACED_ON_CAPACITY 128

/* ---- cancellation ---------------------------------------------------------- */

typedef struct lc_stop lc_stop; /* a stop flag a call may be given */

/* ---- runtime (lingcast doctor) --------------------------------------------- */

#define LC_RUNTIME_SUMMARY_CAPACITY 1024
typedef struct lc_runtime_report {
  uint32_t struct_size;
  char summary[LC_RUNTIME_SUMMARY_CAPACITY]; /* one line: libtorch, GPUs, threads, BLAS */
  int32_t reference_blas;                    /* 1: the CPU multiplies through netlib's reference BLAS */
  int32_t gpus;                              /* CUDA devices libtorch sees */
} lc_runtime_report;

/* ---- translator (Marian) --------------------------------------------------- */

typedef struct lc_translator lc_translator;

typedef struct lc_marian_options {
  uint32_t struct_size;
  const char* model_dir;
  lc_language from;
  lc_language to;
  const char* quantize; /* --quantize: "none" or "int8" */
  const char* device;   /* --device: "auto", "cpu", "cuda", "cuda:N" */
  const char* dtype;    /* --dtype: "auto", "float32", "float16", "bfloat16" */
  char* placed_on;      /* may be NULL; LC_PLACED_ON_CAPACITY bytes */
} lc_marian_options;

typedef struct lc_translation_request {
  uint32_t struct_size;
  const char* source;
  size_t source_size;
  lc_language from;
  lc_language to;
  lc_stop* stop;               /* may be NULL */
  lc_text_sink on_partial;     /* may be NULL: the translation so far, the whole text */
  void* partial_user;
} lc_translation_request;

typedef struct lc_translation {
  uint32_t struct_size;
  const char* text;
  size_t text_size;
  double confidence; /* the engine's own estimate, 0-1 */
} lc_translation;

typedef void (*lc_translation_sink)(void* user, const lc_translation* translation);
/* One line of a batch: `index` into the batch's sources. */
typedef void (*lc_batch_sink)(void* user, size_t index, const char* text, size_t size);

/* ---- recognizer (Whisper) -------------------------------------------------- */

typedef struct lc_recognizer lc_recognizer;
typedef struct lc_recognizer_session lc_recognizer_session;

typedef struct lc_whisper_options {
  uint32_t struct_size;
  const char* model_dir;
  const char* language; /* "zh", "en", ...; "" or NULL: detected per utterance */
  int32_t translate;    /* 1: English text whatever the language spoken */
  int32_t also_translate;
  int32_t agreement; /* streaming: LocalAgreement-n */
  int64_t min_partial_interval_us;
  int64_t trim_after_us;
  const char* quantize;
  int32_t int8_on_cpu;
  const char* device;
  const char* dtype;
  char* placed_on; /* may be NULL; LC_PLACED_ON_CAPACITY bytes */
  /* May be NULL. Records at `log_level` and above go to `log` (with log_user,
   * which must outlive the recognizer). */
  lc_log_fn log;
  void* log_user;
  int32_t log_level;
  /* Minor 1: the interval used instead of min_partial_interval_us when the
   * model lands on a GPU, where a partial decode costs tens of milliseconds and
   * more partials find a script line sooner. <= 0: min_partial_interval_us. */
  int64_t min_partial_interval_gpu_us;
  /* Minor 3: a partial decode that took d of wall time waits for at least
   * d / max_compute_share of new audio before the next (the session's own
   * brake on a slow machine). 0 (and a host of minor 2 or older): Whisper's
   * default, 0.4; negative: no such wait, partials at min_partial_interval
   * whatever they cost (a test's cadence, the same on any machine). */
  double max_compute_share;
} lc_whisper_options;

/* What a host of minor 0 fills of lc_whisper_options. */
#define LC_WHISPER_OPTIONS_V2_0_SIZE ((uint32_t)(offsetof(lc_whisper_options, log_level) + sizeof(int32_t)))

typedef struct lc_word {
  const char* text;
  size_t text_size;
  int64_t start_us;
  int64_t end_us;
  double confidence;
} lc_word;

typedef struct lc_hypothesis {
  uint32_t struct_size;
  int32_t is_final;
  const char* text;
  size_t text_size;
  int64_t start_us;
  int64_t end_us;
  const lc_word* words;
  size_t word_count;
  lc_language language;
  size_t stable_prefix_chars;
  const char* translation;
  size_t translation_size;
} lc_hypothesis;

typedef void (*lc_hypothesis_sink)(void* user, const lc_hypothesis* hypothesis);

/* ---- voices (VITS/Piper, FastSpeech2) -------------------------------------- */

typedef struct lc_voice lc_voice;
typedef struct lc_voice_session lc_voice_session;

typedef struct lc_ipa_word {
  const char* ipa;
  size_t ipa_size;
  int32_t text_offset; /* the bytes of the input it says */
  int32_t text_length;
} lc_ipa_word;

typedef struct lc_ipa_clause {
  const lc_ipa_word* words;
  size_t word_count;
  char terminator; /* the punctuation that ended it, 0 for none */
} lc_ipa_clause;

typedef void (*lc_ipa_sink)(void* user, const lc_ipa_clause* clause);
/* The host's phonemizer (espeak-ng's IPA, clause by clause, for a Piper voice):
 * calls `sink` once per clause, returns LC_OK or fills `status`. */
typedef lc_status_code (*lc_phonemize_fn)(void* user, const char* text, size_t size, const char* voice,
                                          lc_ipa_sink sink, void* sink_user, lc_status* status);

typedef struct lc_vits_options {
  uint32_t struct_size;
  const char* model_dir;
  uint64_t seed;
  const char* device;
  const char* dtype;
  char* placed_on; /* may be NULL; LC_PLACED_ON_CAPACITY bytes */
  /* A Piper voice's phonemizer; NULL: the plug-in's own espeak-ng (which must
   * not run beside the host's: both would drive the one libespeak-ng of the
   * process). phonemize_user must outlive the voice. */
  lc_phonemize_fn phonemize;
  void* phonemize_user;
  /* Minor 1: on a GPU, 1 captures a CUDA graph for each line length when it is
   * first met instead of for every length at load (seconds of start-up that a
   * render, which has no first line to hurry, need not spend); 0 (and a host of
   * minor 0): every length at load, so a live show's first line replays one. */
  int32_t capture_as_needed;
} lc_vits_options;

/* What a host of minor 0 fills of lc_vits_options. */
#define LC_VITS_OPTIONS_V2_0_SIZE ((uint32_t)(offsetof(lc_vits_options, phonemize_user) + sizeof(void*)))

typedef struct lc_fastspeech2_options {
  uint32_t struct_size;
  const char* model_dir;
  uint64_t seed;
  /* The Mandarin lexicon (zh_lexicon.tsv); NULL: the default one the plug-in
   * finds as lingcast does (LINGCAST_DATA_DIR, beside the binary). */
  const char* lexicon_path;
} lc_fastspeech2_options;

typedef struct lc_voice_settings {
  uint32_t struct_size;
  lc_language language;
  const char* voice; /* NULL or "": the engine's default for `language` */
  double rate;
  double pitch;
  double volume;
} lc_voice_settings;

typedef struct lc_phoneme {
  const char* phoneme; /* IPA, "_" for a pause */
  size_t phoneme_size;
  int64_t start_us;
  int64_t duration_us;
} lc_phoneme;

typedef struct lc_word_boundary {
  int64_t start_us;
  int32_t text_offset; /* bytes into the synthesized text */
  int32_t text_length;
} lc_word_boundary;

/* Speech with its phoneme track (lingcast's SynthesisResult). */
typedef struct lc_synthesis {
  uint32_t struct_size;
  const float* samples;
  size_t sample_count;
  int32_t sample_rate;
  int32_t channels;
  lc_language track_language;
  const lc_phoneme* phonemes;
  size_t phoneme_count;
  const lc_word_boundary* words;
  size_t word_count;
} lc_synthesis;

/* Takes a synthesis (or a part of a streamed clause). Anything but LC_OK stops
 * the synthesis; the call then returns that code and `status`'s message. */
typedef lc_status_code (*lc_synthesis_sink)(void* user, const lc_synthesis* part, lc_status* status);

/* ---- the table ------------------------------------------------------------- */

typedef struct lc_plugin_table {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size; /* sizeof(lc_plugin_table) of the plug-in's build */
  uint32_t reserved;

  /* Every entry below is non-NULL in minor 0, except those of an engine the
   * plug-in was built without: its create_* entry NULL tells the host, which
   * then says so and calls none of that engine's entries. */

  void (*describe_runtime)(lc_runtime_report* report);

  lc_stop* (*stop_create)(void);
  void (*stop_request)(lc_stop* stop);
  void (*stop_destroy)(lc_stop* stop);

  lc_translator* (*create_marian_translator)(const lc_marian_options* options, lc_status* status);
  void (*translator_destroy)(lc_translator* translator);
  const char* (*translator_name)(const lc_translator* translator); /* lives as long as the translator */
  /* Calls `sink` once with the translation, or fails (LC_NOT_FOUND: another
   * direction than the model's; LC_CANCELLED: stopped). */
  lc_status_code (*translator_translate)(lc_translator* translator, const lc_translation_request* request,
                                         lc_translation_sink sink, void* user, lc_status* status);
  /* Several lines padded into one batch (faster than one by one): `sink` once
   * per line, in order. */
  lc_status_code (*translator_translate_batch)(lc_translator* translator, const char* const* sources,
                                               const size_t* source_sizes, size_t count, lc_stop* stop,
                                               lc_batch_sink sink, void* user, lc_status* status);

  lc_recognizer* (*create_whisper_recognizer)(const lc_whisper_options* options, lc_status* status);
  void (*recognizer_destroy)(lc_recognizer* recognizer);
  const char* (*recognizer_name)(const lc_recognizer* recognizer);
  lc_language (*recognizer_language)(const lc_recognizer* recognizer);
  lc_recognizer_session* (*recognizer_new_session)(lc_recognizer* recognizer, lc_status* status);
  void (*recognizer_session_destroy)(lc_recognizer_session* session);
  lc_status_code (*recognizer_session_accept_audio)(lc_recognizer_session* session, const float* samples,
                                                    size_t sample_count, int32_t sample_rate, int32_t channels,
                                                    int64_t pts_us, lc_status* status);
  /* `sink` is called once when there is a partial, not at all when there is none. */
  lc_status_code (*recognizer_session_partial)(lc_recognizer_session* session, lc_hypothesis_sink sink,
                                               void* user, lc_status* status);
  lc_status_code (*recognizer_session_finish)(lc_recognizer_session* session, lc_hypothesis_sink sink,
                                              void* user, lc_status* status);
  int64_t (*recognizer_session_position_us)(const lc_recognizer_session* session);

  lc_voice* (*create_vits_voice)(const lc_vits_options* options, lc_status* status);
  lc_voice* (*create_fastspeech2_voice)(const lc_fastspeech2_options* options, lc_status* status);
  void (*voice_destroy)(lc_voice* voice);
  const char* (*voice_name)(const lc_voice* voice);
  int32_t (*voice_sample_rate)(const lc_voice* voice);
  /* The whole text at once: `sink` once. */
  lc_status_code (*voice_synthesize)(lc_voice* voice, const lc_voice_settings* settings, const char* text,
                                     size_t text_size, lc_synthesis_sink sink, void* user, lc_status* status);
  lc_voice_session* (*voice_open_session)(lc_voice* voice, const lc_voice_settings* settings, lc_status* status);
  void (*voice_session_destroy)(lc_voice_session* session);
  /* One clause: `sink` once with all of it. */
  lc_status_code (*voice_session_synthesize_clause)(lc_voice_session* session, const char* clause,
                                                    size_t clause_size, lc_language language,
                                                    lc_synthesis_sink sink, void* user, lc_status* status);
  /* One clause in parts as they are decoded: `sink` per part, each timed from
   * the clause's start. */
  lc_status_code (*voice_session_stream_clause)(lc_voice_session* session, const char* clause,
                                                size_t clause_size, lc_language language, lc_synthesis_sink sink,
                                                void* user, lc_status* status);
  void (*voice_session_cancel)(lc_voice_session* session);
  int32_t (*voice_session_cancelled)(const lc_voice_session* session);

  /* Minor 2. Fills `out` and returns 1; 0 (and `out` untouched) for a
   * recognizer that does not batch its sessions' steps. */
  int32_t (*recognizer_step_batching)(const lc_recognizer* recognizer, lc_step_batching* out);

  /* Minor 3. How likely the open utterance so far begins with each of the
   * `count` texts (UTF-8, pointer + size each), by the recognizer's decoder
   * as of its last partial decode: writes `count` mean log-probabilities per
   * token to `scores` (lingcast's AsrSession::ScoreOpenings). LC_FAILED_PRECONDITION
   * when no partial decoded the utterance's opening. */
  lc_status_code (*recognizer_session_score_openings)(lc_recognizer_session* session, const char* const* texts,
                                                      const size_t* sizes, size_t count, double* scores,
                                                      lc_status* status);
} lc_plugin_table;

/* What a table of minor 0 holds at least: up to its last entry (a later
 * minor's table is longer). */
#define LC_PLUGIN_TABLE_V2_0_SIZE \
  ((uint32_t)(offsetof(lc_plugin_table, voice_session_cancelled) + sizeof(void (*)(void))))

/* The plug-in's only exported symbol: its table, valid while it stays loaded. */
typedef const lc_plugin_table* (*lc_plugin_table_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* LINGCAST_NEURAL_PLUGIN_LINGCAST_PLUGIN_ABI_H_ */
