/**
 * SillyTavern stores dates in several shapes over its history. None of the human-readable ones carry
 * a time zone, so they are read as UTC: the ISO result is the wall-clock time the user saw, tagged
 * `Z`, not the true instant. That keeps one chat's dates mutually ordered, which is what search and
 * paging need, without guessing the user's zone.
 *
 * Accepted:
 * - epoch milliseconds, as a number or a digit-only string (legacy TavernAI `send_date`/`create_date`);
 * - ISO 8601 (`2024-08-07T12:30:37.813Z`; without an offset it is taken as UTC);
 * - ST message stamps `August 7, 2024 8:30pm` (also `Aug 7, 2024 8:30 PM`, 24-hour without am/pm);
 * - ST file stamps `2024-08-07@18h45m42s` and `2023-5-12 @21h 32m 29s 224ms`.
 */

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const HUMAN_PATTERN =
  /^([A-Za-z]+)\.? (\d{1,2}),? (\d{4}),? (\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])\.?m\.?$/i;
const HUMAN_24H_PATTERN = /^([A-Za-z]+)\.? (\d{1,2}),? (\d{4}),? (\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const FILE_STAMP_PATTERN =
  /^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?$/;

/** Largest epoch value `Date` accepts (±100,000,000 days). */
const MAX_EPOCH_MS = 8.64e15;

function fromEpochMs(ms: number): string | null {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_EPOCH_MS) return null;
  return new Date(ms).toISOString();
}

/** A calendar date and wall-clock time, month 1–12; the time of day is midnight unless given. */
interface DateParts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  ms?: number;
}

/** Builds a UTC instant and rejects components that `Date.UTC` would silently roll over (Feb 30). */
function fromParts({ year, month, day, hour = 0, minute = 0, second = 0, ms = 0 }: DateParts): string | null {
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return null;
  }
  return date.toISOString();
}

function monthNumber(name: string): number | null {
  const lower = name.toLowerCase();
  if (lower.length < 3) return null;
  const index = MONTHS.findIndex((month) => month.startsWith(lower));
  return index < 0 ? null : index + 1;
}

function parseIso(match: RegExpExecArray): string | null {
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const date = { year: Number(year), month: Number(month), day: Number(day) };
  if (hour === undefined) return fromParts(date);
  const base = fromParts({
    ...date,
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    ms: Number((fraction ?? '0').slice(0, 3).padEnd(3, '0')),
  });
  if (base === null || zone === undefined || zone === 'Z') return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  return fromEpochMs(Date.parse(base) - offsetMinutes * 60_000);
}

function parseHuman(match: RegExpExecArray, meridiem: string | undefined): string | null {
  const [, monthName, day, year, hour, minute, second] = match;
  const month = monthNumber(monthName ?? '');
  if (month === null) return null;
  let h = Number(hour);
  if (meridiem !== undefined) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (meridiem.toLowerCase() === 'p' ? 12 : 0);
  }
  return fromParts({
    year: Number(year),
    month,
    day: Number(day),
    hour: h,
    minute: Number(minute),
    second: Number(second ?? 0),
  });
}

/** Returns the ISO-8601 UTC form of a SillyTavern date value, or null when it is not a date we know. */
export function parseStDate(value: unknown): string | null {
  if (typeof value === 'number') return fromEpochMs(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d{10,16}$/.test(text)) return fromEpochMs(Number(text));

  const iso = ISO_PATTERN.exec(text);
  if (iso) return parseIso(iso);

  const human = HUMAN_PATTERN.exec(text);
  if (human) return parseHuman(human, human[7]);
  const human24 = HUMAN_24H_PATTERN.exec(text);
  if (human24) return parseHuman(human24, undefined);

  const stamp = FILE_STAMP_PATTERN.exec(text);
  if (stamp) {
    const [, year, month, day, hour, minute, second, ms] = stamp;
    return fromParts({
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: Number(hour),
      minute: Number(minute),
      second: Number(second),
      ms: Number(ms ?? 0),
    });
  }
  return null;
}
