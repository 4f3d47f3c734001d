import type { pino } from 'pino';

/** The structured logger every service takes; only the composition root creates one (app/logger.ts). */
export type Logger = pino.Logger;
