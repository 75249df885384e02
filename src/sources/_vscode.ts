import { envValue, pathsOf, roamingAppData, xdgHome } from './_paths.js';
import type { SourceEnvironment } from './types.js';

/**
 * The VS Code builds whose user data folders are searched: the folder is named after the build's `nameShort` (Microsoft's
 * builds, the open-source build of microsoft/vscode's product.json, VSCodium, and the forks Cursor and Windsurf, which
 * keep VS Code's layout: `<app data>/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks`).
 */
export const VSCODE_PRODUCTS = ['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium', 'Cursor', 'Windsurf'] as const;

/**
 * Where each VS Code build keeps its extensions' global storage, `<user data>/User/globalStorage`, the user data
 * folder being `<app data>/<product>` (src/vs/platform/environment/node/userDataPath.ts): app data is VSCODE_APPDATA
 * when set, else %APPDATA% on Windows, `~/Library/Application Support` on macOS and `$XDG_CONFIG_HOME` (`~/.config`)
 * elsewhere; a portable install (VSCODE_PORTABLE) keeps it in `<portable>/user-data`.
 */
export function globalStorageDirs(environment: SourceEnvironment): [string, string][] {
  const paths = pathsOf(environment);
  const [appData, origin] = appDataOf(environment);
  const dirs: [string, string][] = VSCODE_PRODUCTS.map((product) => [paths.join(appData, product, 'User', 'globalStorage'), origin]);
  const portable = envValue(environment, 'VSCODE_PORTABLE');
  if (portable !== undefined) dirs.push([paths.join(portable, 'user-data', 'User', 'globalStorage'), 'VSCODE_PORTABLE']);
  return dirs;
}

function appDataOf(environment: SourceEnvironment): [string, string] {
  const configured = envValue(environment, 'VSCODE_APPDATA');
  if (configured !== undefined) return [configured, 'VSCODE_APPDATA'];
  if (environment.platform === 'win32') return roamingAppData(environment);
  if (environment.platform === 'darwin') return [pathsOf(environment).join(environment.home, 'Library', 'Application Support'), 'default'];
  return xdgHome(environment, 'XDG_CONFIG_HOME', '.config');
}
