// Preloaded into the CLI by huge-line.test.ts: prints the process's peak resident set size when it exits.
process.on('exit', () => {
  process.stderr.write(`peak-rss-kb ${process.resourceUsage().maxRSS}\n`);
});
