// The page's elements by id: what the rules dialog's and the lab's modules share.

/** The element whose id is `id`, or null. */
export const $ = (id) => document.getElementById(id);
