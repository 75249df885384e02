import { describe, expect, it } from 'vitest';
import { decodeJobError, encodeJobError } from '../../../src/pipeline/executors/queue/shard-job.js';

describe('a shard job failure across BullMQ', () => {
  it('carries the error as data: code and message come back as they left', () => {
    const error = { code: 'E_IO' as const, message: 'cannot write the output directory /mnt/out on host-b: EACCES' };
    expect(decodeJobError(encodeJobError(error))).toEqual(error);
  });

  it('reads a crash (a dead worker, a thrown bug) as no error data, so it counts as a crash', () => {
    expect(decodeJobError('job stalled more than allowable limit')).toBeUndefined();
    expect(decodeJobError('tcompact-error:{not json')).toBeUndefined();
    expect(decodeJobError('tcompact-error:{"code":1,"message":"x"}')).toBeUndefined();
  });
});
