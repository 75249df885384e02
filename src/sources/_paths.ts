import { posix, win32 } from 'node:path';
import type { SourceEnvironment } from './types.js';

/** The path module of the environment's platform, so that Windows paths come out right from any machine. */
export function pathsOf(environment: SourceEnvironment): typeof posix {
  return environment.platform === 'win32' ? win32 : posix;
}

/** A variable's value, or undefined when it is unset or blank. */
export function envValue(environment: SourceEnvironment, name: string): string | undefined {
  const value = environment.env[name]?.trim();
  return value ? value : undefined;
}

/** `~` and `~/...` against the home folder, as the agents' own tools expand them; other paths unchanged. */
export function expandHome(environment: SourceEnvironment, path: string): string {
  if (path === '~') return environment.home;
  if (/^~[\\/]/.test(path)) return pathsOf(environment).join(environment.home, path.slice(2));
  return path;
}

/** A comma-separated list of folders (ccusage's convention for CLAUDE_CONFIG_DIR and CODEX_HOME), `~` expanded. */
export function folderList(environment: SourceEnvironment, value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => expandHome(environment, part));
}

/**
 * An XDG base folder (https://specifications.freedesktop.org/basedir-spec/): the variable when it holds an absolute
 * path (the specification ignores relative ones), else `~/<fallback>`. Returns the folder and where it came from.
 */
export function xdgHome(environment: SourceEnvironment, variable: 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME', fallback: string): [string, string] {
  const value = envValue(environment, variable);
  const paths = pathsOf(environment);
  if (value !== undefined && paths.isAbsolute(value)) return [value, variable];
  return [paths.join(environment.home, ...fallback.split('/')), 'default'];
}

/** Windows' roaming application data folder: %APPDATA%, else `<home>\AppData\Roaming`. */
export function roamingAppData(environment: SourceEnvironment): [string, string] {
  const value = envValue(environment, 'APPDATA');
  return value !== undefined ? [value, 'APPDATA'] : [win32.join(environment.home, 'AppData', 'Roaming'), 'default'];
}
