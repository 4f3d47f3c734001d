import { z } from 'zod';

/** Built once: a zod schema costs more to make than to run, and the call path checks ids on every call. */
const uuid = z.uuid();

/** Whether `value` is a UUID, the form of every row id: any other id names nothing. */
export function isUuid(value: unknown): boolean {
  return uuid.safeParse(value).success;
}
