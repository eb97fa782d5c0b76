import { describe, expect, it } from 'vitest';
import {
  FenceRejectedError,
  StoreUnavailableError,
  RedisCommandError,
} from '../../../src/errors/store-errors.js';
import {
  classifyRedisError,
  redisReplyCode,
  toStoreError,
} from '../../../src/backends/redis/classify-redis-error.js';
import { reconnectDelay } from '../../../src/backends/redis/redis-connection.js';

/** Errors shaped exactly as the driver raises them (names and codes, never message text). */
const reply = (message: string): Error => Object.assign(new Error(message), { name: 'ReplyError' });
const socket = (code: string): Error =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
const named = (name: string): Error => Object.assign(new Error('whatever the text says'), { name });

describe('classifyRedisError', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EAI_AGAIN',
  ])('%s is unavailable', (code) => {
    expect(classifyRedisError(socket(code))).toBe('unavailable');
  });

  it.each(['MaxRetriesPerRequestError', 'AbortError', 'ClusterAllFailedError'])(
    'ioredis %s is unavailable',
    (name) => {
      expect(classifyRedisError(named(name))).toBe('unavailable');
    },
  );

  it('ioredis client-side transport errors (plain Error, no code) are unavailable: command timeout, offline', () => {
    expect(classifyRedisError(new Error('Command timed out'))).toBe('unavailable');
    expect(
      classifyRedisError(
        new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      ),
    ).toBe('unavailable');
  });

  it.each([
    'LOADING Redis is loading the dataset in memory',
    "READONLY You can't write against a read only replica.",
    'CLUSTERDOWN The cluster is down',
    'MASTERDOWN Link with MASTER is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'BUSY Redis is busy running a script.',
    'NOREPLICAS Not enough good replicas to write.',
    'MISCONF Errors writing to the AOF file',
    "OOM command not allowed when used memory > 'maxmemory'.",
  ])('reply %s is unavailable', (message) => {
    expect(classifyRedisError(reply(message))).toBe('unavailable');
  });

  it('NOSCRIPT asks for a reload; WRONGTYPE and script errors are permanent', () => {
    expect(classifyRedisError(reply('NOSCRIPT No matching script. Please use EVAL.'))).toBe(
      'noscript',
    );
    expect(
      classifyRedisError(
        reply('WRONGTYPE Operation against a key holding the wrong kind of value'),
      ),
    ).toBe('permanent');
    expect(
      classifyRedisError(
        reply('ERR user_script:12: Script attempted to access nonexistent global variable'),
      ),
    ).toBe('permanent');
  });

  it('the message text never decides: a transient-sounding message on a reply with a permanent code stays permanent', () => {
    expect(classifyRedisError(reply('ERR connection refused ETIMEDOUT LOADING'))).toBe('permanent');
    expect(classifyRedisError(Object.assign(new TypeError('ECONNREFUSED'), {}))).toBe('permanent');
    expect(classifyRedisError(socket('ENOENT'))).toBe('permanent');
    expect(classifyRedisError('ECONNREFUSED')).toBe('permanent');
  });

  it('reads the code of a reply as its first word only', () => {
    expect(redisReplyCode(reply('WRONGTYPE Operation'))).toBe('WRONGTYPE');
    expect(redisReplyCode(new Error('WRONGTYPE Operation'))).toBeUndefined();
  });
});

describe('toStoreError', () => {
  it('wraps unavailable errors as StoreUnavailableError with the driver error as cause', () => {
    const cause = socket('ECONNRESET');
    const error = toStoreError(cause, 'save of e1');
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).retryable).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('save of e1');
  });

  it('wraps permanent errors as RedisCommandError (retryable false) and passes PlaitaErrors through', () => {
    const error = toStoreError(reply('WRONGTYPE Operation'), 'load of e1') as RedisCommandError;
    expect(error).toBeInstanceOf(RedisCommandError);
    expect(error.retryable).toBe(false);
    expect(error.redisCode).toBe('WRONGTYPE');
    const fence = new FenceRejectedError('stale');
    expect(toStoreError(fence, 'save')).toBe(fence);
  });
});

describe('reconnectDelay', () => {
  it('backs off exponentially, capped well under connectTimeoutMs', () => {
    const delays = [1, 2, 3, 4, 5, 10, 100].map((n) => reconnectDelay(n, 5000));
    expect(delays.slice(0, 4)).toEqual([50, 100, 200, 400]);
    expect(Math.max(...delays)).toBe(1000);
    expect(Math.max(...[1, 5, 50].map((n) => reconnectDelay(n, 400)))).toBe(100);
  });
});
