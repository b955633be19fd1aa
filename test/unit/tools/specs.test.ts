import { describeTool, sameToolDescriptors } from '../../../src/core/index.js';
import { builtinTools, builtinToolList } from '../../../src/tools/index.js';
import { builtinToolSpecList, builtinToolSpecs } from '../../../src/tools/specs/index.js';

describe('built-in tool specs and implementations', () => {
  it('pairs every spec with the body registered under the same name', () => {
    expect(Object.keys(builtinToolSpecs)).toEqual(['read', 'write', 'edit', 'ls', 'bash']);
    expect(Object.keys(builtinTools)).toEqual(Object.keys(builtinToolSpecs));
    for (const [name, spec] of Object.entries(builtinToolSpecs)) {
      expect(spec.name).toBe(name);
      expect(builtinTools[name as keyof typeof builtinTools].spec).toBe(spec);
    }
    expect(builtinToolSpecList.map((spec) => spec.name)).toEqual(Object.keys(builtinToolSpecs));
    expect(builtinToolList.map((tool) => tool.spec)).toEqual(builtinToolSpecList);
  });

  it('declares bash replay-unsafe and the file tools replay-safe, with retries', () => {
    expect(builtinToolSpecs.bash.replay).toBe('unsafe');
    expect(builtinToolSpecs.bash.activity.heartbeatTimeout).toBe('10s');
    for (const name of ['read', 'write', 'edit', 'ls'] as const) {
      expect(builtinToolSpecs[name].replay).toBe('safe');
      expect(builtinToolSpecs[name].activity.retry?.maximumAttempts).toBe(3);
    }
  });

  it('describes each tool to the model as plain JSON', () => {
    for (const spec of builtinToolSpecList) {
      const descriptor = describeTool(spec);
      expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
      expect(descriptor.description.length).toBeGreaterThan(20);
    }
  });

  it('knows the same descriptors built twice as the same, and any change as different', () => {
    const first = builtinToolSpecList.map(describeTool);
    const again = builtinToolSpecList.map(describeTool);
    expect(again).not.toBe(first);
    expect(sameToolDescriptors(first, again)).toBe(true);
    const [read, ...others] = again;
    if (read === undefined) throw new Error('no built-in tool');
    const changed = [
      others,
      [...others, read],
      [{ ...read, name: 'read2' }, ...others],
      [{ ...read, description: `${read.description}.` }, ...others],
      [{ ...read, parameters: { type: 'object', properties: {} } }, ...others],
    ];
    for (const descriptors of changed) expect(sameToolDescriptors(first, descriptors)).toBe(false);
  });
});
