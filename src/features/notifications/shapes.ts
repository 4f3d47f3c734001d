import { z } from 'zod';
import { LONE_SURROGATE } from '../../core/unicode.js';
import { notificationEventKinds, notificationKinds } from './rules/kinds.js';

export {
  type DeliveryStatus,
  deliveryStatuses,
  type NotificationEventKind,
  type NotificationKind,
  notificationEventKinds,
  notificationKinds,
} from './rules/kinds.js';

const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

function isHttpUrl(value: string, allowPath: boolean): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '' &&
      (allowPath || url.search === '')
    );
  } catch {
    return false;
  }
}

const urlSchema = z
  .string()
  .max(2048)
  .refine((v) => isHttpUrl(v, true), 'must be an http:// or https:// URL without credentials or a fragment');

/** Where the console is served; links are `<consoleUrl>/#/calls/<id>?link=<token>`. */
const consoleUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => isHttpUrl(v, false), 'must be an http:// or https:// URL without a query or fragment')
  .transform((v) => v.replace(/\/+$/, ''));

const secretSchema = z
  .string()
  .min(16, 'must be at least 16 characters')
  .max(1024)
  .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL')
  // Refused before it reaches a query whose failure message could carry it into a log.
  .refine((v) => !LONE_SURROGATE.test(v), 'must be well-formed Unicode');

const eventsSchema = z
  .array(z.enum(notificationEventKinds))
  .min(1, 'name at least one event')
  .transform((events) => notificationEventKinds.filter((kind) => events.includes(kind)));

export const createTargetInputSchema = z.object({
  name: z.string().regex(NAME_PATTERN, 'must be 1-64 characters of a-z 0-9 _ -, starting with a letter'),
  kind: z.enum(notificationKinds),
  url: urlSchema,
  events: eventsSchema,
  consoleUrl: consoleUrlSchema.nullish(),
  secret: secretSchema.nullish(),
  enabled: z.boolean().nullish(),
});
export type CreateTargetInput = z.input<typeof createTargetInputSchema>;

/** Fields left out are kept; `secret: null` removes the secret, `consoleUrl: null` the links. */
export const updateTargetInputSchema = z.object({
  name: createTargetInputSchema.shape.name.optional(),
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  consoleUrl: consoleUrlSchema.nullish(),
  secret: secretSchema.nullish(),
  enabled: z.boolean().optional(),
});
export type UpdateTargetInput = z.input<typeof updateTargetInputSchema>;
