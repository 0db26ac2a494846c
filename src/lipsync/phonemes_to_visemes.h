// Phoneme timeline (from the TTS) -> mouth-shape cues (A-H, X).
//
// Steps, each small enough to reason about:
//  1. every phoneme becomes one or more shape segments (phoneme_shapes.h);
//     h-like sounds take the shape of the vowel they lead into, and consonants
//     shaped by the tongue alone (t, s, k, n ...) take the rounding of an E or F
//     vowel right after them (the lips round ahead: "soon", "two", Mandarin "shu");
//  2. pauses ("_", empty events, gaps between events) shorter than `rest_gap`
//     keep the previous shape (the mouth does not snap shut mid-phrase); longer
//     ones become X (rest);
//  3. adjacent equal shapes merge;
//  4. bilabial closures (m b p) always stay A and last at least `min_closure`,
//     taking the time from their neighbours, so the lips visibly close;
//  5. any other cue shorter than `min_hold` borrows time from neighbours that
//     can spare it if it lasts at least half of `min_hold`; otherwise (or if they
//     cannot) it is merged into the neighbour whose mouth pose is closest. No
//     shape flickers for a single video frame.
//  6. a jump between far-apart mouths (D next to A, B, G or X; D next to F)
//     gets an in-between shape (C, or E towards a rounded mouth) carved from
//     the more open cue when it is long enough to give `min_hold` and keep two;
//  7. with `frame_rate` set, cue edges snap to video frames (frame_snap.h).
// Look-ahead (step 1c): lip rounding runs backwards from a rounded vowel (E, F)
// through the tongue-only consonants and h-like sounds before it; bilabial
// closures, f/v and l/th keep their own shape, so a closure is never skipped.
// All arithmetic is integer microseconds: the same input gives the same cues.
#pragma once

#include "core/media_time.h"
#include "lipsync/phoneme_shapes.h"
#include "media/phoneme_track.h"
#include "media/viseme.h"

namespace lingcast {

struct VisemeOptions {
  // Shortest cue (other than a lip closure); 2 frames at 30 fps.
  MediaTime min_hold = MediaTime::Millis(60);
  // Silence at least this long shows the rest shape X; shorter gaps hold the shape.
  MediaTime rest_gap = MediaTime::Millis(120);
  // Shortest lip closure for m, b, p (1.5 frames at 30 fps: at least one frame
  // lands on the closed lips whatever the phase of the frame clock).
  MediaTime min_closure = MediaTime::Millis(50);
  // How the track spells phonemes: IPA (espeak-ng) or ARPAbet (ASR alignment).
  PhoneAlphabet alphabet = PhoneAlphabet::kIpa;
  // Insert in-between shapes for big jumps (step 6).
  bool tween = true;
  // Frames per second of the video the cues drive; 0 leaves times unsnapped.
  double frame_rate = 0;
};

// Cues are sorted, non-overlapping and contiguous from the first articulated
// phoneme to the last (pauses between them are explicit X cues; before and after,
// the track's gaps mean X). A track with no articulated phoneme gives no cues.
VisemeTrack PhonemesToVisemes(const PhonemeTrack& track, const VisemeOptions& opts = {});

}  // namespace lingcast
