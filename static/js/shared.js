// A shared game's page: the replay of one finished game, read from the page itself.
import { showReplay, wireControls } from "./replay.js";

const { game, review } = JSON.parse(document.getElementById("shared-game").textContent);
wireControls();
showReplay(game, review, { focus: false });
