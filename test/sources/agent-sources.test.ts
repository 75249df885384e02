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
      'cline tasks /home/dev/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.config/Windsurf/User/globalStorage/saoudrizwan.claude-dev/tasks',
      'cline tasks /home/dev/.cline/data/tasks',
      'cline sessions /home/dev/.cline/data/sessions',
      'roo-code tasks /home/dev/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /home/dev/.config/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'kilo-code tasks /home/dev/.config/Code/User/globalStorage/kilocode.kilo-code/tasks',
      'kilo-code tasks /home/dev/.config/Code - Insiders/User/globalStorage/kilocode.kilo-code/tasks',
      'kilo-code tasks /home/dev/.config/Code - OSS/User/globalStorage/kilocode.kilo-code/tasks',
      'kilo-code tasks /home/dev/.config/VSCodium/User/globalStorage/kilocode.kilo-code/tasks',
      'kilo-code tasks /home/dev/.config/Cursor/User/globalStorage/kilocode.kilo-code/tasks',
      'kilo-code tasks /home/dev/.config/Windsurf/User/globalStorage/kilocode.kilo-code/tasks',
      'opencode database /home/dev/.local/share/opencode',
      'opencode storage /home/dev/.local/share/opencode',
      'kilo database /home/dev/.local/share/kilo',
      'goose database /home/dev/.local/share/goose/sessions',
      'goose sessions /home/dev/.local/share/goose/sessions',
      'pi sessions /home/dev/.pi/agent/sessions',
      'openclaw sessions /home/dev/.openclaw/agents',
      'openclaw sessions /home/dev/.clawdbot/agents',
      'openclaw sessions /home/dev/.moltbot/agents',
      'openclaw sessions /home/dev/.moldbot/agents',
      'amp threads /home/dev/.local/share/amp/threads',
      'kimi sessions /home/dev/.kimi/sessions',
      'kimi sessions /home/dev/.kimi-code/sessions',
      'droid sessions /home/dev/.factory/sessions',
      'qwen projects /home/dev/.qwen/projects',
      'continue sessions /home/dev/.continue/sessions',
      'copilot sessions /home/dev/.copilot/session-state',
      'copilot archived sessions /home/dev/.copilot/history-session-state',
      'crush projects /home/dev/.local/share/crush',
      'zed database /home/dev/.local/share/zed/threads',
      'hermes database /home/dev/.hermes',
    ]);
  });

  it("puts VS Code's global storage under Library/Application Support on macOS, and nothing else moves", () => {
    const mac = locations({ home: '/Users/dev', env: {}, platform: 'darwin' });
    expect(mac.filter((l) => l.startsWith('roo-code'))).toEqual([
      'roo-code tasks /Users/dev/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      'roo-code tasks /Users/dev/Library/Application Support/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
    ]);
    expect(mac.filter((l) => /^(claude-code|codex|opencode|goose) /.test(l))).toEqual([
      'claude-code projects /Users/dev/.config/claude/projects',
      'claude-code projects /Users/dev/.claude/projects',
      'codex sessions /Users/dev/.codex/sessions',
      'codex archived sessions /Users/dev/.codex/archived_sessions',
      'opencode database /Users/dev/.local/share/opencode',
      'opencode storage /Users/dev/.local/share/opencode',
      'goose database /Users/dev/.local/share/goose/sessions',
      'goose sessions /Users/dev/.local/share/goose/sessions',
    ]);
  });

  it('gives Windows paths, VS Code and goose under %APPDATA%, from any machine', () => {
    const windows = locations({
      home: 'C:\\Users\\dev',
      env: { APPDATA: 'C:\\Users\\dev\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local' },
      platform: 'win32',
    });
    expect(windows.filter((l) => !/Code - |VSCodium|Cursor|Windsurf/.test(l))).toEqual([
      'claude-code projects C:\\Users\\dev\\.config\\claude\\projects',
      'claude-code projects C:\\Users\\dev\\.claude\\projects',
      'codex sessions C:\\Users\\dev\\.codex\\sessions',
      'codex archived sessions C:\\Users\\dev\\.codex\\archived_sessions',
      'gemini chats C:\\Users\\dev\\.gemini\\tmp',
      'gemini checkpoints C:\\Users\\dev\\.gemini\\tmp',
      'cline tasks C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\tasks (APPDATA)',
      'cline tasks C:\\Users\\dev\\.cline\\data\\tasks',
      'cline sessions C:\\Users\\dev\\.cline\\data\\sessions',
      'roo-code tasks C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\tasks (APPDATA)',
      'kilo-code tasks C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\globalStorage\\kilocode.kilo-code\\tasks (APPDATA)',
      'opencode database C:\\Users\\dev\\.local\\share\\opencode',
      'opencode storage C:\\Users\\dev\\.local\\share\\opencode',
      'kilo database C:\\Users\\dev\\.local\\share\\kilo',
      'goose database C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions (APPDATA)',
      'goose sessions C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions (APPDATA)',
      'pi sessions C:\\Users\\dev\\.pi\\agent\\sessions',
      'openclaw sessions C:\\Users\\dev\\.openclaw\\agents',
      'openclaw sessions C:\\Users\\dev\\.clawdbot\\agents',
      'openclaw sessions C:\\Users\\dev\\.moltbot\\agents',
      'openclaw sessions C:\\Users\\dev\\.moldbot\\agents',
      'amp threads C:\\Users\\dev\\.local\\share\\amp\\threads',
      'kimi sessions C:\\Users\\dev\\.kimi\\sessions',
      'kimi sessions C:\\Users\\dev\\.kimi-code\\sessions',
      'droid sessions C:\\Users\\dev\\.factory\\sessions',
      'qwen projects C:\\Users\\dev\\.qwen\\projects',
      'continue sessions C:\\Users\\dev\\.continue\\sessions',
      'copilot sessions C:\\Users\\dev\\.copilot\\session-state',
      'copilot archived sessions C:\\Users\\dev\\.copilot\\history-session-state',
      'crush projects C:\\Users\\dev\\AppData\\Local\\crush (LOCALAPPDATA)',
      'zed database C:\\Users\\dev\\AppData\\Local\\Zed\\threads (LOCALAPPDATA)',
      'hermes database C:\\Users\\dev\\.hermes',
    ]);
  });

  it("puts Zed's data folder where Zed's paths.rs does: Application Support on macOS, %LOCALAPPDATA%, Flatpak's", () => {
    const zedAt = (environment: SourceEnvironment) => locations(environment).filter((l) => l.startsWith('zed'));
    expect(zedAt({ home: '/Users/dev', env: {}, platform: 'darwin' })).toEqual(['zed database /Users/dev/Library/Application Support/Zed/threads']);
    expect(zedAt({ home: 'C:\\Users\\dev', env: { LOCALAPPDATA: 'D:\\Local' }, platform: 'win32' })).toEqual([
      'zed database D:\\Local\\Zed\\threads (LOCALAPPDATA)',
    ]);
    expect(
      zedAt({ home: '/home/dev', env: { FLATPAK_XDG_DATA_HOME: '/home/dev/.var/app/dev.zed.Zed/data', XDG_DATA_HOME: '/work/data' }, platform: 'linux' }),
    ).toEqual(['zed database /home/dev/.var/app/dev.zed.Zed/data/zed/threads (FLATPAK_XDG_DATA_HOME)']);
  });

  it('falls back to <home>\\AppData\\Roaming on Windows when APPDATA is not set', () => {
    const windows = locations({ home: 'C:\\Users\\dev', env: {}, platform: 'win32' });
    expect(windows.filter((l) => /^(goose|crush)/.test(l))).toEqual([
      'goose database C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions',
      'goose sessions C:\\Users\\dev\\AppData\\Roaming\\Block\\goose\\data\\sessions',
      'crush projects C:\\Users\\dev\\AppData\\Local\\crush',
    ]);
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
      PI_CODING_AGENT_DIR: '~/pi-agent',
      OPENCLAW_STATE_DIR: '/work/openclaw',
      QWEN_RUNTIME_DIR: '/work/qwen',
      CONTINUE_GLOBAL_DIR: '/work/continue',
      COPILOT_HOME: '~/copilot-home',
      CRUSH_GLOBAL_DATA: '/work/crush',
      HERMES_HOME: '~/hermes-home',
    };
    const found = locations({ home: '/home/dev', env, platform: 'linux' });
    expect(found.filter((l) => !/Code - |VSCodium|Cursor|Windsurf|roo-code|kilo-code/.test(l))).toEqual([
      'claude-code projects /work/claude-a/projects (CLAUDE_CONFIG_DIR)',
      'claude-code projects /home/dev/claude-b/projects (CLAUDE_CONFIG_DIR)',
      'codex sessions /work/codex/sessions (CODEX_HOME)',
      'codex archived sessions /work/codex/archived_sessions (CODEX_HOME)',
      'gemini chats /work/gemini-home/.gemini/tmp (GEMINI_CLI_HOME)',
      'gemini checkpoints /work/gemini-home/.gemini/tmp (GEMINI_CLI_HOME)',
      'cline tasks /work/config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks (XDG_CONFIG_HOME)',
      'cline tasks /work/cline/data/tasks (CLINE_DIR)',
      'cline sessions /work/cline/data/sessions (CLINE_DIR)',
      'opencode database /work/data/opencode (XDG_DATA_HOME)',
      'opencode storage /work/data/opencode (XDG_DATA_HOME)',
      'kilo database /work/data/kilo (XDG_DATA_HOME)',
      'goose database /work/goose/data/sessions (GOOSE_PATH_ROOT)',
      'goose sessions /work/goose/data/sessions (GOOSE_PATH_ROOT)',
      'pi sessions /home/dev/pi-agent/sessions (PI_CODING_AGENT_DIR)',
      'openclaw sessions /work/openclaw/agents (OPENCLAW_STATE_DIR)',
      'amp threads /work/data/amp/threads (XDG_DATA_HOME)',
      'kimi sessions /home/dev/.kimi/sessions',
      'kimi sessions /home/dev/.kimi-code/sessions',
      'droid sessions /home/dev/.factory/sessions',
      'qwen projects /work/qwen/projects (QWEN_RUNTIME_DIR)',
      'continue sessions /work/continue/sessions (CONTINUE_GLOBAL_DIR)',
      'copilot sessions /home/dev/copilot-home/session-state (COPILOT_HOME)',
      'copilot archived sessions /home/dev/copilot-home/history-session-state (COPILOT_HOME)',
      'crush projects /work/crush (CRUSH_GLOBAL_DATA)',
      'zed database /work/data/zed/threads (XDG_DATA_HOME)',
      'hermes database /home/dev/hermes-home (HERMES_HOME)',
    ]);
  });

  it("takes ccusage's lists of pi's sessions folders and OpenClaw's state folders first, and OpenClaw's own home", () => {
    const ccusage = locations({
      home: '/home/dev',
      env: { PI_AGENT_DIR: '/a/sessions,~/b', OPENCLAW_DIR: '/c', PI_CODING_AGENT_DIR: '/x', OPENCLAW_STATE_DIR: '/y' },
      platform: 'linux',
    });
    expect(ccusage.filter((l) => /^(pi|openclaw) /.test(l))).toEqual([
      'pi sessions /a/sessions (PI_AGENT_DIR)',
      'pi sessions /home/dev/b (PI_AGENT_DIR)',
      'openclaw sessions /c/agents (OPENCLAW_DIR)',
    ]);
    const openclaw = locations({ home: '/home/dev', env: { OPENCLAW_HOME: '/srv/bot', CLAWDBOT_STATE_DIR: ' ' }, platform: 'linux' });
    expect(openclaw.filter((l) => l.startsWith('openclaw')).slice(0, 2)).toEqual([
      'openclaw sessions /srv/bot/.openclaw/agents (OPENCLAW_HOME)',
      'openclaw sessions /srv/bot/.clawdbot/agents (OPENCLAW_HOME)',
    ]);
  });

  it('follows the variables Amp, Kimi CLI, Kimi Code and Droid are pointed with (ccusage takes comma-separated lists)', () => {
    const env = { AMP_DATA_DIR: '/work/amp-a,/work/amp-b', KIMI_SHARE_DIR: '/work/kimi', KIMI_CODE_HOME: '/work/kimi-code', DROID_SESSIONS_DIR: '/work/droid' };
    const found = locations({ home: '/home/dev', env, platform: 'linux' });
    expect(found.filter((l) => /^(amp|kimi|droid) /.test(l))).toEqual([
      'amp threads /work/amp-a/threads (AMP_DATA_DIR)',
      'amp threads /work/amp-b/threads (AMP_DATA_DIR)',
      'kimi sessions /work/kimi/sessions (KIMI_SHARE_DIR)',
      'kimi sessions /work/kimi-code/sessions (KIMI_CODE_HOME)',
      'droid sessions /work/droid (DROID_SESSIONS_DIR)',
    ]);
    const kimiData = locations({ home: '/home/dev', env: { KIMI_DATA_DIR: '/work/k1,/work/k2' }, platform: 'linux' });
    expect(kimiData.filter((l) => l.startsWith('kimi'))).toEqual([
      'kimi sessions /work/k1/sessions (KIMI_DATA_DIR)',
      'kimi sessions /work/k2/sessions (KIMI_DATA_DIR)',
      'kimi sessions /home/dev/.kimi-code/sessions',
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
      'roo-code tasks /apps/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /apps/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_APPDATA)',
      'roo-code tasks /usb/vscode/user-data/User/globalStorage/rooveterinaryinc.roo-cline/tasks (VSCODE_PORTABLE)',
    ]);
  });
});
