// Baseline: read the file and nothing else (the I/O floor). Prints {"bytes": N}.
import { createReadStream } from 'node:fs';

let bytes = 0;
for await (const chunk of createReadStream(process.argv[2], { highWaterMark: 1 << 20 })) bytes += chunk.length;
process.stdout.write(JSON.stringify({ bytes }));
