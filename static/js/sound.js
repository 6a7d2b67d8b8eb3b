// Short sounds for what the board shows: synthesised with Web Audio, no files.
// They follow the server's snapshots (a new mark, a result), never the game's rules.

const VOLUME = 0.12;
const GAP_S = 0.14; // between cues heard together (a move that ends the game)

// Each cue is a few notes: [frequency in Hz, start in s, length in s, waveform].
const CUES = {
  move: [[660, 0, 0.08, "triangle"]],
  ai: [[440, 0, 0.08, "sine"]],
  win: [
    [523, 0, 0.1, "triangle"],
    [659, 0.1, 0.1, "triangle"],
    [784, 0.2, 0.22, "triangle"],
  ],
  loss: [
    [392, 0, 0.12, "sine"],
    [311, 0.12, 0.12, "sine"],
    [247, 0.24, 0.26, "sine"],
  ],
  draw: [
    [494, 0, 0.1, "sine"],
    [494, 0.16, 0.14, "sine"],
  ],
};

const RESULT_CUES = { human_won: "win", ai_won: "loss", draw: "draw" };

const count = (board, mark) => [...board].filter((m) => m === mark).length;

/**
 * The cues heard going from snapshot `before` to `after`, in order: "move" for a new
 * mark of yours, "ai" for one of the AI's, then "win", "loss" or "draw" when the game
 * ends. Nothing for a first snapshot, an older one, or another game's.
 */
export function cuesBetween(before, after) {
  if (!before || !after || after.version <= before.version) return [];
  const sameGame =
    before.match.game === after.match.game &&
    [...before.board].every((mark, i) => mark === "." || mark === after.board[i]);
  if (!sameGame) return [];
  const ai = after.human === "X" ? "O" : "X";
  const cues = [];
  if (count(after.board, after.human) > count(before.board, after.human)) cues.push("move");
  if (count(after.board, ai) > count(before.board, ai)) cues.push("ai");
  if (before.status === "playing" && RESULT_CUES[after.status]) {
    cues.push(RESULT_CUES[after.status]);
  }
  return cues;
}

/**
 * The player of cues. Its AudioContext is made by unlock(), which the page calls on a
 * user gesture, and only while sound is on; nothing plays while the page is hidden.
 */
export function createSounds() {
  let context = null;
  let on = false;

  function unlock() {
    const Context = window.AudioContext ?? window.webkitAudioContext;
    if (!on || !Context) return;
    context ??= new Context();
    if (context.state === "suspended") context.resume().catch(() => {});
  }

  function note(start, [frequency, offset, length, type]) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    const t = start + offset;
    osc.type = type;
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(VOLUME, t + 0.012);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(context.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }

  function play(cues) {
    if (!on || !context || context.state !== "running" || document.hidden) return;
    let start = context.currentTime + 0.01;
    for (const name of cues) {
      const notes = CUES[name] ?? [];
      for (const n of notes) note(start, n);
      start += Math.max(...notes.map(([, offset, length]) => offset + length)) + GAP_S;
    }
  }

  return {
    setOn(value) {
      on = value;
      if (!on && context?.state === "running") context.suspend().catch(() => {});
    },
    unlock,
    play,
  };
}
