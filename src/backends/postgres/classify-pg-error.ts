import { PlaitaError, errorCode } from '../../errors/plaita-error.js';
import { StoreConfigurationError, StoreUnavailableError } from '../../errors/store-errors.js';

/** Node socket and DNS failures: the server could not be reached, or the connection broke. */
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * SQLSTATEs that heal on retry. Class 08 (connection exception) is matched by its prefix.
 * 57P01 admin_shutdown (pg_terminate_backend, a restart), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up, recovery), 57P05 idle_session_timeout, 57014 query_canceled
 * (our statement_timeout fired), 40001 serialization_failure, 40P01 deadlock_detected, 53300
 * too_many_connections, 55P03 lock_not_available; and what an operator heals without any change
 * of ours: 25006 read_only_sql_transaction (a failover: this connection reached the old primary,
 * now a standby), 53100 disk_full, 53200 out_of_memory, 58030 io_error. Permanent, they would
 * end healthy executions for the length of an incident.
 */
const TRANSIENT_SQLSTATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '57014',
  '40001',
  '40P01',
  '53300',
  '55P03',
  '25006',
  '53100',
  '53200',
  '58030',
]);

/** Transient errors after which the connection itself is useless (it reached a standby). */
export const DISCARD_CONNECTION_SQLSTATES: ReadonlySet<string> = new Set(['25006']);

/**
 * SQLSTATEs that say the connection settings are wrong, not that the server is down: they never
 * heal on retry, so they become StoreConfigurationError (permanent) with the server's reason.
 */
const MISCONFIGURED_SQLSTATES = new Map([
  ['3D000', 'invalid_catalog_name'],
  ['42501', 'insufficient_privilege'],
  ['28000', 'invalid_authorization_specification'],
  ['28P01', 'invalid_password'],
]);

/**
 * Node's TLS verdicts on the server's certificate, or a server that does not speak TLS: on the
 * connect path they would be read as an outage and retried for ever, but they are settings (a
 * CA, a host name, `sslmode`) that no retry heals.
 */
const TLS_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Where the error came from, as the connection module knows it. */
export interface PgFailure {
  /** Checking a client out of the pool (connecting, or waiting for a free client). */
  connecting: boolean;
  /** The client reported its connection closed or broken (its 'error' / 'end' event) while ours. */
  connectionLost: boolean;
}

/**
 * By code only, never by message text. Errors without a code (pg's "Connection terminated
 * unexpectedly", "timeout exceeded when trying to connect") are told apart by the path that
 * raised them: on the connect path, or after the client reported a lost connection, they are
 * transient; anywhere else they are driver misuse and permanent. A missing database, an unknown
 * role, a refused password or a missing privilege (42501: a GRANT heals it, a retry does not) is
 * StoreConfigurationError; other permanent driver errors are returned unchanged (e.g. 23505).
 */
export function classifyPgError(error: unknown, failure: PgFailure): unknown {
  if (error instanceof PlaitaError) return error;
  const code = errorCode(error);
  if (code !== undefined) {
    if (TRANSIENT_NODE_CODES.has(code)) return unavailable(error, code);
    const misconfigured = MISCONFIGURED_SQLSTATES.get(code);
    if (misconfigured !== undefined) return misconfiguration(error, `${code} ${misconfigured}`);
    if (TLS_CODES.has(code)) return misconfiguration(error, `TLS ${code}`);
    if (SQLSTATE.test(code))
      return code.startsWith('08') || TRANSIENT_SQLSTATES.has(code)
        ? unavailable(error, code)
        : error;
  }
  if (failure.connecting || failure.connectionLost)
    return unavailable(error, failure.connecting ? 'connecting' : 'connection lost');
  return error;
}

function unavailable(cause: unknown, what: string): StoreUnavailableError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new StoreUnavailableError(`PostgreSQL is unavailable (${what})${detail}`, { cause });
}

function misconfiguration(cause: unknown, what: string): StoreConfigurationError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  const message = `PostgreSQL refused the connection settings (${what})${detail}`;
  return new StoreConfigurationError(message, { cause });
}
