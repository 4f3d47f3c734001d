import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { errorsMarkdown, staleness } from '../../scripts/errors-doc.js';
import { graphqlErrorCodes } from '../../src/core/graphql-error-codes.js';
import { toolErrorCodes } from '../../src/core/tool-error-codes.js';

const committed = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  test('is what the tables print (run `npm run errors:print`)', () => {
    expect(committed).toBe(errorsMarkdown());
    expect(staleness(committed, 'docs/errors.md')).toBeNull();
  });

  test('has a row for every tool error code and every GraphQL error code', () => {
    for (const [code, entry] of Object.entries(toolErrorCodes))
      expect(committed).toContain(`| \`${code}\` | ${entry.kinds.join(', ')} |`);
    for (const code of Object.keys(graphqlErrorCodes)) expect(committed).toContain(`| \`${code}\` |`);
  });

  test('fails the check when it is stale or missing', () => {
    const stale = committed.replace('| `path_escape` | SYSTEM_FAILURE |', '| `path_escape` | RECOVERABLE |');
    expect(stale).not.toBe(committed);
    expect(staleness(stale, 'docs/errors.md')).toBe(
      'docs/errors.md is stale: run `npm run errors:print` and commit it.',
    );
    expect(staleness(null, 'docs/errors.md')).toBe(
      'docs/errors.md is missing: run `npm run errors:print` and commit it.',
    );
  });
});
