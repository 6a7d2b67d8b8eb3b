// The screen-reader mode on the AI page and in practice (reader.js): its commands over the
// latest snapshot, and what just happened said as each snapshot arrives.
import { $ } from "./dom.js";
import { createReader } from "./reader.js";
import { deadNewsWords, practiceWords, valuesWords } from "./words.js";
import {
  NOTHING_NEXT,
  NO_HINT_NOW,
  NO_WHY,
  TAKEN_BACK,
  YOUR_TURN,
  aiPlayedWords,
  aiStatusWords,
  gameEndWords,
  lastMoveWords,
  newGameWords,
} from "./words_reader.js";

/**
 * The AI page's reader. `page`: state() (the latest snapshot or null), shape(), name(cell),
 * headline() (the headline's words), play(cell), hint() (the server's analysis ack),
 * takeBack(), and the buttons `next` offers (nextGame, newMatch). Returns
 * {render(before, state)}.
 */
export function createAiReader(page) {
  const reader = createReader({
    position() {
      const state = page.state();
      return state && { shape: page.shape(), marks: state.board, dead: state.dead ?? [] };
    },
    play: page.play,
    last() {
      const last = page.state()?.history.at(-1);
      return last ? lastMoveWords(last.by, page.name(last.cell)) : "";
    },
    status: () => (page.state() ? aiStatusWords(page.state(), page.headline()) : page.headline()),
    why() {
      const last = page.state()?.history.at(-1);
      return last?.by === "ai" ? $("explain").textContent : NO_WHY;
    },
    async hint() {
      const state = page.state();
      if (state?.status !== "playing" || state.turn !== "human") return NO_HINT_NOW;
      const reply = await page.hint();
      return reply.ok ? valuesWords(reply.analysis, page.name) : "";
    },
    undo: page.takeBack,
    next() {
      const offered = [$("next-game"), $("new-match")].find((button) => !button.hidden);
      if (!offered) return NOTHING_NEXT;
      offered.click();
      return "";
    },
  });

  let opening = ""; // a new game's words, kept until the AI's first move

  /** Say what changed from `before` to `state`: a new game, the AI's move, the end. */
  function render(before, state) {
    if (!reader.on() || before?.version === state.version) return;
    // A game over and playing again: a new game, unless its end was taken back (practice).
    const takenBack = before && state.history.length < before.history.length && before.match.game === state.match.game;
    const restarted = before && before.status !== "playing" && state.status === "playing" && !takenBack;
    const sameGame =
      before && !restarted && before.match.game === state.match.game && before.variant === state.variant;
    if (!sameGame) opening = newGameWords(state);
    // In practice, what the player's move does (the lesson's words), before the AI's answer.
    const moved = sameGame && state.history.slice(before.history.length).some((move) => move.by === "human");
    if (moved && state.practice?.feedback) opening = [opening, practiceWords(state.practice).feedback].filter(Boolean).join(" ");
    // A board the player's move killed is news too, kept with the rest.
    const dead = sameGame ? deadNewsWords(state.dead ?? [], before.dead ?? []) : "";
    const killed = moved && dead ? `${dead}.` : "";
    opening = [opening, killed].filter(Boolean).join(" ");
    // The AI to move: the news is said with its move.
    if (state.turn === "ai" && state.status === "playing") return;
    const said = opening ? [opening] : [];
    opening = "";
    const seen = sameGame ? before.history.length : 0;
    if (state.history.length < seen) said.push(TAKEN_BACK);
    for (const move of state.history.slice(seen)) {
      if (move.by === "ai") said.push(aiPlayedWords(page.name(move.cell)));
    }
    if (dead && !killed) said.push(`${dead}.`);
    if (state.status !== "playing" && before?.status === "playing") said.push(gameEndWords(state));
    else if (state.status === "playing" && state.turn === "human" && said.length && said.at(-1) !== TAKEN_BACK) {
      said.push(`${YOUR_TURN}.`);
    }
    if (said.length) reader.say(said.join(" "));
  }

  return { render };
}
