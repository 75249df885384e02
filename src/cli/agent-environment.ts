import { homedir } from 'node:os';
import type { SourceEnvironment } from '../sources/types.js';

/**
 * The one place that reads the current user's home folder, environment and platform, for finding their agents'
 * sessions; everything below it is given them (CliIO.environment lets a test give a fake home instead).
 */
export function currentEnvironment(): SourceEnvironment {
  return { home: homedir(), env: process.env, platform: process.platform };
}
