import {
  SETUP_BY_REFERENCE_FROM_CHARACTERS,
  isModelSetup,
  worthStoring,
} from '../../../src/activities/model-setup.js';

const tool = { name: 'ls', description: 'Lists a folder.', parameters: { type: 'object' } };

test('a setup is worth storing from the threshold on, counted as its JSON', () => {
  const base = JSON.stringify({ systemPrompt: '', tools: [tool] }).length;
  const below = {
    systemPrompt: 'x'.repeat(SETUP_BY_REFERENCE_FROM_CHARACTERS - base - 1),
    tools: [tool],
  };
  const at = { systemPrompt: 'x'.repeat(SETUP_BY_REFERENCE_FROM_CHARACTERS - base), tools: [tool] };
  expect(worthStoring(below)).toBe(false);
  expect(worthStoring(at)).toBe(true);
});

test('only a system prompt with named, described tools passes for a stored setup', () => {
  expect(isModelSetup({ systemPrompt: 'p', tools: [tool] })).toBe(true);
  expect(isModelSetup({ systemPrompt: 'p', tools: [] })).toBe(true);
  expect(isModelSetup({ systemPrompt: 'p' })).toBe(false);
  expect(isModelSetup({ systemPrompt: 1, tools: [] })).toBe(false);
  expect(isModelSetup({ systemPrompt: 'p', tools: [{ name: 'ls' }] })).toBe(false);
  expect(isModelSetup({ systemPrompt: 'p', tools: [null] })).toBe(false);
  expect(isModelSetup(['p'])).toBe(false);
  expect(isModelSetup(null)).toBe(false);
});
