// The page's elements, by id: every module finds them the same way.

/** The element of the page whose id is `id`, or null. */
export const $ = (id) => document.getElementById(id);
