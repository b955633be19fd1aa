import {
  ModelPacingError,
  describeModelPacing,
  modelPacingFrom,
  pacedProviders,
  parseModelPacing,
} from '../../../src/worker/model-pacing.js';
import { knownProviders } from '../../../src/providers/registry.js';
import { MODEL_QUEUE_PROVIDERS, modelTaskQueue } from '../../../src/workflows/model-task-queue.js';

/** The per-provider pacing setting of workers (`DAR_MODEL_RATE`, `--model-rate`). */

describe('parseModelPacing reads PROVIDER=RATE[,concurrency=N] entries', () => {
  test('rates per second, minute and hour, with and without rate=, and concurrency', () => {
    expect(parseModelPacing('openai=5/s,concurrency=4', '--model-rate')).toEqual({
      openai: { ratePerSecond: 5, concurrency: 4 },
    });
    expect(parseModelPacing('anthropic=120/m', 'X')).toEqual({ anthropic: { ratePerSecond: 2 } });
    expect(parseModelPacing('anthropic=rate=120/min', 'X')).toEqual({
      anthropic: { ratePerSecond: 2 },
    });
    expect(parseModelPacing('openai=7200/h', 'X')).toEqual({ openai: { ratePerSecond: 2 } });
    expect(parseModelPacing('openai=0.5/s', 'X')).toEqual({ openai: { ratePerSecond: 0.5 } });
    expect(parseModelPacing('scripted=concurrency=2', 'X')).toEqual({
      scripted: { concurrency: 2 },
    });
  });

  test('several providers, separated by ; or spaces; empty text means no limits', () => {
    expect(
      parseModelPacing(' openai=5/s,concurrency=4; anthropic=50/m  openai-compatible=1/s ', 'X'),
    ).toEqual({
      openai: { ratePerSecond: 5, concurrency: 4 },
      anthropic: { ratePerSecond: 50 / 60 },
      'openai-compatible': { ratePerSecond: 1 },
    });
    expect(parseModelPacing('', 'X')).toEqual({});
    expect(parseModelPacing('  ;  ', 'X')).toEqual({});
  });

  test.each([
    ['openai', /"openai": expected PROVIDER=RATE\[,concurrency=N\], e\.g\. openai=5\/s/],
    ['=5/s', /expected PROVIDER=RATE/],
    ['openai=', /expected PROVIDER=RATE/],
    ['gemini=5/s', /unknown provider "gemini"; known: scripted, anthropic, openai/],
    ['openai=5', /"5" is not a rate; write calls per s, m or h \(5\/s, 300\/m\)/],
    ['openai=5/d', /"5\/d" is not a rate/],
    ['openai=-1/s', /"-1\/s" is not a rate/],
    ['openai=0/s', /the rate must be above 0, not "0\/s"/],
    ['openai=five/s', /"five\/s" is not a rate/],
    ['openai=5/s,concurrency=0', /concurrency must be a whole number of at least 1, not "0"/],
    ['openai=5/s,concurrency=2.5', /concurrency must be a whole number of at least 1, not "2.5"/],
    ['openai=5/s,concurrency=', /concurrency must be a whole number/],
    ['openai=5/s,2/s', /the rate is given twice/],
    ['openai=concurrency=1,concurrency=2', /concurrency is given twice/],
    ['openai=5/s,burst=3', /unknown setting "burst"; settings are a rate and concurrency=N/],
    ['openai=5/s;openai=1/s', /"openai" is named twice/],
  ])('%s is refused with a clear message', (text, message) => {
    expect(() => parseModelPacing(text, '--model-rate')).toThrow(ModelPacingError);
    expect(() => parseModelPacing(text, '--model-rate')).toThrow(message);
  });

  test('the message names where the value came from and the entry', () => {
    expect(() => parseModelPacing('openai=1/s; anthropic=fast', 'DAR_MODEL_RATE')).toThrow(
      'DAR_MODEL_RATE "anthropic=fast": "fast" is not a rate; write calls per s, m or h (5/s, 300/m)',
    );
  });

  test('a provider name that is an Object prototype key is unknown, not a crash', () => {
    expect(() => parseModelPacing('__proto__=1/s', 'X')).toThrow(/unknown provider "__proto__"/);
    expect(() => parseModelPacing('constructor=1/s', 'X')).toThrow(/unknown provider/);
  });
});

describe('modelPacingFrom: DAR_MODEL_RATE, then --model-rate flags over it', () => {
  test('no variable and no flag: no limits', () => {
    expect(modelPacingFrom({})).toEqual({});
  });

  test('flags replace the variable provider by provider, later flags win', () => {
    const pacing = modelPacingFrom({ DAR_MODEL_RATE: 'openai=5/s;anthropic=1/s' }, [
      'openai=2/s,concurrency=3',
      'scripted=concurrency=1',
      'scripted=9/s',
    ]);
    expect(pacing).toEqual({
      openai: { ratePerSecond: 2, concurrency: 3 },
      anthropic: { ratePerSecond: 1 },
      scripted: { ratePerSecond: 9 },
    });
  });

  test('a bad variable or flag names itself', () => {
    expect(() => modelPacingFrom({ DAR_MODEL_RATE: 'openai=fast' })).toThrow(/^DAR_MODEL_RATE "/);
    expect(() => modelPacingFrom({}, ['openai=fast'])).toThrow(/^--model-rate "/);
  });

  test('describeModelPacing for the worker banner', () => {
    expect(describeModelPacing({})).toBe('none');
    expect(
      describeModelPacing({
        openai: { ratePerSecond: 5, concurrency: 4 },
        anthropic: { ratePerSecond: 50 / 60 },
      }),
    ).toBe('openai 5/s, 4 at once; anthropic 0.833/s');
  });
});

describe('model task queues', () => {
  test('every built-in provider has its queue; the workflow and the registry agree', () => {
    expect([...MODEL_QUEUE_PROVIDERS].sort()).toEqual(knownProviders().sort());
  });

  test('a known provider goes to <queue>-model-<provider>, any other stays on the job queue', () => {
    expect(modelTaskQueue('jobs', 'openai:gpt-4o')).toBe('jobs-model-openai');
    expect(modelTaskQueue('jobs', 'openai-compatible:qwen2.5:7b')).toBe(
      'jobs-model-openai-compatible',
    );
    expect(modelTaskQueue('jobs', 'scripted:/tmp/a.json')).toBe('jobs-model-scripted');
    expect(modelTaskQueue('jobs', 'gemini:pro')).toBe('jobs');
    expect(modelTaskQueue('jobs', 'no-provider')).toBe('jobs');
    expect(modelTaskQueue('jobs', 'constructor:x')).toBe('jobs');
  });
});

test('the paced providers are those given a rate or a concurrency, nothing else', () => {
  const pacing = parseModelPacing('openai=5/s; anthropic=concurrency=2', 'DAR_MODEL_RATE');
  expect([...pacedProviders(pacing)].sort()).toEqual(['anthropic', 'openai']);
  expect([...pacedProviders({ scripted: {} })]).toEqual([]);
  expect([...pacedProviders({})]).toEqual([]);
});
