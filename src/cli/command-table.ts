/** A `dar` command: runs with the arguments after its name; resolves with the exit code. */
export type Command = (argv: string[]) => Promise<number>;

export interface CommandEntry {
  usage: string;
  /** Loads the command's module: only the command that runs is loaded (`dar --help` loads none). */
  load: () => Promise<Command>;
}

/**
 * Every `dar` command, its usage line and where its code is. Command modules are imported when
 * their command runs, so that a command starts without loading the worker, the providers or the
 * Temporal client unless it needs them.
 */
export const commands: Readonly<Record<string, CommandEntry>> = {
  run: {
    usage:
      'dar run "<prompt>" --model PROVIDER:MODEL (scripted:FILE, anthropic:ID, openai:ID, openai-compatible:ID) [--workspace DIR] [--tools read,write,...] [--mcp-config mcp.json] ' +
      '[--policy FILE] [--tool-execution parallel|sequential] [--id ID] [--json [--live]] [--detach] ' +
      '[--keep-open DURATION] [--system-prompt TEXT] [--max-turns N] [--max-tokens N] ' +
      '[--max-cost USD] [--max-time DURATION] [--context-window N] [--no-compaction] ' +
      '[--state-dir DIR]',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  batch: {
    usage:
      'dar batch FILE.jsonl [--concurrency N] [--model provider:id] [--results OUT.jsonl] ' +
      '[--batch-id ID] [--max-turns N] [--max-tokens N] [--max-cost USD] [--max-time DURATION] ' +
      '[--retry-failed] [--no-worker] [--model-rate PROVIDER=RATE[,concurrency=N]]... ' +
      '[--state-dir DIR]',
    load: async () => (await import('./commands/batch.js')).batchCommand,
  },
  worker: {
    usage:
      'dar worker [--tools ./my-tools.js,...] [--mcp-config mcp.json] [--model-rate PROVIDER=RATE[,concurrency=N]]... [--metrics-port N] [--state-dir DIR]',
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
  events: {
    usage: 'dar events ID [--follow] [--json [--live]] [--after SEQ[:LIVESEQ]] [--state-dir DIR]',
    load: async () => (await import('./commands/events.js')).eventsCommand,
  },
  status: {
    usage: 'dar status ID [--json] [--state-dir DIR]',
    load: async () => (await import('./commands/status.js')).statusCommand,
  },
  list: {
    usage:
      'dar list [--batch ID] [--phase running|model|tools|approval|waiting|done] [--limit N] [--json] ' +
      '[--state-dir DIR]',
    load: async () => (await import('./commands/list.js')).listCommand,
  },
  cancel: {
    usage: 'dar cancel ID | --batch ID [--state-dir DIR]',
    load: async () => (await import('./commands/control.js')).cancelCommand,
  },
  steer: {
    usage: 'dar steer ID "<text>" [--state-dir DIR]',
    load: async () => (await import('./commands/control.js')).messageCommand('steer'),
  },
  'follow-up': {
    usage: 'dar follow-up ID "<text>" [--state-dir DIR]',
    load: async () => (await import('./commands/control.js')).messageCommand('follow-up'),
  },
  approvals: {
    usage: 'dar approvals [--batch ID] [--json] [--state-dir DIR]',
    load: async () => (await import('./commands/approvals.js')).approvalsCommand,
  },
  approve: {
    usage:
      'dar approve JOB CALL [--note TEXT] [--by NAME] | --batch ID --all [--note TEXT] [--state-dir DIR]',
    load: async () => (await import('./commands/approvals.js')).decideCommand('approve'),
  },
  deny: {
    usage:
      'dar deny JOB CALL [--note TEXT] [--by NAME] | --batch ID --all [--note TEXT] [--state-dir DIR]',
    load: async () => (await import('./commands/approvals.js')).decideCommand('deny'),
  },
  ui: {
    usage: 'dar ui [--host 127.0.0.1] [--port 0|N] [--token T] [--state-dir DIR]',
    load: async () => (await import('./commands/ui.js')).uiCommand,
  },
  server: {
    usage: 'dar server [stop] [--state-dir DIR]',
    load: async () => (await import('./commands/server.js')).serverCommand,
  },
  'codec-server': {
    usage: 'dar codec-server [--port N] [--host ADDRESS] [--cors-origin URL]... [--token TOKEN]',
    load: async () => (await import('./commands/codec-server.js')).codecServerCommand,
  },
};
