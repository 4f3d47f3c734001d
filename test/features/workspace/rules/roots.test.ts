import { describe, expect, it } from 'vitest';
import {
  accessFor,
  DEFAULT_WORKSPACE_CONFIG,
  requiredArtifactsFor,
} from '../../../../src/features/workspace/rules/config.js';
import {
  canSee,
  canSeeFolder,
  canWrite,
  DEFAULT_ROOTS,
  describeRoots,
  narrowRoots,
  normaliseFolder,
  type WorkspaceRoot,
} from '../../../../src/features/workspace/rules/roots.js';

const roots: WorkspaceRoot[] = [
  { path: 'output', writable: true },
  { path: 'scratch', writable: true },
  { path: 'inputs', writable: false },
];

describe('narrowRoots', () => {
  it('without a narrowing, every root is visible and the writable ones writable', () => {
    expect(narrowRoots(roots)).toEqual({
      visible: ['inputs', 'output', 'scratch'],
      writable: ['output', 'scratch'],
    });
  });

  it('a visible list hides the other roots, and what is hidden is not writable either', () => {
    expect(narrowRoots(roots, { visible: ['output', 'inputs'] })).toEqual({
      visible: ['inputs', 'output'],
      writable: ['output'],
    });
  });

  it('a writable list narrows writing only', () => {
    expect(narrowRoots(roots, { writable: ['scratch'] })).toEqual({
      visible: ['inputs', 'output', 'scratch'],
      writable: ['scratch'],
    });
  });

  it('cannot make a read-only root writable, nor add a folder outside every root', () => {
    expect(narrowRoots(roots, { visible: ['inputs', 'secrets'], writable: ['inputs', 'secrets'] })).toEqual({
      visible: ['inputs'],
      writable: [],
    });
  });

  it('may narrow to a folder inside a root, for seeing and for writing', () => {
    expect(narrowRoots(roots, { visible: ['output/chapters/'], writable: ['output'] })).toEqual({
      visible: ['output/chapters'],
      writable: ['output/chapters'],
    });
    expect(narrowRoots(roots, { writable: ['output/chapters'] })).toEqual({
      visible: ['inputs', 'output', 'scratch'],
      writable: ['output/chapters'],
    });
  });

  it('an empty writable list leaves the run read-only', () => {
    expect(narrowRoots(roots, { writable: [] }).writable).toEqual([]);
  });

  it('refuses a configured folder that breaks the path rules', () => {
    expect(() => normaliseFolder('../etc')).toThrow('workspace folder "../etc" is not valid');
    expect(normaliseFolder('output/chapters//')).toBe('output/chapters');
  });
});

describe('access checks', () => {
  const access = narrowRoots(roots, { writable: ['output/chapters'] });

  it('a path is visible inside a visible folder only, never a sibling with the same prefix', () => {
    expect(canSee(access, 'output/report.md')).toBe(true);
    expect(canSee(access, 'output2/report.md')).toBe(false);
    expect(canSee(access, 'outputs')).toBe(false);
    expect(canSee(access, 'output')).toBe(false);
    expect(canSee(access, 'output/../secrets/x')).toBe(false);
  });

  it('a path is writable inside a writable folder only', () => {
    expect(canWrite(access, 'output/chapters/01.md')).toBe(true);
    expect(canWrite(access, 'output/index.md')).toBe(false);
    expect(canWrite(access, 'output/chapters2/01.md')).toBe(false);
  });

  it('a folder is visible when it is a visible folder or inside one', () => {
    expect(canSeeFolder(access, 'output')).toBe(true);
    expect(canSeeFolder(access, 'output/deep')).toBe(true);
    expect(canSeeFolder(access, 'plan')).toBe(false);
  });

  it('describes the visible folders and the writable folders inside read-only ones', () => {
    expect(describeRoots(access)).toEqual([
      { path: 'inputs', writable: false },
      { path: 'output', writable: false },
      { path: 'output/chapters', writable: true },
      { path: 'scratch', writable: false },
    ]);
  });
});

describe('workspace configuration', () => {
  const config = {
    ...DEFAULT_WORKSPACE_CONFIG,
    profiles: { reviewer: { visible: ['output'], writable: [], requiredArtifacts: ['output/review.md'] } },
  };

  it('ships output, scratch, plan, summaries and persist writable, and inputs read-only', () => {
    expect(DEFAULT_ROOTS.filter((r) => r.writable).map((r) => r.path)).toEqual([
      'output',
      'scratch',
      'plan',
      'summaries',
      'persist',
    ]);
    expect(DEFAULT_ROOTS.filter((r) => !r.writable).map((r) => r.path)).toEqual(['inputs']);
  });

  it("applies a profile's narrowing and requirements, and nothing for other profiles", () => {
    expect(accessFor(config, DEFAULT_ROOTS, 'reviewer')).toEqual({ visible: ['output'], writable: [] });
    expect(requiredArtifactsFor(config, 'reviewer')).toEqual(['output/review.md']);
    expect(accessFor(config, DEFAULT_ROOTS, 'writer')).toEqual(narrowRoots(DEFAULT_ROOTS));
    expect(accessFor(config, DEFAULT_ROOTS, null)).toEqual(narrowRoots(DEFAULT_ROOTS));
    expect(requiredArtifactsFor(config, null)).toEqual(['output/']);
  });

  it('never reads a profile id from the object prototype', () => {
    expect(accessFor(config, DEFAULT_ROOTS, 'constructor')).toEqual(narrowRoots(DEFAULT_ROOTS));
    expect(requiredArtifactsFor(config, '__proto__')).toEqual(['output/']);
  });
});
