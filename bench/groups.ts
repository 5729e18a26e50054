/**
 * Which benchmark groups `npm run bench -- <names>` runs: the names given, in the suite's own order, or every
 * group when none is given; options (`--json`) are not names. Unknown names are answered, not ignored.
 */
export function chooseGroups(args: readonly string[], groups: readonly string[]): { run: string[]; unknown: string[] } {
  const asked = args.filter((a) => !a.startsWith('--'));
  return {
    run: groups.filter((g) => asked.length === 0 || asked.includes(g)),
    unknown: asked.filter((a) => !groups.includes(a)),
  };
}
