/**
 * The classification tables, entry by entry: transient → StoreUnavailableError, wrong connection
 * settings → StoreConfigurationError, the rest unchanged.
 */
import { describe, expect, it } from 'vitest';
import {
  FenceRejectedError,
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../src/errors/store-errors.js';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import { classifyPgError } from '../../src/backends/postgres/classify-pg-error.js';
import {
  classifySqliteError,
  classifySqliteOpenError,
} from '../../src/backends/sqlite/classify-sqlite-error.js';

const withCode = (code: string): Error =>
  Object.assign(new Error(`driver error ${code}`), { code });
const quiet = { connecting: false, connectionLost: false };

describe('classifyPgError', () => {
  const transient = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    '08000',
    '08003',
    '08006',
    '08001',
    '08P01',
    '57P01',
    '57P02',
    '57P03',
    '57P05',
    '57014',
    '40001',
    '40P01',
    '53300',
    '55P03',
    // What an operator heals: a failover (a connection to the old primary), a full or failing disk.
    '25006',
    '53100',
    '53200',
    '58030',
  ];
  const permanent = ['23505', '22021', '42P01', '57P04', 'XX000', 'EACCES'];

  it.each(transient)('%s is transient, with the driver error as cause', (code) => {
    const error = withCode(code);
    const classified = classifyPgError(error, quiet);
    expect(classified).toBeInstanceOf(StoreUnavailableError);
    expect((classified as StoreUnavailableError).retryable).toBe(true);
    expect((classified as StoreUnavailableError).cause).toBe(error);
  });

  it.each(permanent)('%s is returned unchanged (permanent)', (code) => {
    const error = withCode(code);
    expect(classifyPgError(error, quiet)).toBe(error);
  });

  it.each(['3D000', '28000', '28P01', '42501'])(
    '%s (no such database / role, refused password, missing privilege) is StoreConfigurationError, not retryable',
    (code) => {
      const error = withCode(code);
      const classified = classifyPgError(error, { connecting: true, connectionLost: false });
      expect(classified).toBeInstanceOf(StoreConfigurationError);
      expect((classified as StoreConfigurationError).retryable).toBe(false);
      expect((classified as StoreConfigurationError).code).toBe('store_misconfigured');
      expect((classified as StoreConfigurationError).message).toContain(`driver error ${code}`);
      expect((classified as StoreConfigurationError).cause).toBe(error);
    },
  );

  it.each(['CERT_HAS_EXPIRED', 'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID'])(
    '%s on connect (the server’s certificate refused) is StoreConfigurationError, never an outage retried for ever',
    (code) => {
      const classified = classifyPgError(withCode(code), {
        connecting: true,
        connectionLost: false,
      });
      expect(classified).toBeInstanceOf(StoreConfigurationError);
      expect((classified as StoreConfigurationError).retryable).toBe(false);
    },
  );

  it('an error without a code is transient only on the connect path or after the connection was lost', () => {
    const error = new Error('Connection terminated unexpectedly');
    expect(classifyPgError(error, quiet)).toBe(error);
    expect(classifyPgError(error, { connecting: true, connectionLost: false })).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(classifyPgError(error, { connecting: false, connectionLost: true })).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('a permanent SQLSTATE stays permanent even when the connection was lost afterwards', () => {
    const error = withCode('23505');
    expect(classifyPgError(error, { connecting: false, connectionLost: true })).toBe(error);
  });

  it('our own errors pass through', () => {
    const error = new FenceRejectedError('stale');
    expect(classifyPgError(error, { connecting: true, connectionLost: true })).toBe(error);
  });
});

describe('classifySqliteError', () => {
  it.each([
    'SQLITE_BUSY',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_BUSY_RECOVERY',
    'SQLITE_LOCKED',
    'SQLITE_LOCKED_SHAREDCACHE',
  ])('%s is transient', (code) => {
    const error = withCode(code);
    const classified = classifySqliteError(error);
    expect(classified).toBeInstanceOf(StoreUnavailableError);
    expect((classified as StoreUnavailableError).cause).toBe(error);
  });

  it.each(['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB'])(
    '%s is StateCorruptError',
    (code) => {
      const classified = classifySqliteError(withCode(code));
      expect(classified).toBeInstanceOf(StateCorruptError);
      expect((classified as StateCorruptError).retryable).toBe(false);
    },
  );

  it.each(['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE'])(
    '%s (a full or failing disk, which an operator heals) is transient',
    (code) => {
      const classified = classifySqliteError(withCode(code));
      expect(classified).toBeInstanceOf(StoreUnavailableError);
      expect((classified as StoreUnavailableError).retryable).toBe(true);
    },
  );

  it('SQLITE_READONLY_DBMOVED (the file moved or deleted under this process) says so', () => {
    const classified = classifySqliteError(withCode('SQLITE_READONLY_DBMOVED'), '/data/plaita.db');
    expect(classified).toBeInstanceOf(StoreConfigurationError);
    expect((classified as Error).message).toContain(
      '/data/plaita.db was moved or deleted while this process had it open',
    );
  });

  it.each(['SQLITE_READONLY', 'SQLITE_READONLY_ROLLBACK', 'SQLITE_PERM'])(
    '%s (a file this process may not write) is StoreConfigurationError naming the path',
    (code) => {
      const classified = classifySqliteError(withCode(code), '/data/plaita.db');
      expect(classified).toBeInstanceOf(StoreConfigurationError);
      expect((classified as StoreConfigurationError).message).toContain(
        '/data/plaita.db cannot be written by this process',
      );
    },
  );

  it.each(['SQLITE_CANTOPEN', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_BUSYNESS'])(
    '%s is returned unchanged (permanent)',
    (code) => {
      const error = withCode(code);
      expect(classifySqliteError(error)).toBe(error);
    },
  );
});

describe('classifySqliteOpenError', () => {
  it.each(['SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_CANTOPEN_ISDIR', 'SQLITE_PERM'])(
    '%s is StoreConfigurationError naming the path',
    (code) => {
      const classified = classifySqliteOpenError(withCode(code), '/data/plaita.db');
      expect(classified).toBeInstanceOf(StoreConfigurationError);
      expect((classified as StoreConfigurationError).message).toContain('/data/plaita.db');
    },
  );

  it('a locked or corrupt file is classified as on any operation', () => {
    expect(classifySqliteOpenError(withCode('SQLITE_BUSY'), 'x.db')).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(classifySqliteOpenError(withCode('SQLITE_CORRUPT'), 'x.db')).toBeInstanceOf(
      StateCorruptError,
    );
  });
});
