import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_NAME_RULES,
  buildNameMap,
  GEMINI_NAME_RULES,
  nativeNameOf,
  OPENAI_NAME_RULES,
  toolNameOf,
} from '../../../src/model/providers/names.js';

const LONG_A = `mcp.${'a'.repeat(70)}.first`;
const LONG_B = `mcp.${'a'.repeat(70)}.second`;

describe('buildNameMap', () => {
  it('keeps a name the provider already accepts', () => {
    const map = buildNameMap(['get_weather'], OPENAI_NAME_RULES);
    expect(map.byName.get('get_weather')).toBe('get_weather');
  });

  it('turns dots into underscores when no other tool takes that name', () => {
    const map = buildNameMap(['workspace.apply_patch', 'mcp.github.search'], OPENAI_NAME_RULES);
    expect([...map.byName]).toEqual([
      ['workspace.apply_patch', 'workspace_apply_patch'],
      ['mcp.github.search', 'mcp_github_search'],
    ]);
  });

  it('keeps a.b, a_b and a__b apart', () => {
    const map = buildNameMap(['a.b', 'a_b', 'a__b'], OPENAI_NAME_RULES);
    expect([...map.byName]).toEqual([
      ['a_b', 'a_b'],
      ['a__b', 'a__b'],
      ['a.b', 'a_b_2e7336dc'],
    ]);
  });

  it('hashes every name whose rewrite another dotted name shares', () => {
    const map = buildNameMap(['x.y_z', 'x_y.z'], OPENAI_NAME_RULES);
    expect([...map.byName]).toEqual([
      ['x.y_z', 'x_y_z_f1d1b007'],
      ['x_y.z', 'x_y_z_e28dc560'],
    ]);
  });

  it('shortens names over 64 characters to distinct valid names', () => {
    const map = buildNameMap([LONG_A, LONG_B], ANTHROPIC_NAME_RULES);
    const natives = [map.byName.get(LONG_A)!, map.byName.get(LONG_B)!];
    expect(natives.map((n) => n.length)).toEqual([64, 64]);
    expect(natives.every((n) => ANTHROPIC_NAME_RULES.pattern.test(n))).toBe(true);
    expect(natives[0]).not.toBe(natives[1]);
  });

  it('gives Gemini a letter-or-underscore first character', () => {
    const map = buildNameMap(['3d.render'], GEMINI_NAME_RULES);
    expect(map.byName.get('3d.render')).toBe('_3d_render');
  });

  it('caps Gemini names at 63 characters', () => {
    const name = `tool.${'b'.repeat(60)}`;
    expect(buildNameMap([name], GEMINI_NAME_RULES).byName.get(name)!.length).toBe(63);
  });

  it('does not depend on the order of the tools', () => {
    const names = ['a.b', 'a_b', 'a__b', 'x.y_z', 'x_y.z', LONG_A, LONG_B];
    const forward = buildNameMap(names, OPENAI_NAME_RULES);
    const backward = buildNameMap([...names].reverse(), OPENAI_NAME_RULES);
    expect(new Map(backward.byName)).toEqual(new Map(forward.byName));
  });

  it('round-trips every name through the provider name', () => {
    const names = [
      'a.b',
      'a_b',
      'a__b',
      'workspace.apply_patch',
      'mcp.github.search',
      LONG_A,
      LONG_B,
      '9.lives',
    ];
    for (const rules of [OPENAI_NAME_RULES, ANTHROPIC_NAME_RULES, GEMINI_NAME_RULES]) {
      const map = buildNameMap(names, rules);
      expect(names.map((name) => toolNameOf(map, map.byName.get(name)!))).toEqual(names);
    }
  });
});

describe('toolNameOf', () => {
  it('returns null for a name that is not in the map', () => {
    const map = buildNameMap(['workspace.apply_patch'], OPENAI_NAME_RULES);
    expect(toolNameOf(map, 'workspace_delete')).toBeNull();
  });
});

describe('nativeNameOf', () => {
  it('encodes a tool outside the map on its own', () => {
    const map = buildNameMap(['weather'], OPENAI_NAME_RULES);
    expect(nativeNameOf(map, 'skill.read')).toBe('skill_read');
  });
});
