import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where the local stack keeps what should outlive one command (the suppression list, upload memory): the
 * `CALLSHEET_DATA_DIR` directory, by default `.callsheet/` in the working directory.
 */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  // Set but empty (a blank variable in a script) is unset, as for every setting: not the current folder itself.
  const dir = resolve(env.CALLSHEET_DATA_DIR?.trim() || '.callsheet');
  // Refused by name for every command, before anything opens it (LevelDB's stack trace, a raw EEXIST).
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false)
    throw new Error(
      `${dir} is a file, not a folder: set CALLSHEET_DATA_DIR to a folder (or leave it unset for .callsheet/ in the current folder)`,
    );
  return dir;
}

/** Where the data directory is when CALLSHEET_DATA_DIR is not set, in words. */
export const DEFAULT_DATA_DIR = 'the default is .callsheet/ in the current folder';

/** How to choose another data directory, said wherever one is named. */
export const CHOOSE_DATA_DIR = `set CALLSHEET_DATA_DIR to use another; ${DEFAULT_DATA_DIR}`;

export const localDynamoPath = (env: NodeJS.ProcessEnv = process.env) => join(localDataDir(env), 'dynamodb');

/** No command has kept anything here yet: a command that starts now starts an empty do-not-call list with it. */
export const isNewDataDir = (env: NodeJS.ProcessEnv = process.env) => !existsSync(localDynamoPath(env));

/** Says which directory that is and how to choose another (the default depends on the current folder). */
export const newDataDirNote = (env: NodeJS.ProcessEnv = process.env) =>
  `${localDataDir(env)} held no callsheet data, so this started it empty, with an empty do-not-call list (${CHOOSE_DATA_DIR})`;
