#!/usr/bin/env node
import { main } from './main.js';

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tcompact: internal error\n${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 70;
  },
);
