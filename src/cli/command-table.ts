/** A `dar` command: runs with the arguments after its name; resolves with the exit code. */
export type Command = (argv: string[]) => Promise<number>;

export interface CommandEntry {
  usage: string;
  /** What the command does, in one line. */
  summary: string;
  /**
   * Each flag and positional of the usage line, as written there (`--max-turns N`), with what it
   * does and its default where it has one (`dar help CMD` prints them).
   */
  options: ReadonlyArray<readonly [string, string]>;
  /** Loads the command's module: only the command that runs is loaded (`dar --help` loads none). */
  load: () => Promise<Command>;
}

const stateDirOption = [
  '--state-dir DIR',
  'Folder of the embedded server and job store (default: DAR_STATE_DIR, else ./.dar)',
] as const;

const mcpConfigOption = [
  '--mcp-config mcp.json',
  'Run the tools of the MCP servers this JSON file names (else DAR_MCP_CONFIG)',
] as const;

const modelRateOption = [
  '--model-rate PROVIDER=RATE[,concurrency=N]',
  "Pace a provider's model calls, e.g. openai=5/s (repeatable; wins over DAR_MODEL_RATE)",
] as const;

function decisionOptions(decision: 'approve' | 'deny'): ReadonlyArray<readonly [string, string]> {
  return [
    ['JOB', 'The job whose tool call waits for a decision'],
    ['CALL', 'The id of the waiting tool call, as `dar approvals` lists it'],
    [
      '--note TEXT',
      decision === 'deny'
        ? 'A note kept with the decision; the model reads it with the denial'
        : 'A note kept with the decision',
    ],
    ['--by NAME', 'Who decided, kept with the decision (default: your user name)'],
    ['--batch ID', `With --all: ${decision} every call waiting in this batch's jobs`],
    ['--all', 'With --batch: every waiting call of the batch, none named'],
    stateDirOption,
  ];
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
    summary:
      'Start an agent job and print its events as they happen, with a worker in this process.',
    options: [
      ['"<prompt>"', 'The task the agent is given'],
      [
        '--model PROVIDER:MODEL',
        'Required: the model, e.g. anthropic:ID or scripted:FILE (JSON answers)',
      ],
      ['--workspace DIR', 'The folder the tools work in (default: the current folder)'],
      [
        '--tools read,write,...',
        'Tools the job may call: names, tool modules ("": none; default: read,write,edit,ls,bash)',
      ],
      mcpConfigOption,
      ['--policy FILE', 'JSON rules that block tool calls or ask a human to approve them'],
      ['--tool-execution parallel|sequential', "How a turn's tool calls run (default: parallel)"],
      [
        '--id ID',
        "The job's workflow id (default: agent-<random>); the same id again attaches to it",
      ],
      ['--json', "Print the job's events as JSON, one a line, instead of text"],
      ['--live', 'With --json: also print live lines (token deltas, tool output)'],
      ['--detach', 'Start the job, print its id and return; a `dar worker` runs it'],
      [
        '--keep-open DURATION',
        'After each run, wait this long (30s, 10m, 2h) for a follow-up; unset: the job closes',
      ],
      ['--system-prompt TEXT', 'The system prompt (default: a one-line built-in prompt)'],
      [
        '--max-turns N',
        'Budget: at most N turns (model calls); a reached limit ends the job, exit 3',
      ],
      ['--max-tokens N', 'Budget: at most N tokens in all, as the providers report them'],
      ['--max-cost USD', 'Budget: at most this cost in US dollars, as the providers report it'],
      [
        '--max-time DURATION',
        'Budget: at most this wall time since the job started (90s, 30m, 2h)',
      ],
      [
        '--context-window N',
        "The model's context window in tokens, for compaction (default: pi-ai's registry)",
      ],
      ['--no-compaction', "Never compact the model's context"],
      stateDirOption,
    ],
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  batch: {
    usage:
      'dar batch FILE.jsonl [--concurrency N] [--model provider:id] [--results OUT.jsonl] ' +
      '[--batch-id ID] [--max-turns N] [--max-tokens N] [--max-cost USD] [--max-time DURATION] ' +
      '[--retry-failed] [--no-worker] [--model-rate PROVIDER=RATE[,concurrency=N]]... ' +
      '[--state-dir DIR]',
    summary:
      'Run a JSONL file of tasks as agent jobs, with a results file; running it again resumes it.',
    options: [
      ['FILE.jsonl', 'The tasks, one JSON object a line: prompt, and model, workspace, tools...'],
      ['--concurrency N', 'At most N jobs of the batch run at once, 1 to 1000 (default: 4)'],
      ['--model provider:id', 'The model of the tasks whose line names none'],
      ['--results OUT.jsonl', 'Where the results go (default: FILE.results.jsonl beside the file)'],
      ['--batch-id ID', "The batch's id (default: a hash of the file's path and contents)"],
      ['--max-turns N', 'Batch budget: at most N turns over all its jobs; then exit 3'],
      ['--max-tokens N', 'Batch budget: at most N tokens over all its jobs'],
      ['--max-cost USD', 'Batch budget: at most this cost in US dollars over all its jobs'],
      ['--max-time DURATION', 'Batch budget: at most this wall time for this run (90s, 30m, 2h)'],
      ['--retry-failed', 'Run failed tasks again as new attempts (results keep the failed ones)'],
      ['--no-worker', 'Run no worker here: `dar worker` processes on the task queue run the jobs'],
      modelRateOption,
      stateDirOption,
    ],
    load: async () => (await import('./commands/batch.js')).batchCommand,
  },
  worker: {
    usage:
      'dar worker [--tools ./my-tools.js,...] [--mcp-config mcp.json] [--model-rate PROVIDER=RATE[,concurrency=N]]... [--metrics-port N] [--state-dir DIR]',
    summary: 'Run the jobs of the task queue (detached, batch, resumed) until Ctrl-C or SIGTERM.',
    options: [
      [
        '--tools ./my-tools.js,...',
        'Tool modules whose tools this worker runs besides the built-in ones',
      ],
      mcpConfigOption,
      modelRateOption,
      [
        '--metrics-port N',
        'Serve Prometheus metrics on this port (else DAR_METRICS_PORT; unset: none)',
      ],
      stateDirOption,
    ],
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
  events: {
    usage: 'dar events ID [--follow] [--json [--live]] [--after SEQ[:LIVESEQ]] [--state-dir DIR]',
    summary: "Print a job's events; a finished job's are read from the job store alone.",
    options: [
      ['ID', "The job's id"],
      ['--follow', 'Print events as they happen, until the run ends (a waiting job: the next run)'],
      ['--json', 'Print one JSON event a line, with its seq, instead of text'],
      ['--live', 'With --json --follow: also print live lines (token deltas, tool output)'],
      [
        '--after SEQ[:LIVESEQ]',
        'Only the events after this seq, and live lines after LIVESEQ (default: 0)',
      ],
      stateDirOption,
    ],
    load: async () => (await import('./commands/events.js')).eventsCommand,
  },
  status: {
    usage: 'dar status ID [--json] [--state-dir DIR]',
    summary: "Show a job's phase, turns, tokens, cost, budget use and, once ended, its outcome.",
    options: [
      ['ID', "The job's id"],
      ['--json', 'Print the status as one JSON object'],
      stateDirOption,
    ],
    load: async () => (await import('./commands/status.js')).statusCommand,
  },
  list: {
    usage:
      'dar list [--batch ID] [--phase running|model|tools|approval|waiting|done] [--limit N] [--json] ' +
      '[--state-dir DIR]',
    summary: 'List jobs in a table: status, phase, turns, batch and start time.',
    options: [
      ['--batch ID', 'Only the jobs of this batch'],
      [
        '--phase running|model|tools|approval|waiting|done',
        'Only the jobs in this phase (model and tools: the running ones in that step)',
      ],
      ['--limit N', 'At most N jobs (default: 50)'],
      ['--json', 'One JSON object a job: id, status, started, closed, phase, turns, batch'],
      stateDirOption,
    ],
    load: async () => (await import('./commands/list.js')).listCommand,
  },
  prune: {
    usage:
      'dar prune --older-than DURATION [--grace DURATION] [--apply] [--forget-unfinished] [--json] ' +
      '[--state-dir DIR]',
    summary:
      'Free the job store: delete jobs that ended long ago, and the objects no other job reaches.',
    options: [
      [
        '--older-than DURATION',
        'Required: delete jobs that ended longer ago than this, e.g. 30d, 12h, 90m (0d: every one)',
      ],
      [
        '--grace DURATION',
        'Keep objects put this recently or since the oldest running job began (default 1h, min 20m)',
      ],
      ['--apply', 'Delete; without it, only report what would go (a dry run)'],
      [
        '--forget-unfinished',
        'Also delete old jobs Temporal no longer knows that stored no ending (terminated ones)',
      ],
      ['--json', 'The report as one JSON object'],
      stateDirOption,
    ],
    load: async () => (await import('./commands/prune.js')).pruneCommand,
  },
  cancel: {
    usage: 'dar cancel ID | --batch ID [--state-dir DIR]',
    summary: 'Cancel a running job, or all running jobs of a batch: running tools are stopped.',
    options: [
      ['ID', 'The job to cancel'],
      ['--batch ID', 'Instead: cancel every running job of this batch'],
      stateDirOption,
    ],
    load: async () => (await import('./commands/control.js')).cancelCommand,
  },
  steer: {
    usage: 'dar steer ID "<text>" [--state-dir DIR]',
    summary: 'Queue a message for a running job, injected before its next model call.',
    options: [['ID', 'The running job'], ['"<text>"', 'The message'], stateDirOption],
    load: async () => (await import('./commands/control.js')).messageCommand('steer'),
  },
  'follow-up': {
    usage: 'dar follow-up ID "<text>" [--state-dir DIR]',
    summary: 'Queue a message for a running job: it starts another turn when the agent would stop.',
    options: [['ID', 'The running job'], ['"<text>"', 'The message'], stateDirOption],
    load: async () => (await import('./commands/control.js')).messageCommand('follow-up'),
  },
  approvals: {
    usage: 'dar approvals [--batch ID] [--json] [--state-dir DIR]',
    summary: 'List the tool calls that wait for an approval decision, across running jobs.',
    options: [
      ['--batch ID', "Only the calls of this batch's jobs"],
      ['--json', 'One JSON object a waiting call'],
      stateDirOption,
    ],
    load: async () => (await import('./commands/approvals.js')).approvalsCommand,
  },
  approve: {
    usage:
      'dar approve JOB CALL [--note TEXT] [--by NAME] | --batch ID --all [--note TEXT] [--state-dir DIR]',
    summary: 'Approve a tool call that waits for a decision, or every waiting call of a batch.',
    options: decisionOptions('approve'),
    load: async () => (await import('./commands/approvals.js')).decideCommand('approve'),
  },
  deny: {
    usage:
      'dar deny JOB CALL [--note TEXT] [--by NAME] | --batch ID --all [--note TEXT] [--state-dir DIR]',
    summary: 'Deny a tool call that waits for a decision, or every waiting call of a batch.',
    options: decisionOptions('deny'),
    load: async () => (await import('./commands/approvals.js')).decideCommand('deny'),
  },
  ui: {
    usage: 'dar ui [--host 127.0.0.1] [--port 0|N] [--token T] [--state-dir DIR]',
    summary: 'Serve the operator console (jobs, live events, cancel, approvals) until Ctrl-C.',
    options: [
      ['--host 127.0.0.1', 'The interface to listen on (default: 127.0.0.1, this machine only)'],
      ['--port 0|N', 'The port to listen on (default: 0, any free one)'],
      [
        '--token T',
        'The access token, 16 characters or more (else DAR_UI_TOKEN; unset: a random one)',
      ],
      stateDirOption,
    ],
    load: async () => (await import('./commands/ui.js')).uiCommand,
  },
  server: {
    usage: 'dar server [stop] [--state-dir DIR]',
    summary: 'Run the embedded Temporal dev server in the foreground, or stop it.',
    options: [['stop', 'Stop the embedded server of the state folder instead'], stateDirOption],
    load: async () => (await import('./commands/server.js')).serverCommand,
  },
  'codec-server': {
    usage: 'dar codec-server [--port N] [--host ADDRESS] [--cors-origin URL]... [--token TOKEN]',
    summary:
      "Serve Temporal's codec protocol with this environment's encryption keys, until Ctrl-C.",
    options: [
      ['--port N', 'The port to listen on (default: 8888)'],
      ['--host ADDRESS', 'The interface to listen on (default: 127.0.0.1)'],
      [
        '--cors-origin URL',
        'A Temporal UI origin browsers may call it from (repeatable; * for any)',
      ],
      [
        '--token TOKEN',
        'The bearer token every request needs (else DAR_CODEC_SERVER_TOKEN; unset: none)',
      ],
    ],
    load: async () => (await import('./commands/codec-server.js')).codecServerCommand,
  },
};
