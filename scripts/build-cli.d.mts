/** The current compiled CLI's entry as a file URL, or null when missing or older than any of its sources. */
export function freshBundle(): string | null;
/** Compiles the CLI into .build/cli and makes it current; resolves to its entry as a file URL. */
export function buildCli(options?: { quiet?: boolean }): Promise<string>;
