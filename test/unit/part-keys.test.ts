import { describe, expect, it } from 'vitest';
import { followUpKey, labelOfPartKey, partKey } from '../../functions/commons/campaign-plan.ts';

describe('part keys and report labels', () => {
  const upload = 'leads-p2-0123456789abcdef';
  it.each([
    [partKey(upload, 1), '1'],
    [partKey(upload, 12), '12'],
    [followUpKey(partKey(upload, 3), 2, 0), '3-r2a'],
    [followUpKey(followUpKey(partKey(upload, 3), 2, 1), 3, 0), '3-r2b-r3a'],
  ])('%s is labelled %s, and the label gives the key back', (key, label) => {
    expect(labelOfPartKey(upload, key)).toBe(label);
    expect(partKey(upload, label)).toBe(key);
  });
});
