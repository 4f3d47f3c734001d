import type { z } from 'zod';
import { badInput } from './errors.js';

/** Services parse their own input with the same zod schema the API validates with: one shape, one message. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({
    field: i.path.join('.') || '(input)',
    message: i.message,
  }));
  throw badInput(issues.map((i) => `${i.field}: ${i.message}`).join('; '), { issues });
}
