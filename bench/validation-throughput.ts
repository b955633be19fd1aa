import { validateToolArguments } from '@mariozechner/pi-ai';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  emptyUsage,
  indexTools,
  preflightToolCall,
  validateArguments,
  type AssistantMessage,
  type ToolCall,
  type ToolSpec,
} from '../src/core/index.js';
import { median, ratio, round } from './statistics.js';

const editSchema = Type.Object({
  path: Type.String(),
  edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }), {
    minItems: 1,
  }),
});
const readSchema = Type.Object({
  path: Type.String(),
  offset: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  mode: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('lines')])),
  follow: Type.Optional(Type.Boolean()),
});

interface Case {
  schemaName: string;
  schema: TSchema;
  kind: 'valid' | 'coercion' | 'invalid';
  args: unknown;
}

const cases: Case[] = [
  {
    schemaName: 'edit',
    schema: editSchema,
    kind: 'valid',
    args: {
      path: 'src/a.ts',
      edits: [
        { oldText: 'a', newText: 'b' },
        { oldText: 'c', newText: 'd' },
      ],
    },
  },
  {
    schemaName: 'edit',
    schema: editSchema,
    kind: 'coercion',
    args: { path: 42, edits: [{ oldText: 1, newText: true }] },
  },
  {
    schemaName: 'edit',
    schema: editSchema,
    kind: 'invalid',
    args: { path: 'a', edits: [{ oldText: ['x'] }] },
  },
  {
    schemaName: 'read',
    schema: readSchema,
    kind: 'valid',
    args: { path: 'a', offset: 3, limit: 10 },
  },
  {
    schemaName: 'read',
    schema: readSchema,
    kind: 'coercion',
    args: { path: 'a', offset: '3', limit: '10', follow: 'true' },
  },
  {
    schemaName: 'read',
    schema: readSchema,
    kind: 'invalid',
    args: { path: 7, offset: 'soon', mode: 'binary' },
  },
];

const assistant: AssistantMessage = {
  role: 'assistant',
  content: [],
  usage: emptyUsage(),
  stopReason: 'toolUse',
  timestamp: 0,
};

/** Calls per second of `work`, timed over about `milliseconds`. */
async function callsPerSecond(work: () => unknown, milliseconds: number): Promise<number> {
  for (let warm = 0; warm < 2000; warm += 1) await work();
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < milliseconds) {
    for (let batch = 0; batch < 200; batch += 1) await work();
    calls += 200;
  }
  return calls / ((performance.now() - started) / 1000);
}

/**
 * Our validation (clone, coerce, AJV) and our whole preflight, against pi-ai's
 * `validateToolArguments`, on the same schema objects and the same inputs, in one process.
 */
export async function benchValidation(repetitions: number, milliseconds = 700) {
  const rows = [];
  for (const entry of cases) {
    const tool: ToolSpec = {
      name: entry.schemaName,
      label: '',
      description: '',
      parameters: entry.schema,
    };
    const tools = indexTools([tool]);
    const toolCall: ToolCall = {
      type: 'toolCall',
      id: 'c',
      name: tool.name,
      arguments: entry.args,
    };
    const piTool = { name: tool.name, description: '', parameters: entry.schema };
    const piValidate = () => {
      try {
        return validateToolArguments(piTool, toolCall as never) as unknown;
      } catch (error) {
        return error;
      }
    };
    const ours = () => validateArguments(tool.name, tool.parameters, entry.args);
    const preflight = () =>
      preflightToolCall({
        assistantMessage: assistant,
        toolCall,
        tools,
        context: { systemPrompt: '', messages: [], tools: [tool] },
        isAborted: () => false,
      });
    const measures = { ours: [] as number[], preflight: [] as number[], pi: [] as number[] };
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      measures.pi.push(await callsPerSecond(piValidate, milliseconds));
      measures.ours.push(await callsPerSecond(ours, milliseconds));
      measures.preflight.push(await callsPerSecond(preflight, milliseconds));
    }
    const ourRate = median(measures.ours);
    const preflightRate = median(measures.preflight);
    const piRate = median(measures.pi);
    rows.push({
      schema: entry.schemaName,
      input: entry.kind,
      oursPerSecond: round(ourRate, 0),
      preflightPerSecond: round(preflightRate, 0),
      piPerSecond: round(piRate, 0),
      validationRatio: ratio(ourRate, piRate),
      preflightRatio: ratio(preflightRate, piRate),
    });
  }
  return rows;
}
