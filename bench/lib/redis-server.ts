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

/** Ports below Linux's ephemeral range (32768 and up), which the kernel never hands to another socket on its own. */
const FIXED_PORTS = { from: 20000, to: 32000 };

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port outside the ephemeral range: a server stopped and restarted on it (a test of a lost Redis)
 * must find it still free, which a port the kernel picked would not be once some other socket of the suite got it.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port from ${FIXED_PORTS.from} to ${FIXED_PORTS.to}`);
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
    // Timeouts: something else answering on the port must fail the probe, not hang it.
    const client = new Redis({
      port: this.port,
      host: '127.0.0.1',
      password: this.password,
      lazyConnect: true,
      retryStrategy: () => null,
      connectTimeout: 1000,
      commandTimeout: 1000,
    });
    client.on('error', () => undefined);
    const child = this.child;
    const deadline = Date.now() + 10_000;
    try {
      while (Date.now() < deadline && child.exitCode === null) {
        try {
          await client.connect();
          await client.ping();
          return;
        } catch {
          client.disconnect();
          await sleep(50);
        }
      }
    } finally {
      client.disconnect();
    }
    throw new Error(`redis-server did not start on port ${this.port}${child.exitCode === null ? '' : ` (it exited with ${child.exitCode})`}`);
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
