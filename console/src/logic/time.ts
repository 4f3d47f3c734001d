/** Durations for people: the largest two units, so a card reads "4m 05s" or "2h 03m", never "245s". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${pad(minutes)}m`;
  if (minutes > 0) return `${minutes}m ${pad(rest)}s`;
  return `${rest}s`;
}

/** How long a call has waited since it was requested. */
export const waitedFor = (requestedAt: string, now: number): string =>
  formatDuration(now - Date.parse(requestedAt));

/** When a pending call expires: "in 4m 05s", "expired" once past, "never" without a limit. */
export function expiresIn(expiresAt: string | null | undefined, now: number): string {
  if (!expiresAt) return 'never';
  const left = Date.parse(expiresAt) - now;
  return left <= 0 ? 'expired' : `in ${formatDuration(left)}`;
}

/** Milliseconds between two instants, or null while the second has not happened. */
export function elapsed(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  return Date.parse(to) - Date.parse(from);
}
