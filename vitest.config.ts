import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take the longest (those that start child processes, worker pools or Redis, and the runtimes' agent
 * loops over whole sessions) start first, whatever the cache of past durations says (a fresh clone has none), so the
 * run does not end waiting on one of them alone.
 */
const LONG_FIRST = [
  'test/pipeline/executors/queue/distributed-run.test.ts',
  'test/tune/exports.test.ts',
  'test/cli/sources.test.ts',
  'test/adapters/langchain.test.ts',
  'test/pipeline/batch-run.test.ts',
  'test/report/html-pages.test.ts',
  'test/reliability/disk-full.test.ts',
  'test/adapters/ai-sdk.test.ts',
  'test/adapters/anthropic.test.ts',
  'test/reliability/worker-faults.test.ts',
  'test/reliability/interrupt-resume.test.ts',
  'test/reliability/determinism.test.ts',
  'test/cli/eval-simulate-tune.test.ts',
  'test/cli/compact.test.ts',
  'test/pipeline/llm-run.test.ts',
  'test/cli/view.test.ts',
  'test/cli/run.test.ts',
  'test/pipeline/executors/queue/distributed-llm.test.ts',
];
// A file moved without this list following it would quietly start last again.
for (const path of LONG_FIRST)
  if (!existsSync(new URL(path, import.meta.url))) throw new Error(`vitest.config.ts: LONG_FIRST lists ${path}, which does not exist`);

class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => LONG_FIRST.findIndex((path) => f.moduleId.endsWith(path));
    return [...sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b)), ...sorted.filter((f) => rank(f) < 0)];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Sized for 2-core machines, where the worker-pool tests spawn their own threads. A third file keeps the cores busy
    // while others wait on a child process, Redis or Chromium: with two, the cores were idle an eighth of the suite
    // (user+sys 362 s over 206 s), and a third cut the suite to 187 s for the same CPU.
    maxWorkers: 3,
    // Test files share the modules their process has loaded: importing the sources again for each of some hundred files
    // cost about a third of the suite's time. Every file stays independent of the others' module state (none mocks a
    // module), and runs alone as well as in any order.
    isolate: false,
    sequence: { sequencer: LongFirstSequencer },
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-temp.ts'],
  },
});
