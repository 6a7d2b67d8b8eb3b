// The two seats of a room as its snapshot has them: who holds which, their marks, who is
// away. No words here (words_room.js names them) and no rules: the server's snapshot says.

/** Both seats, by number. */
export const SEATS = [0, 1];

/** The other seat. */
export const other = (seat) => 1 - seat;

/** The mark the player in `seat` plays in this game (X alternates between games). */
export const markOf = (room, seat) => (seat === room.x_seat ? "X" : "O");

/** Whether `seat` is held by someone not connected just now. */
export const away = (room, seat) => room.seats[seat].token != null && !room.seats[seat].connected;

/** Whether `seat` is free for anyone to take. */
export const free = (room, seat) => room.seats[seat].token == null;

/** The seats held by the holder of token `you`: none to watch, both on one device. */
export function seatsOf(room, you) {
  if (you == null) return [];
  return SEATS.filter((seat) => room.seats[seat].token === you);
}
