export const testPostgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Same server, another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    driver: 'pglite' | 'postgres';
    pgliteTemplate: string;
    postgresTemplate: string;
    postgresSkipReason: string;
    /** test/support/mcp-stdio-server.ts bundled to plain JS (see global-setup.ts). */
    mcpStdioServer: string;
  }
}
