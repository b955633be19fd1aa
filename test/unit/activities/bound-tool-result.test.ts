import { boundToolResult } from '../../../src/activities/bound-tool-result.js';
import { canonicalJson } from '../../../src/store/canonical-json.js';
import {
  MAXIMUM_TOOL_DETAILS_LENGTH,
  MAXIMUM_TOOL_OUTPUT_BYTES,
  type ToolExecutionResult,
} from '../../../src/core/index.js';

function textOf(result: ToolExecutionResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('tool output bounds (every tool, in the executeTool activity)', () => {
  test('a result within the limits is kept as it is', () => {
    const result = { content: [{ type: 'text' as const, text: 'hello' }], details: { a: 1 } };
    expect(boundToolResult(result)).toEqual(result);
  });

  test('text over the limit is cut at the byte limit with a note of the bytes dropped', () => {
    const text = 'é'.repeat(MAXIMUM_TOOL_OUTPUT_BYTES); // two bytes each
    const bounded = boundToolResult({ content: [{ type: 'text', text }] });
    const kept = bounded.content[0];
    expect(kept?.type === 'text' && Buffer.byteLength(kept.text)).toBe(MAXIMUM_TOOL_OUTPUT_BYTES);
    expect(textOf(bounded)).toContain(
      `[Output cut: ${MAXIMUM_TOOL_OUTPUT_BYTES} of ${2 * MAXIMUM_TOOL_OUTPUT_BYTES} bytes dropped`,
    );
  });

  test('the limit is over all text blocks of a result; a cut never splits a character', () => {
    const half = 'x'.repeat(MAXIMUM_TOOL_OUTPUT_BYTES - 1);
    const bounded = boundToolResult({
      content: [
        { type: 'text', text: half },
        { type: 'text', text: '😀 more' },
        { type: 'text', text: 'dropped entirely' },
      ],
    });
    const texts = bounded.content.map((block) => (block.type === 'text' ? block.text : ''));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe(half);
    expect(texts[1]).toMatch(/^\n\[Output cut: 25 of 51224 bytes dropped/);
  });

  test('details over their limit are replaced by a note; small details are kept', () => {
    const bounded = boundToolResult({
      content: [],
      details: { blob: 'd'.repeat(MAXIMUM_TOOL_DETAILS_LENGTH) },
    });
    expect(Object.keys(bounded.details as object)).toEqual(['omitted']);
    expect((bounded.details as { omitted: string }).omitted).toMatch(
      /^The tool's details were dropped: \d+ characters of JSON/,
    );
  });

  test('an image over its limit becomes a note', () => {
    const bounded = boundToolResult({
      content: [{ type: 'image', data: 'A'.repeat(2_000_000), mimeType: 'image/png' }],
    });
    expect(textOf(bounded)).toMatch(/^\[Image dropped: 2000000 characters of base64/);
  });

  test('the result is plain JSON as JSON carries it, so that the store keeps it (canonical JSON)', () => {
    const bounded = boundToolResult({
      content: [{ type: 'text', text: 'ok' }],
      details: { at: new Date(0), ratio: Number.NaN, list: [undefined], gone: undefined },
      usage: {
        input: Number.POSITIVE_INFINITY,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 1,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
    });
    expect(bounded.details).toEqual({ at: '1970-01-01T00:00:00.000Z', ratio: null, list: [null] });
    expect(bounded.usage?.input).toBeNull();
    expect(() =>
      canonicalJson({ content: bounded.content, details: bounded.details }),
    ).not.toThrow();
    expect(() => canonicalJson(bounded.usage)).not.toThrow();
  });

  test('what JSON cannot write at all (a cycle, a bigint) is replaced by a note', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const details = boundToolResult({ content: [], details: cycle }).details;
    expect(details).toEqual({ omitted: expect.stringMatching(/JSON cannot write them/) as string });
    const content = boundToolResult({
      content: [{ type: 'text', text: 'x', extra: 10n } as never],
      details: 10n,
    });
    expect(textOf(content)).toMatch(/^\[The tool's output was dropped: JSON cannot write it/);
    expect(content.details).toEqual({ omitted: expect.stringMatching(/JSON cannot/) as string });
  });
});
