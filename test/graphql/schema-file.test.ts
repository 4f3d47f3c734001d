import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/schema.js';

it('schema.graphql matches the schema printed from the code (run `npm run schema:print`)', () => {
  const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
  expect(committed).toBe(printedSchema());
});
