import { describe, expect, it } from 'vitest';
import { chooseGroups } from '#bench/groups.ts';

const GROUPS = ['client', 'intake', 'lifecycle', 'bundles'];

describe('npm run bench -- <groups>', () => {
  it.each([
    [[], GROUPS, []],
    [['--json'], GROUPS, []],
    [['bundles', 'intake'], ['intake', 'bundles'], []],
    [['intake', '--json'], ['intake'], []],
    [['intake', 'nope'], ['intake'], ['nope']],
  ])('%j runs %j and names %j as unknown', (args, run, unknown) => {
    expect(chooseGroups(args, GROUPS)).toEqual({ run, unknown });
  });
});
