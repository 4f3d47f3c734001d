import { pino } from 'pino';
import type { Logger } from '../core/logger.js';
import { requestLogFields } from '../features/observability/index.js';

/** Every line written while an HTTP request is served carries its `requestId` (see the mixin). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'agent-tool-system' }, mixin: requestLogFields }, destination);
}
