import { pino } from 'pino';
import type { Logger } from '../core/logger.js';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'agent-tool-system' } });
}
