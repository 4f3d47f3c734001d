import { useEffect } from 'react';
import { formatDuration } from '../logic/time';
import { useNow } from '../use-now';

/** setTimeout holds at most 2^31 - 1 ms; a later end is waited for in steps. */
const LONGEST_WAIT = 2 ** 31 - 1;

/** "14:05" in the person's time zone, the same whatever the browser's language. */
export function clockTime(at: number): string {
  const date = new Date(at);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

export const sessionEndedMessage = (expiresAt: number) =>
  `Your sign-in ended at ${clockTime(expiresAt)}, as your company's IdP set it. Sign in again to go on.`;

/** Ends the session when the IdP's token does: the server would refuse it from then on anyway. */
export function useSessionEnd(expiresAt: number | null, onEnd: (reason: string) => void) {
  useEffect(() => {
    if (expiresAt === null) return;
    let timer: ReturnType<typeof setTimeout>;
    const wait = () => {
      const left = expiresAt - Date.now();
      if (left <= 0) {
        onEnd(
          `Your sign-in ended at ${clockTime(expiresAt)}, as your company's IdP set it. Sign in again to go on.`,
        );
        return;
      }
      timer = setTimeout(wait, Math.min(left, LONGEST_WAIT));
    };
    wait();
    return () => clearTimeout(timer);
  }, [expiresAt, onEnd]);
}

/** "session until 14:05 (58m 12s left)" in the header, so nobody is surprised mid-decision. */
export function SessionEnd({ expiresAt }: { expiresAt: number }) {
  const now = useNow();
  const left = expiresAt - now;
  return (
    <span
      className={`session-end${left < 5 * 60_000 ? ' soon' : ''}`}
      data-testid="session-end"
      data-expires-at={new Date(expiresAt).toISOString()}
      title="When it ends, the console goes back to sign-in; a decision not yet sent is not sent."
    >
      session until {clockTime(expiresAt)} ({formatDuration(left)} left)
    </span>
  );
}
