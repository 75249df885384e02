import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/**
 * A real redis-server (the Debian package) on a free loopback port, persistence off, started and stopped by the test
 * itself. Where it is not installed the suite skips with a one-line notice, unless TCOMPACT_REQUIRE_SERVICES=1 (set by
 * .ci/run), which makes its absence a failure.
 */
export function redisServerAvailable(): boolean {
  let found = true;
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    found = false;
  }
  if (found) return true;
  if (process.env.TCOMPACT_REQUIRE_SERVICES === '1') throw new Error('redis-server is not installed, and TCOMPACT_REQUIRE_SERVICES=1 requires it');
  console.warn('distributed tests skipped: redis-server is not installed (apt-get install redis-server)');
  return false;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export class RedisServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly password: string,
  ) {}

  static async start(password: string): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), password);
    await server.restart();
    return server;
  }

  /** `redis://:PASSWORD@127.0.0.1:PORT` */
  get url(): string {
    return `redis://:${this.password}@127.0.0.1:${this.port}`;
  }

  /** (Re)starts the server on the same port; an empty database, as persistence is off. */
  async restart(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', this.password];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    const client = new Redis({ port: this.port, host: '127.0.0.1', password: this.password, lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    for (let i = 0; i < 100; i++) {
      try {
        await client.connect();
        await client.ping();
        client.disconnect();
        return;
      } catch {
        await sleep(50);
      }
    }
    client.disconnect();
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
