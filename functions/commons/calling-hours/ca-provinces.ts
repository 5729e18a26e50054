import type { HoursRule } from './types.ts';

// Seed; the full table of provinces and territories replaces this file.
export const CA_PROVINCE_RULES: Readonly<Record<string, HoursRule>> = {};
