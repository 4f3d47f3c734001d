/**
 * The keyboard selection in the queue (j/k): it follows the card, not the position, so a card
 * entering above it does not move it; when the selected card leaves, the next one (or the last) is chosen.
 */
export function moveSelection(ids: readonly string[], selected: string | null, step: -1 | 1): string | null {
  if (ids.length === 0) return null;
  const at = selected === null ? -1 : ids.indexOf(selected);
  if (at === -1) return step === 1 ? ids[0]! : ids[ids.length - 1]!;
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))]!;
}

/** The selection after the list changed: the same card while it is there, else the one now in its place. */
export function keepSelection(
  before: readonly string[],
  after: readonly string[],
  selected: string | null,
): string | null {
  if (after.length === 0) return null;
  if (selected !== null && after.includes(selected)) return selected;
  const was = selected === null ? -1 : before.indexOf(selected);
  if (was === -1) return after[0]!;
  return after[Math.min(was, after.length - 1)]!;
}
