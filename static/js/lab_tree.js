// The lab's tree of the search: a W3C ARIA treeview (role tree > treeitem > group), one
// node a position, whose children are asked for when it is opened. Arrow keys move and
// open, Home and End go to the ends, Enter and a click open or close; the focus roves.
import { createBoard } from "./board.js";

/** The mark played to reach a child (the server's `{board, cell, mark}`). */
export const markOf = (child) => child.mark ?? child.board[child.cell];

let miniCount = 0;

function miniBoard(position, shape) {
  const holder = document.createElement("span");
  holder.className = "mini";
  holder.dataset.boards = String(shape?.boards ?? 1);
  holder.setAttribute("aria-hidden", "true");
  const grid = document.createElement("div");
  grid.id = `mini-${(miniCount += 1)}`; // each board's caption gets an id of its own
  holder.append(grid);
  createBoard(grid, { ...shape, label: "" }).set({ marks: position.replaceAll("/", "") });
  return holder;
}

const itemIn = (holder) => holder.firstElementChild;
const groupOf = (li) => li.nextElementSibling;
const parentItem = (li) => li.parentElement.parentElement.closest("li")?.firstElementChild;

/**
 * The treeview in `tree`, of positions of `shape` (board.js's). `load(path)` resolves
 * to the children of the node at `path` (cells from the root, as a string of indices
 * separated by commas) or null when they were refused; `name(node, chosen)` is a
 * node's words: its line, its value, and whether the search chose it.
 */
export function createTree(tree, { load, name, shape = undefined }) {
  const items = new WeakMap(); // treeitem -> {path, moves, board, value, loaded}
  let nodeCount = 0;

  // Each node is an <li> holding its treeitem and, once it has moves, their group, which
  // the treeitem owns: so a node's name and visible text are its own words only.
  function treeItem(node, { chosen = false } = {}) {
    const holder = document.createElement("li");
    holder.setAttribute("role", "none");
    const li = document.createElement("div");
    li.setAttribute("role", "treeitem");
    li.tabIndex = -1;
    li.classList.toggle("is-chosen", chosen);
    const row = document.createElement("div");
    row.className = "node";
    // The node's name is its visible words: the line, the value, and whether it is chosen.
    const words = document.createElement("span");
    words.className = "node-words";
    words.id = `node-${(nodeCount += 1)}`;
    words.textContent = name(node, chosen);
    li.setAttribute("aria-labelledby", words.id);
    row.append(miniBoard(node.board, shape), words);
    li.append(row);
    holder.append(li);
    if (node.open) {
      li.setAttribute("aria-expanded", "false");
      const group = document.createElement("ul");
      group.setAttribute("role", "group");
      group.id = `${words.id}-moves`;
      group.hidden = true;
      li.setAttribute("aria-owns", group.id);
      holder.append(group);
    }
    items.set(li, node);
    return holder;
  }

  function fillGroup(li, answer) {
    const node = items.get(li);
    groupOf(li).replaceChildren(
      ...answer.children.map((child) => {
        const moves = [...node.moves, { mark: markOf(child), cell: child.cell }];
        const path = [...node.path, child.cell];
        const item = { path, moves, board: child.board, value: child.value, open: child.open };
        return treeItem(item, { chosen: child.cell === answer.best });
      }),
    );
    node.loaded = true;
  }

  /** A leaf: nothing to open. */
  function closeForGood(li) {
    li.removeAttribute("aria-expanded");
    li.removeAttribute("aria-owns");
  }

  /** The tree from the position `board`, its children the root's `answer`, open. */
  function build(board, answer) {
    const holder = treeItem({ path: [], moves: [], board, value: answer.value, open: true });
    tree.replaceChildren(holder);
    const top = itemIn(holder);
    top.tabIndex = 0;
    if (answer.children.length) {
      fillGroup(top, answer);
      setOpen(top, true);
    } else closeForGood(top);
  }

  function setOpen(li, open) {
    li.setAttribute("aria-expanded", String(open));
    groupOf(li).hidden = !open;
  }

  async function expand(li) {
    const node = items.get(li);
    if (!node.loaded) {
      const reply = await load(node.path.join(","));
      if (!reply) return;
      if (!reply.children.length) {
        closeForGood(li);
        return;
      }
      fillGroup(li, reply);
    }
    setOpen(li, true);
  }

  const visible = () =>
    [...tree.querySelectorAll('[role="treeitem"]')].filter((li) => !li.parentElement.closest("[hidden]"));

  function focusItem(li) {
    if (!li) return;
    for (const item of tree.querySelectorAll('[role="treeitem"]')) item.tabIndex = -1;
    li.tabIndex = 0;
    li.focus();
  }

  tree.addEventListener("keydown", async (event) => {
    const li = event.target.closest('[role="treeitem"]');
    if (!li) return;
    const shown = visible();
    const at = shown.indexOf(li);
    const expanded = li.getAttribute("aria-expanded");
    const moves = {
      ArrowDown: () => focusItem(shown[at + 1]),
      ArrowUp: () => focusItem(shown[at - 1]),
      Home: () => focusItem(shown[0]),
      End: () => focusItem(shown.at(-1)),
      ArrowRight: async () => {
        if (expanded === "false") await expand(li);
        else if (expanded === "true") focusItem(groupOf(li).querySelector('[role="treeitem"]'));
      },
      ArrowLeft: () => (expanded === "true" ? setOpen(li, false) : focusItem(parentItem(li))),
      Enter: async () => (expanded === "true" ? setOpen(li, false) : expanded && expand(li)),
    };
    const act = moves[event.key];
    if (!act) return;
    event.preventDefault();
    await act();
  });

  tree.addEventListener("click", async (event) => {
    const li = event.target.closest('[role="treeitem"]');
    if (!li) return;
    focusItem(li);
    const expanded = li.getAttribute("aria-expanded");
    if (expanded === "true") setOpen(li, false);
    else if (expanded === "false") await expand(li);
  });

  return { build };
}
