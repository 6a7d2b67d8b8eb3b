// The AI page's switches and buttons around the board: keys 1-9, Sound, Hint, and the
// buttons a game's end brings (Next game, New match) or a fixed mode allows (Take back).
import { $ } from "./dom.js";
import { newMatchWords, nextGameWords } from "./words.js";

// An on/off toggle button: pressed when on.
const pressed = (button) => button.getAttribute("aria-pressed") === "true";

/**
 * The controls over the server-rendered page; `grid` is the board's handle. `actions`:
 * nextGame(), takeBack(), newMatch(), toggleHints(on), numberKeysChanged(on),
 * toggleSound(on), and hintsOff() to clear the hints shown. The handle: render(state),
 * showNumberKeys(on), showSound(on), showHintsOn(on), showNextMatch(text).
 */
export function createControls(grid, actions) {
  const numberKeys = $("number-keys");
  numberKeys.addEventListener("change", () => {
    showNumberKeys(numberKeys.checked);
    actions.numberKeysChanged(numberKeys.checked);
  });

  /** Whether keys 1-9 play cells: the switch, and the board's description of its keys. */
  function showNumberKeys(on) {
    numberKeys.checked = on;
    grid.setNumberKeys(on);
  }

  const sound = $("sound");
  sound.addEventListener("click", () => {
    const on = !pressed(sound);
    showSound(on);
    actions.toggleSound(on);
  });

  /** Whether sounds play: the Sound toggle, pressed when on. */
  function showSound(on) {
    sound.setAttribute("aria-pressed", String(on));
    sound.dataset.sound = on ? "on" : "off";
  }

  $("next-game").addEventListener("click", () => actions.nextGame());
  $("take-back").addEventListener("click", () => actions.takeBack());
  $("new-match").addEventListener("click", () => actions.newMatch());

  // Enter on a finished board does what the button under it offers (Next game, or New
  // match once the match is over), instead of trying a move on a board that takes none.
  $("board").addEventListener("keydown", (event) => {
    const next = [$("next-game"), $("new-match")].find((button) => !button.hidden);
    if (event.key !== "Enter" || !next || event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    next.click();
  });

  const hint = $("hint");
  hint.addEventListener("click", () => {
    const on = !pressed(hint);
    showHintsOn(on);
    if (!on) actions.hintsOff();
    actions.toggleHints(on);
  });

  /** Whether hints are on: the Hint toggle, pressed when on. */
  function showHintsOn(on) {
    hint.setAttribute("aria-pressed", String(on));
  }

  /** What "New match" would start, in a few words (the rules dialog's summary). */
  function showNextMatch(text) {
    $("new-match-uses").textContent = newMatchWords(text);
  }

  function render(state) {
    const over = state.status !== "playing";
    const buttons = [$("next-game"), $("new-match"), hint, $("take-back")];
    // Take-back in the fixed modes (and practice) once you have moved; an HP match says
    // why it has none. Practice takes back even a move that lost at once.
    const moved = state.history.some((move) => move.by === "human");
    const adaptive = state.mode === "adaptive";
    const practice = Boolean(state.practice);
    const open = state.turn === "human" || (practice && over);
    $("take-back").hidden = adaptive || !moved || !open;
    $("take-back-note").hidden = !adaptive || !moved || over;
    const held = buttons.find((button) => button.contains(document.activeElement));
    buttons[0].hidden = !over || state.match.over;
    buttons[0].textContent = nextGameWords(practice); // practice: the same position again
    buttons[1].hidden = !state.match.over;
    $("new-match-uses").hidden = !state.match.over;
    // Nothing to hint once the game is over.
    hint.hidden = over;
    // A button that vanishes under the focus hands it back to the board.
    if (held?.hidden) grid.focus();
  }

  return { render, showNumberKeys, showSound, showHintsOn, showNextMatch };
}
