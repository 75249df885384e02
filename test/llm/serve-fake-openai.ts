/**
 * The loopback OpenAI server of the tests, standalone, for trying tcompact by hand (chat completions and the Batch API):
 *
 *   npx tsx test/llm/serve-fake-openai.ts [PORT]
 *
 * Prints its base URL, then one line per batch created and a count of requests on exit (Ctrl-C).
 */
import { startFakeOpenAI } from './fake-openai-server.js';

const port = process.argv[2] === undefined ? 0 : Number(process.argv[2]);
const server = await startFakeOpenAI({
  port,
  onBatchCreated: (b) => process.stdout.write(`batch created: ${b.id} (${b.lines.length} requests, input ${b.inputFileId})\n`),
});
process.stdout.write(`listening: ${server.baseURL}\n`);
const stop = async (): Promise<void> => {
  process.stdout.write(
    `online chat requests: ${server.requests.length}; batches: ${server.batches.length}; batch lines: ${server.batches.reduce((n, b) => n + b.lines.length, 0)}\n`,
  );
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
