// Seed; the full NANPA table replaces this file.
export const NANP_AREA_CODES: Readonly<Record<string, readonly string[]>> = {
  '208': ['US-ID'],
  '212': ['US-NY'],
  '305': ['US-FL'],
  '850': ['US-FL'],
  '907': ['US-AK'],
};
