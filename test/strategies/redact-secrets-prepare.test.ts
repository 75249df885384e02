import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/**
 * Runs `body` in a fresh Node process against the built modules, so no module this test file loaded (vitest's
 * thread has the detector through other imports) is loaded there; prints what the body returns, as JSON.
 */
function inFreshThread(body: string): unknown {
  const at = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', path)).href);
  const script = `
    const { STRATEGIES } = await import(${at('strategies/registry.js')});
    const { prepareStrategies } = await import(${at('strategies/runner.js')});
    const { loadedDetector } = await import(${at('secrets/loaded-detector.js')});
    const redact = STRATEGIES['redact-secrets'];
    const transcript = { id: 't', messages: [{ role: 'user', content: 'my token ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' }] };
    const attempt = () => { try { return redact.apply(transcript, { except: [] }).transcript.messages[0].content; } catch (err) { return err.code; } };
    console.log(JSON.stringify(await (async () => { ${body} })()));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('redact-secrets loads its rules when prepared', () => {
  it('the registry alone loads no secret rules', () => {
    expect(inFreshThread('return loadedDetector() === undefined;')).toBe(true);
  });

  it('applied before its preparation, it fails with E_NOT_PREPARED rather than leave a secret in', () => {
    expect(inFreshThread('return attempt();')).toBe('E_NOT_PREPARED');
  });

  it('once prepared, it redacts', () => {
    const out = inFreshThread(`await prepareStrategies([redact]); return attempt();`);
    expect(out).toBe('my token [secret: github-token]');
  });
});
