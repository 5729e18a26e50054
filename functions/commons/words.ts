/** `1 contact`, `2 contacts`: a count with its noun, as a user reads it. */
export const counted = (n: number, noun: string, nouns = `${noun}s`) => `${n} ${n === 1 ? noun : nouns}`;
