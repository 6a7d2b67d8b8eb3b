// What the browser remembers for the player: their on/off choices (sound, hints, keys
// 1-9, the screen-reader mode, whose module comes only once the mode is on) and their
// client seed for the dice (docs/fairness.md). Storage refused (a private window) only
// means a choice is kept for this page.
import { $ } from "./dom.js";
import { CLIENT_SEED } from "./protocol.js";

const SEED_KEY = "tictactoe-client-seed";
const SEED_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SEED_LENGTH = 16;

/** Where each on/off choice is kept: "on" or "off", once the player chose. */
export const CHOICES = Object.freeze({
  sound: "tictactoe-sound",
  numberKeys: "tictactoe-number-keys",
  hints: "tictactoe-hints",
  reader: "tictactoe-reader",
});

/** What the browser keeps under `key`, or null (storage refused in a private window). */
export function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `value` under `key` if the browser lets us; it is kept for this page anyway. */
function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Kept for this page only.
  }
  return value;
}

/** A remembered on/off choice, or `fallback` while the player has not made one. */
export function choice(key, fallback) {
  const value = stored(key);
  return value === "on" ? true : value === "off" ? false : fallback;
}

/** Remember an on/off choice; answers "on" or "off". */
export const remember = (key, on) => store(key, on ? "on" : "off");

/** A fresh random client seed: 16 characters from a-z and 0-9, without bias. */
export function randomSeed() {
  const chars = [];
  const limit = 256 - (256 % SEED_ALPHABET.length);
  while (chars.length < SEED_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(SEED_LENGTH))) {
      if (byte >= limit || chars.length === SEED_LENGTH) continue;
      chars.push(SEED_ALPHABET[byte % SEED_ALPHABET.length]);
    }
  }
  return chars.join("");
}

/** The browser's client seed, made and kept the first time. */
export function loadSeed() {
  const seed = stored(SEED_KEY);
  if (seed && CLIENT_SEED.test(seed)) return seed;
  return saveSeed(randomSeed());
}

/** Keep `seed` as the browser's client seed; answers it. */
export const saveSeed = (seed) => store(SEED_KEY, seed);

/**
 * The page's reader, loaded by `load()` (a promise of its handle, {render(...)} and
 * maybe prime(...)) when the mode is on. Returns {render(...)}, handed on to the handle
 * once it is loaded. A page opened with the mode on hands on every call, however late
 * the module comes, so what the page first shows is said; a mode turned on later hands
 * the latest call to the handle's `prime`, as where the page stood (nothing is said of it).
 */
export function lazyReader(load) {
  const toggle = $("reader-on");
  let handle = null;
  let latest = null;
  const start = (primed) =>
    (handle ??= load().then((reader) => {
      if (primed && latest) reader.prime?.(...latest);
      return reader;
    }));
  if (choice(CHOICES.reader, false)) start(false);
  toggle.addEventListener("change", () => toggle.checked && start(true));
  return {
    render(...args) {
      latest = args;
      handle?.then((reader) => reader.render(...args));
    },
  };
}
