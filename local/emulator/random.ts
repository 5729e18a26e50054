/** FNV-1a: a stable 32-bit hash, so that seeds and ids repeat across runs and machines. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for simulated call outcomes. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random source derived from the run's seed and a name, independent of how other draws were interleaved. */
export function streamFor(seed: string, name: string): () => number {
  return rng(hash32(`${seed}:${name}`));
}

export const between = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

export const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;

/** Opaque, repeatable ids: a prefix and 16 hex digits from the seed and a counter. */
export class IdMaker {
  private counter = 0;
  constructor(private readonly seed: string) {}

  next(prefix: string): string {
    this.counter++;
    const a = hash32(`${this.seed}:${prefix}:${this.counter}`).toString(16).padStart(8, '0');
    const b = hash32(`${this.counter}:${prefix}:${this.seed}`).toString(16).padStart(8, '0');
    return `${prefix}_${a}${b}`;
  }
}
