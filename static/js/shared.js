// A shared game's page: the replay of one finished game, read from the page itself.
import { $ } from "./dom.js";
import { showReplay, wireControls } from "./replay.js";

const data = JSON.parse($("shared-game").textContent);
wireControls();
showReplay(data.game, data.review, {
  focus: false,
  signed: data.signed_record,
  shared: { mine: data.mine },
});
