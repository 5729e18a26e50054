import { join, resolve } from 'node:path';

/**
 * Where the local stack keeps what should outlive one command (the suppression list, upload memory): the
 * `CALLSHEET_DATA_DIR` directory, by default `.callsheet/` in the working directory.
 */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.CALLSHEET_DATA_DIR ?? '.callsheet');
}

export const localDynamoPath = (env: NodeJS.ProcessEnv = process.env) => join(localDataDir(env), 'dynamodb');
