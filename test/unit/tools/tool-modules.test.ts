import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBatchFile, toolModulesOfBatchFile } from '../../../src/batch/task-file.js';
import {
  loadToolModules,
  toolModuleList,
  toolNamesOfModules,
} from '../../../src/cli/tool-modules.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import { buildJobInput } from '../../../src/job-input/build-job-input.js';
import { builtinToolList } from '../../../src/tools/index.js';
import { defineTool } from '../../../src/tools/user/define-tool.js';
import { ToolRegistrationError, workerToolList } from '../../../src/tools/user/worker-tools.js';

/** A folder with a scripted model, a workspace, and tool modules written as users write them. */
function project() {
  const folder = mkdtempSync(join(tmpdir(), 'dar-tool-modules-'));
  mkdirSync(join(folder, 'work'));
  writeFileSync(
    join(folder, 'script.json'),
    JSON.stringify([{ content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }]),
  );
  // A Pi AgentTool, a defineTool-shaped tool in a default array, and exports that are not tools.
  writeFileSync(
    join(folder, 'tools.mjs'),
    `export const echo = {
  name: 'echo', label: 'Echo', description: 'Echoes.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  async execute(id, params) { return { content: [{ type: 'text', text: params.text }], details: {} }; },
};
export default [{ spec: { name: 'count', label: 'Count', description: 'Counts.', parameters: { type: 'object' } },
  async execute() { return { content: [] }; } }];
export const version = 3;
export function helper() {}
`,
  );
  writeFileSync(join(folder, 'empty.mjs'), 'export const nothing = 1;\n');
  return folder;
}

test('a tool module gives every tool it exports (default first), Pi AgentTools and defineTool tools alike', async () => {
  const folder = project();
  const modules = await loadToolModules([join(folder, 'tools.mjs')]);
  expect(toolNamesOfModules(modules).get(join(folder, 'tools.mjs'))).toEqual(['count', 'echo']);
});

test('a module without tools, or one that cannot load, is a usage error naming it', async () => {
  const folder = project();
  await expect(loadToolModules([join(folder, 'empty.mjs')])).rejects.toThrow(
    new UsageError(
      `Tool module ${join(folder, 'empty.mjs')} exports no tool (export tools made by defineTool, or Pi AgentTools)`,
    ),
  );
  await expect(loadToolModules([join(folder, 'missing.mjs')])).rejects.toThrow(/cannot be loaded/);
});

test('--tools mixes built-in names and modules; a module stands for all its tools', async () => {
  const folder = project();
  const modules = toolNamesOfModules(await loadToolModules([join(folder, 'tools.mjs')]));
  const flags = { prompt: 'p', model: 'scripted:script.json', workspace: 'work' };
  expect(buildJobInput({ ...flags, tools: 'read,./tools.mjs' }, folder, modules).tools).toEqual([
    'read',
    'count',
    'echo',
  ]);
  // An empty list is a job with no tools (one that only answers); empty entries are skipped.
  expect(buildJobInput({ ...flags, tools: '' }, folder, modules).tools).toEqual([]);
  expect(buildJobInput({ ...flags, tools: 'read,,ls,' }, folder, modules).tools).toEqual([
    'read',
    'ls',
  ]);
  expect(() => buildJobInput({ ...flags, tools: 'read,teleport' }, folder, modules)).toThrow(
    /Unknown tool teleport in --tools/,
  );
  expect(toolModuleList('./tools.mjs', folder)).toEqual([join(folder, 'tools.mjs')]);
  expect(() => toolModuleList('read,./tools.mjs', folder)).toThrow(/not tool names: read/);
});

test('dar run --tools may name the tools of MCP servers it was given', () => {
  const folder = project();
  const flags = { prompt: 'p', model: 'scripted:script.json', workspace: 'work' };
  const mcpTools = ['fs__read_text_file', 'fs__write_file'];
  expect(
    buildJobInput({ ...flags, tools: 'read,fs__read_text_file' }, folder, new Map(), mcpTools)
      .tools,
  ).toEqual(['read', 'fs__read_text_file']);
  expect(() =>
    buildJobInput({ ...flags, tools: 'fs__delete_everything' }, folder, new Map(), mcpTools),
  ).toThrow(/Unknown tool fs__delete_everything in --tools/);
});

test("a batch line's tools may name modules, relative to the batch file's folder", async () => {
  const folder = project();
  const file = join(folder, 'tasks.jsonl');
  const text = [
    JSON.stringify({
      prompt: 'a',
      model: 'script.json',
      workspace: 'work',
      tools: ['ls', './tools.mjs'],
    }),
    'not json',
  ].join('\n');
  expect(toolModulesOfBatchFile(file, text)).toEqual([join(folder, 'tools.mjs')]);
  const modules = toolNamesOfModules(await loadToolModules(toolModulesOfBatchFile(file, text)));
  const good = text.split('\n')[0] ?? '';
  const [task] = parseBatchFile(
    file,
    good.replace('script.json', 'scripted:script.json'),
    {},
    modules,
  );
  expect(task?.input.tools).toEqual(['ls', 'count', 'echo']);
});

test('a worker refuses a tool named like a built-in or named twice, and a schema that does not compile', () => {
  const tool = (name: string, parameters: object = { type: 'object' }) =>
    defineTool({ name, description: 'd', parameters, execute: async () => ({ content: [] }) });
  expect(workerToolList(builtinToolList, [tool('mine')]).map((each) => each.spec.name)).toContain(
    'mine',
  );
  expect(() => workerToolList(builtinToolList, [tool('read')])).toThrow(ToolRegistrationError);
  expect(() => workerToolList(builtinToolList, [tool('twice'), tool('twice')])).toThrow(
    'Tool name twice is given twice',
  );
  expect(() => workerToolList(builtinToolList, [tool('bad', { type: 'no-such-type' })])).toThrow(
    /its parameters schema is invalid/,
  );
  // Patterns are matched by RE2 in the workflow: one with a lookahead cannot be checked there.
  const lookahead = {
    type: 'object',
    properties: { tag: { type: 'string', pattern: '^(?!x)\\w+$' } },
  };
  expect(() => workerToolList(builtinToolList, [tool('tag', lookahead)])).toThrow(
    /Tool tag: its parameters schema is invalid \(the pattern .* is not one the linear-time matcher \(RE2\) accepts/,
  );
  const plain = { type: 'object', properties: { tag: { type: 'string', pattern: '^\\w+$' } } };
  expect(workerToolList(builtinToolList, [tool('tag', plain)]).at(-1)?.spec.name).toBe('tag');
});
