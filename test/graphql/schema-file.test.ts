import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/schema.js';

it('schema.graphql matches the schema printed from the code (run `npm run schema:print`)', () => {
  const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
  expect(committed).toBe(printedSchema());
});

it('no description calls an expired approval a denial: EXPIRED is never a denial (runs-and-approvals.md)', () => {
  const described = printedSchema()
    .split('"""')
    .filter((_, i) => i % 2 === 1)
    .filter((text) => /expire/i.test(text));
  expect(described.filter((text) => /denied as|counts as denied|denied with reason/i.test(text))).toEqual([]);
});
