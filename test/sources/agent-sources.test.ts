import { describe, expect, it } from 'vitest';
import { AGENT_SOURCES } from '../../src/sources/agent-sources.js';
import { AGENT_NAMES, type SourceEnvironment } from '../../src/sources/types.js';

/** Every folder looked at, as `agent kind folder (origin)`, from the environment alone. */
function locations(environment: SourceEnvironment): string[] {
  return AGENT_SOURCES.flatMap((s) => s.locations(environment)).map((l) => `${l.agent} ${l.kind} ${l.dir}${l.origin === 'default' ? '' : ` (${l.origin})`}`);
}

describe('where each agent writes its sessions', () => {
  it('lists the agents in the order of AGENT_NAMES', () => {
    expect(AGENT_SOURCES.map((s) => s.agent)).toEqual([...AGENT_NAMES]);
  });

  it('gives the Linux folders of a default environment', () => {
    expect(locations({ home: '/home/dev', env: {}, platform: 'linux' })).toEqual([
      'claude-code projects /home/dev/.config/claude/projects',
      'claude-code projects /home/dev/.claude/projects',
      'codex sessions /home/dev/.codex/sessions',
      'codex archived sessions /home/dev/.codex/archived_sessions',
      'gemini chats /home/dev/.gemini/tmp',
      'gemini checkpoints /home/dev/.gemini/tmp',
      'cline tasks /home/dev/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.config/Code - OSS/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.cline/data/tasks',
      'roo-code tasks /home/dev/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'opencode database /home/dev/.local/share/opencode',
      'opencode storage /home/dev/.local/share/opencode',
      'kilo database /home/dev/.local/share/kilo',
      'goose sessions /home/dev/.local/share/goose/sessions',
    ]);
  });

  it("puts VS Code's global storage under Library/Application Support on macOS, and nothing else moves", () => {
    const mac = locations({ home: '/Users/dev', env: {}, platform: 'darwin' });
    expect(mac.filter((l) => l.startsWith('roo-code'))).toEqual([
      'roo-code tasks /Users/dev/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
    ]);
    expect(mac.filter((l) => /^(claude-code|codex|opencode|goose) /.test(l))).toEqual([
      'claude-code projects /Users/dev/.config/claude/projects',
      'claude-code projects /Users/dev/.claude/projects',
      'codex sessions /Users/dev/.codex/sessions',
      'codex archived sessions /Users/dev/.codex/archived_sessions',
      'opencode database /Users/dev/.local/share/opencode',
      'opencode storage /Users/dev/.local/share/opencode',
      'goose sessions /Users/dev/.local/share/goose/sessions',
    ]);
  });

  it('gives Windows paths, VS Code and goose under %APPDATA%, from any machine', () => {
    const windows = locations({ home: 'C:\\Users\\dev', env: { APPDATA: 'C:\\Users\\dev\\AppData\\Roaming' }, platform: 'win32' });
    expect(windows.filter((l) => !/Code - |VSCodium/.test(l))).toEqual([
      'claude-code projects C:\\Users\\dev\\.config\\claude\\projects',
      'claude-code projects C:\\Users\\dev\\.claude\\projects',
      'codex sessions C:\\Users\\dev\\.codex\\sessions',
      'codex archived sessions C:\\Users\\dev\\.codex\\archived_sessions',
      'gemini chats C:\\Users\\dev\\.gemini\\tmp',
      'gemini checkpoints C:\\Users\\dev\\.gemini\\tmp',
      'cline tasks C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\tasks (APPDATA)',
      'cline tasks C:\\Users\\dev\\.cline\\data\\tasks',
      'roo-code tasks C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\tasks (APPDATA)',
      'opencode database C:\\Users\\dev\\.local\\share\\opencode',
      'opencode storage C:\\Users\\dev\\.local\\share\\opencode',
      'kilo database C:\\Users\\dev\\.local\\share\\kilo',
      'goose sessions C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions (APPDATA)',
    ]);
  });

  it('falls back to <home>\\AppData\\Roaming on Windows when APPDATA is not set', () => {
    const windows = locations({ home: 'C:\\Users\\dev', env: {}, platform: 'win32' });
    expect(windows.filter((l) => l.startsWith('goose'))).toEqual(['goose sessions C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions']);
  });

  it('follows each variable the agents honour, and names it', () => {
    const env = {
      CLAUDE_CONFIG_DIR: '/work/claude-a, ~/claude-b/projects',
      CODEX_HOME: '/work/codex',
      GEMINI_CLI_HOME: '/work/gemini-home',
      CLINE_DIR: '/work/cline',
      XDG_CONFIG_HOME: '/work/config',
      XDG_DATA_HOME: '/work/data',
      GOOSE_PATH_ROOT: '/work/goose',
    };
    const found = locations({ home: '/home/dev', env, platform: 'linux' });
    expect(found.filter((l) => !/Code - |VSCodium|roo-code/.test(l))).toEqual([
      'claude-code projects /work/claude-a/projects (CLAUDE_CONFIG_DIR)',
      'claude-code projects /home/dev/claude-b/projects (CLAUDE_CONFIG_DIR)',
      'codex sessions /work/codex/sessions (CODEX_HOME)',
      'codex archived sessions /work/codex/archived_sessions (CODEX_HOME)',
      'gemini chats /work/gemini-home/.gemini/tmp (GEMINI_CLI_HOME)',
      'gemini checkpoints /work/gemini-home/.gemini/tmp (GEMINI_CLI_HOME)',
      'cline tasks /work/config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks (XDG_CONFIG_HOME)',
      'cline tasks /work/cline/data/tasks (CLINE_DIR)',
      'opencode database /work/data/opencode (XDG_DATA_HOME)',
      'opencode storage /work/data/opencode (XDG_DATA_HOME)',
      'kilo database /work/data/kilo (XDG_DATA_HOME)',
      'goose sessions /work/goose/data/sessions (GOOSE_PATH_ROOT)',
    ]);
  });

  it('ignores a relative XDG folder, as the XDG specification says, and a blank variable', () => {
    const found = locations({ home: '/home/dev', env: { XDG_DATA_HOME: 'relative/data', CLAUDE_CONFIG_DIR: '  ' }, platform: 'linux' });
    expect(found.filter((l) => /^(opencode|claude-code) /.test(l))).toEqual([
      'claude-code projects /home/dev/.config/claude/projects',
      'claude-code projects /home/dev/.claude/projects',
      'opencode database /home/dev/.local/share/opencode',
      'opencode storage /home/dev/.local/share/opencode',
    ]);
  });

  it('takes VSCODE_APPDATA and a portable VS Code for the global storage', () => {
    const found = locations({ home: '/home/dev', env: { VSCODE_APPDATA: '/apps', VSCODE_PORTABLE: '/usb/vscode' }, platform: 'linux' });
    expect(found.filter((l) => l.startsWith('roo-code'))).toEqual([
      'roo-code tasks /apps/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /apps/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /apps/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /apps/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /usb/vscode/user-data/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_PORTABLE)',
    ]);
  });
});
