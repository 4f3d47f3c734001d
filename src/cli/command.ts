import type { Services } from '../app/services.js';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface Command {
  /** Words that select the command, e.g. ['token', 'create']. */
  path: string[];
  summary: string;
  usage: string;
  options?: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean; description: string }
  >;
  run(
    args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] },
    services: Services,
    io: CliIo,
  ): Promise<number>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}
