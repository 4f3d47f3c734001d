import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/core/tool-spec.js';
import { narrowSchema, strictBlocker } from '../../../src/model/providers/schema-narrowing/index.js';

const OPTIONAL = 'optional property made required and nullable (strict mode requires every property)';
const CLOSED = 'strict mode needs additionalProperties: false (was unset)';

/** Every construct the issue names, plus nested and recursive references. */
const HOSTILE: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    path: { type: 'string', format: 'uri', minLength: 1 },
    mode: { const: 'fast' },
    note: { type: ['string', 'null'] },
    target: { $ref: '#/$defs/Target' },
    tree: { $ref: '#/$defs/Node' },
    shape: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    patch: {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'integer' } } },
      ],
    },
    name: { type: 'string', not: { const: 'root' } },
  },
  required: ['path', 'target'],
  additionalProperties: false,
  $defs: {
    Target: {
      type: 'object',
      properties: { host: { type: 'string' }, port: { $ref: '#/$defs/Port' } },
      required: ['host'],
    },
    Port: { type: 'integer', minimum: 1, maximum: 65535 },
    Node: {
      type: 'object',
      properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
    },
  },
};

describe('narrowSchema for Gemini', () => {
  it('inlines references, folds types and drops what the Schema subset lacks', () => {
    expect(narrowSchema(HOSTILE, 'gemini').schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        mode: { type: 'string', enum: ['fast'] },
        note: { type: 'string', nullable: true },
        target: {
          type: 'object',
          properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
          required: ['host'],
        },
        tree: {
          type: 'object',
          properties: { value: { type: 'string' }, children: { type: 'array', items: { type: 'object' } } },
        },
        shape: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        patch: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'integer' } },
          required: ['a'],
        },
        name: { type: 'string' },
      },
      required: ['path', 'target'],
    });
  });

  it('reports each change in traversal order', () => {
    expect(narrowSchema(HOSTILE, 'gemini').report).toEqual([
      {
        path: '',
        action: 'dropped',
        keyword: '$schema',
        detail: 'Gemini does not accept a dialect declaration',
      },
      {
        path: '',
        action: 'dropped',
        keyword: 'additionalProperties',
        detail: 'Gemini objects cannot constrain extra properties',
      },
      {
        path: '',
        action: 'dropped',
        keyword: '$defs',
        detail: 'definitions were inlined where they are referenced',
      },
      {
        path: '/properties/path',
        action: 'dropped',
        keyword: 'format',
        detail: 'format "uri" is not supported',
      },
      { path: '/properties/mode', action: 'rewritten', keyword: 'const', detail: 'became enum ["fast"]' },
      {
        path: '/properties/mode',
        action: 'rewritten',
        keyword: 'type',
        detail: 'type "string" added for a string enum',
      },
      {
        path: '/properties/note',
        action: 'rewritten',
        keyword: 'type',
        detail: 'type array ["string","null"] became type "string" with nullable: true',
      },
      { path: '/properties/target', action: 'rewritten', keyword: '$ref', detail: 'inlined #/$defs/Target' },
      {
        path: '/properties/target/properties/port',
        action: 'rewritten',
        keyword: '$ref',
        detail: 'inlined #/$defs/Port',
      },
      { path: '/properties/tree', action: 'rewritten', keyword: '$ref', detail: 'inlined #/$defs/Node' },
      {
        path: '/properties/tree/properties/children/items',
        action: 'rewritten',
        keyword: '$ref',
        detail: 'recursive reference #/$defs/Node replaced by a permissive object',
      },
      {
        path: '/properties/shape',
        action: 'rewritten',
        keyword: 'oneOf',
        detail: 'became anyOf (exclusivity is not enforced)',
      },
      {
        path: '/properties/patch',
        action: 'rewritten',
        keyword: 'allOf',
        detail: 'merged 2 subschemas into one (properties and required lists unioned)',
      },
      {
        path: '/properties/name',
        action: 'dropped',
        keyword: 'not',
        detail: 'negated schemas are not supported',
      },
    ]);
  });

  it('flattens a top-level oneOf into one object requiring only what every branch requires', () => {
    const schema = {
      oneOf: [
        {
          type: 'object',
          properties: { q: { type: 'string' }, n: { type: 'integer' } },
          required: ['q', 'n'],
        },
        { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['n'] },
      ],
    };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: {
        type: 'object',
        properties: { q: { type: 'string' }, n: { type: 'integer' }, id: { type: 'string' } },
        required: ['n'],
      },
      report: [
        {
          path: '',
          action: 'rewritten',
          keyword: 'oneOf',
          detail:
            'top-level union flattened into one object: properties merged, only properties every branch requires stay required',
        },
      ],
    });
  });

  it('folds a null anyOf branch into nullable', () => {
    const schema = {
      type: 'object',
      properties: {
        when: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], description: 'due' },
      },
    };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: {
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time', description: 'due', nullable: true } },
      },
      report: [
        {
          path: '/properties/when',
          action: 'rewritten',
          keyword: 'anyOf',
          detail: 'null branch became nullable: true',
        },
      ],
    });
  });

  it('turns a type array with several types into anyOf', () => {
    const schema = { type: 'object', properties: { v: { type: ['string', 'integer', 'null'] } } };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: {
        type: 'object',
        properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true } },
      },
      report: [
        {
          path: '/properties/v',
          action: 'rewritten',
          keyword: 'type',
          detail: 'type array ["string","integer","null"] became anyOf of each type with nullable: true',
        },
      ],
    });
  });

  it('drops non-string const and enum values, keeping the value type', () => {
    const schema = {
      type: 'object',
      properties: { level: { const: 3 }, size: { type: 'integer', enum: [1, 2, 3] } },
    };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: { type: 'object', properties: { level: { type: 'integer' }, size: { type: 'integer' } } },
      report: [
        {
          path: '/properties/level',
          action: 'dropped',
          keyword: 'const',
          detail: 'Gemini enums hold strings only',
        },
        {
          path: '/properties/level',
          action: 'rewritten',
          keyword: 'type',
          detail: 'type "integer" taken from the const value',
        },
        {
          path: '/properties/size',
          action: 'dropped',
          keyword: 'enum',
          detail: 'Gemini enums hold strings only',
        },
      ],
    });
  });

  it('drops an empty properties map', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object', properties: {} } } };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: { type: 'object', properties: { meta: { type: 'object' } } },
      report: [
        {
          path: '/properties/meta',
          action: 'dropped',
          keyword: 'properties',
          detail: 'Gemini rejects an empty properties map',
        },
      ],
    });
  });

  it('replaces a reference it cannot resolve with a permissive object', () => {
    const schema = {
      type: 'object',
      properties: { x: { $ref: 'https://example.com/x.json', description: 'remote' } },
    };
    expect(narrowSchema(schema, 'gemini')).toEqual({
      schema: { type: 'object', properties: { x: { type: 'object', description: 'remote' } } },
      report: [
        {
          path: '/properties/x',
          action: 'rewritten',
          keyword: '$ref',
          detail: 'unresolvable reference https://example.com/x.json replaced by a permissive object',
        },
      ],
    });
  });
});

describe('narrowSchema for OpenAI strict mode', () => {
  it('closes every object and makes optional properties required and nullable', () => {
    expect(narrowSchema(HOSTILE, 'openai-strict').schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        path: { type: 'string' },
        mode: { anyOf: [{ const: 'fast' }, { type: 'null' }] },
        note: { type: ['string', 'null'] },
        target: { $ref: '#/$defs/Target' },
        tree: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] },
        shape: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
        patch: {
          type: ['object', 'null'],
          properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] } },
          required: ['a', 'b'],
          additionalProperties: false,
        },
        name: { type: ['string', 'null'] },
      },
      required: ['path', 'target', 'mode', 'note', 'tree', 'shape', 'patch', 'name'],
      additionalProperties: false,
      $defs: {
        Target: {
          type: 'object',
          properties: {
            host: { type: 'string' },
            port: { anyOf: [{ $ref: '#/$defs/Port' }, { type: 'null' }] },
          },
          required: ['host', 'port'],
          additionalProperties: false,
        },
        Port: { type: 'integer', minimum: 1, maximum: 65535 },
        Node: {
          type: 'object',
          properties: {
            value: { type: ['string', 'null'] },
            children: { type: ['array', 'null'], items: { $ref: '#/$defs/Node' } },
          },
          required: ['value', 'children'],
          additionalProperties: false,
        },
      },
    });
  });

  it('reports each change in traversal order', () => {
    expect(narrowSchema(HOSTILE, 'openai-strict').report).toEqual([
      {
        path: '/properties/path',
        action: 'dropped',
        keyword: 'format',
        detail: 'format "uri" is not supported',
      },
      {
        path: '/properties/path',
        action: 'dropped',
        keyword: 'minLength',
        detail: 'string length bounds are not supported in strict mode',
      },
      {
        path: '/properties/shape',
        action: 'rewritten',
        keyword: 'oneOf',
        detail: 'became anyOf (exclusivity is not enforced)',
      },
      {
        path: '/properties/patch',
        action: 'rewritten',
        keyword: 'allOf',
        detail: 'merged 2 subschemas into one (properties and required lists unioned)',
      },
      { path: '/properties/patch', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
      { path: '/properties/patch/properties/b', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      {
        path: '/properties/name',
        action: 'dropped',
        keyword: 'not',
        detail: 'negated schemas are not supported',
      },
      { path: '/$defs/Target', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
      { path: '/$defs/Target/properties/port', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/$defs/Node', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
      { path: '/$defs/Node/properties/value', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/$defs/Node/properties/children', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/mode', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/note', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/tree', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/shape', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/patch', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
      { path: '/properties/name', action: 'rewritten', keyword: 'required', detail: OPTIONAL },
    ]);
  });

  it('adds null to the enum of a property it makes nullable', () => {
    const schema = { type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'] } } };
    expect(narrowSchema(schema, 'openai-strict').schema).toEqual({
      type: 'object',
      properties: { unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
      required: ['unit'],
      additionalProperties: false,
    });
  });

  it('rewrites additionalProperties: true to false and says what it was', () => {
    const schema = {
      type: 'object',
      properties: { k: { type: 'string' } },
      required: ['k'],
      additionalProperties: true,
    };
    expect(narrowSchema(schema, 'openai-strict').report).toEqual([
      {
        path: '',
        action: 'rewritten',
        keyword: 'additionalProperties',
        detail: 'strict mode needs additionalProperties: false (was true)',
      },
    ]);
  });
});

describe('narrowSchema for Anthropic strict mode', () => {
  it('keeps references, anyOf and formats it supports, and closes objects', () => {
    expect(narrowSchema(HOSTILE, 'anthropic-strict').schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        path: { type: 'string', format: 'uri' },
        mode: { const: 'fast' },
        note: { type: ['string', 'null'] },
        target: { $ref: '#/$defs/Target' },
        tree: { $ref: '#/$defs/Node' },
        shape: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        patch: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'integer' } },
          required: ['a'],
          additionalProperties: false,
        },
        name: { type: 'string' },
      },
      required: ['path', 'target'],
      additionalProperties: false,
      $defs: {
        Target: {
          type: 'object',
          properties: { host: { type: 'string' }, port: { $ref: '#/$defs/Port' } },
          required: ['host'],
          additionalProperties: false,
        },
        Port: { type: 'integer' },
        Node: {
          type: 'object',
          properties: {
            value: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
          additionalProperties: false,
        },
      },
    });
  });

  it('reports each change in traversal order', () => {
    expect(narrowSchema(HOSTILE, 'anthropic-strict').report).toEqual([
      {
        path: '/properties/path',
        action: 'dropped',
        keyword: 'minLength',
        detail: 'string length bounds are not supported in strict mode',
      },
      {
        path: '/properties/shape',
        action: 'rewritten',
        keyword: 'oneOf',
        detail: 'became anyOf (exclusivity is not enforced)',
      },
      {
        path: '/properties/patch',
        action: 'rewritten',
        keyword: 'allOf',
        detail: 'merged 2 subschemas into one (properties and required lists unioned)',
      },
      { path: '/properties/patch', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
      {
        path: '/properties/name',
        action: 'dropped',
        keyword: 'not',
        detail: 'negated schemas are not supported',
      },
      { path: '/$defs/Target', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
      {
        path: '/$defs/Port',
        action: 'dropped',
        keyword: 'minimum',
        detail: 'numeric bounds are not supported in strict mode',
      },
      {
        path: '/$defs/Port',
        action: 'dropped',
        keyword: 'maximum',
        detail: 'numeric bounds are not supported in strict mode',
      },
      { path: '/$defs/Node', action: 'rewritten', keyword: 'additionalProperties', detail: CLOSED },
    ]);
  });

  it('drops minItems above 1 but keeps minItems 1', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
      },
      additionalProperties: false,
    };
    expect(narrowSchema(schema, 'anthropic-strict')).toEqual({
      schema: {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' } },
          ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
        },
        additionalProperties: false,
      },
      report: [
        {
          path: '/properties/tags',
          action: 'dropped',
          keyword: 'minItems',
          detail: 'only minItems 0 or 1 is supported in strict mode',
        },
      ],
    });
  });
});

describe('narrowSchema without strict mode', () => {
  it('leaves the hostile schema untouched for OpenAI', () => {
    expect(narrowSchema(HOSTILE, 'openai')).toEqual({ schema: HOSTILE, report: [] });
  });

  it('leaves the hostile schema untouched for Anthropic', () => {
    expect(narrowSchema(HOSTILE, 'anthropic')).toEqual({ schema: HOSTILE, report: [] });
  });

  it('flattens a top-level anyOf, resolving branch references, for Anthropic', () => {
    const byId = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const schema = {
      anyOf: [
        { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        { $ref: '#/$defs/ById' },
      ],
      $defs: { ById: byId },
    };
    expect(narrowSchema(schema, 'anthropic').schema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' }, id: { type: 'string' } },
      $defs: { ById: byId },
    });
  });

  it('adds type object to a root that has none', () => {
    expect(narrowSchema({ properties: { a: { type: 'string' } } }, 'openai')).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' } } },
      report: [
        {
          path: '',
          action: 'rewritten',
          keyword: 'type',
          detail: 'tool parameters must be an object; type "object" added',
        },
      ],
    });
  });
});

describe('narrowSchema determinism', () => {
  it('gives the same result twice and leaves its input unchanged', () => {
    const before = structuredClone(HOSTILE);
    const first = narrowSchema(HOSTILE, 'gemini');
    expect(narrowSchema(HOSTILE, 'gemini')).toEqual(first);
    expect(HOSTILE).toEqual(before);
  });
});

describe('strictBlocker', () => {
  it('blocks a nested object without properties', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' } } };
    expect(strictBlocker(schema, 'openai-strict')).toBe(
      'object without properties at /properties/meta would only accept {} once closed',
    );
  });

  it('blocks an object with schema-valued additionalProperties', () => {
    const schema = {
      type: 'object',
      properties: { meta: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    expect(strictBlocker(schema, 'openai-strict')).toBe(
      'free-form object at /properties/meta cannot be closed with additionalProperties: false',
    );
  });

  it('blocks a property that accepts any value', () => {
    const schema = { type: 'object', properties: { anything: { description: 'any JSON' } } };
    expect(strictBlocker(schema, 'anthropic-strict')).toBe(
      'untyped schema at /properties/anything accepts any value',
    );
  });

  it('blocks recursion for Anthropic only', () => {
    expect([strictBlocker(HOSTILE, 'anthropic-strict'), strictBlocker(HOSTILE, 'openai-strict')]).toEqual([
      'recursive reference #/$defs/Node cannot be expressed in Anthropic strict mode',
      null,
    ]);
  });

  it('accepts a root object without parameters', () => {
    expect(strictBlocker({ type: 'object' }, 'openai-strict')).toBeNull();
  });
});
