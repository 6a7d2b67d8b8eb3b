// Keeping the keyboard's place when a control goes off under it.

/**
 * Disable or enable `button`. A focused button that goes off hands the focus to `next`
 * (a control that stays on), so that the keyboard never finds itself back at the
 * page's top.
 */
export function setDisabled(button, off, next) {
  const focused = document.activeElement === button;
  button.disabled = off;
  if (off && focused) next.focus();
}
