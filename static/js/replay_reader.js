// The screen-reader mode in a finished game's replay (reader.js), on the History page and
// a shared game's page: the position at the step shown, its move and the review's verdict,
// and commands that step through the game; each step is said as it is shown.
import { createReader } from "./reader.js";
import { NOTHING_YET } from "./words_reader.js";
import {
  AT_END,
  AT_FIRST,
  NO_VERDICT,
  REPLAY_DOES,
  replayCellWords,
  replayLastWords,
  replayStatusWords,
  replayStepWords,
} from "./words_history.js";

/**
 * `replay`: shown() -> the step shown ({shape, marks, dead, ply, count, result, variant,
 * move: its words or "", line: the step as shown, verdict: the review's words or ""}) or
 * null; go(ply) shows another step. Returns {stepped()}, called after each
 * step the player takes, to say it.
 */
export function createReplayReader(replay) {
  // Step to `ply` if the replay can go there; else the words saying why not.
  function step(to, refused) {
    const now = replay.shown();
    if (!now) return NOTHING_YET;
    const ply = to(now);
    if (ply < 0 || ply > now.count || ply === now.ply) return refused(now);
    replay.go(ply);
    return "";
  }
  const reader = createReader({
    position: () => replay.shown(),
    readOnly: replayCellWords,
    last: () => (replay.shown()?.move ? replayLastWords(replay.shown().move) : ""),
    status: () => (replay.shown() ? replayStatusWords(replay.shown()) : NOTHING_YET),
    why: () => replay.shown()?.verdict || NO_VERDICT,
    next: () => step((now) => now.ply + 1, () => AT_END),
    back: () => step((now) => now.ply - 1, () => AT_FIRST),
    first: () => step(() => 0, () => AT_FIRST),
    end: () => step((now) => now.count, () => AT_END),
    does: REPLAY_DOES,
  });

  /** Say the step shown: its move and the review's verdict. */
  function stepped() {
    const now = replay.shown();
    if (now) reader.say(replayStepWords(now.line, now.verdict));
  }

  return { stepped };
}
