// Runs one command through the built `runCommand`, as a worker's bash tool does, and stays
// until it ends: the process a test kills to stand for a worker that dies mid-call.
// Arguments: the built run-command module, the working folder, the command.
const [modulePath, cwd, command] = process.argv.slice(2);
const { runCommand } = await import(modulePath);
const outcome = await runCommand({
  command,
  cwd,
  timeoutMs: 120_000,
  signal: new globalThis.AbortController().signal,
  heartbeat: () => undefined,
});
process.stdout.write(JSON.stringify(outcome));
