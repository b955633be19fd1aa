import {
  isUnknownSearchAttributeRefusal,
  startWithJobAttributes,
} from '../../../src/client/start-attributes.js';

/** A refusal shaped as the client's: a ServiceError whose cause carries the gRPC details. */
function refusal(details: string): Error {
  const cause = Object.assign(new Error(`3 INVALID_ARGUMENT: ${details}`), { code: 3, details });
  return new Error('Failed to start Workflow', { cause });
}

test('a refusal for an attribute the namespace does not know is told from other refusals', () => {
  expect(
    isUnknownSearchAttributeRefusal(
      refusal('Namespace default has no mapping defined for search attribute DarPhase'),
    ),
  ).toBe(true);
  expect(isUnknownSearchAttributeRefusal(refusal('search attribute DarTurns is not defined'))).toBe(
    true,
  );
  expect(isUnknownSearchAttributeRefusal(refusal('Workflow execution already started'))).toBe(
    false,
  );
  expect(isUnknownSearchAttributeRefusal('no mapping defined for search attribute')).toBe(false);
});

test('a start the namespace refuses for its attributes is made again without them; other failures pass through', async () => {
  const asked: number[] = [];
  const started = await startWithJobAttributes(async (attributes) => {
    asked.push(attributes.length);
    if (attributes.length > 0) {
      throw refusal('Namespace default has no mapping defined for search attribute DarBatchId');
    }
    return 'started';
  }, 'batch-1');
  expect(started).toBe('started');
  // DarPhase, DarTurns and DarBatchId first, then none.
  expect(asked).toEqual([3, 0]);

  const other = startWithJobAttributes(async () => {
    throw refusal('Workflow execution already started');
  });
  await expect(other).rejects.toThrow('Failed to start Workflow');
});
