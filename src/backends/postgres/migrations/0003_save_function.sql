-- One save = one call (docs/durable-contract.md §3). A save used to be BEGIN, the row's UPDATE, the nodes'
-- statement and COMMIT: four round trips before the commit's WAL flush. This function runs the
-- same steps inside the server, so a save is one round trip in an implicit transaction,
-- committed (and flushed) when the call returns: the row lock, then one statement for the
-- rest. It is VOLATILE: under READ COMMITTED each statement in it takes a fresh snapshot, so
-- the one after the lock reads what a concurrent save of the execution committed while we
-- waited (one statement alone could not: its snapshot predates the wait).
--
-- Nothing is written unless the save is accepted. The outcome says which:
--   saved      written;
--   fenced     p_fence given and the row is absent or its lease generation is another
--              (`generation`: the stored one, null when absent); nothing written;
--   absent     an incremental save (p_full false, unfenced) of a row that is absent or expired:
--              the caller saves again with every node result; nothing written;
--   too_large  the new size total is over p_max_bytes (`node_keys`/`node_bytes`: every stored
--              node's size, to name the largest); nothing written.
--
-- p_keys/p_values/p_bytes are the node results to write (node keys escaped), p_written the sum
-- of p_bytes, p_removed the keys an incremental save drops; p_wait false for the call alone,
-- true inside the caller's BEGIN … COMMIT (see below). Times are the caller's epoch
-- milliseconds. `search_path` is pinned to the schema the function is created in (the
-- migrator sets it, pg_temp last), so the tables it names are that schema's whatever the
-- caller's search_path.
CREATE FUNCTION save_execution(
  p_tenant text, p_id text,
  p_flow_id text, p_flow_version text, p_flow_hash text, p_status text, p_version bigint,
  p_created_at bigint, p_updated_at bigint, p_ended_at bigint, p_expires_at bigint,
  p_header json, p_header_bytes integer, p_summary json,
  p_full boolean, p_fence bigint, p_now bigint, p_max_bytes bigint,
  p_removed text[], p_keys text[], p_values json[], p_bytes integer[], p_written bigint,
  p_wait boolean,
  OUT outcome text, OUT generation bigint, OUT node_keys text[], OUT node_bytes integer[]
) LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_rest bigint;   -- the stored total minus the stored header
  v_next integer;  -- the row's next_seq; null when there is no live row
  v_saved integer;
BEGIN
  IF NOT p_wait THEN
    -- Called alone, this call is its transaction, and it commits when it ends whether or not
    -- the caller is still there to hear it. So it does not queue behind another transaction
    -- (55P03 after 10 ms, nothing written): the caller then sends it inside BEGIN … COMMIT
    -- with p_wait, where a connection lost while waiting rolls it back.
    PERFORM set_config('lock_timeout', '10ms', true);
  END IF;
  -- The row lock first: a concurrent save of this execution waits here until we commit, and
  -- the statement after this one (a fresh snapshot) reads what that save committed.
  SELECT e.state_bytes - e.header_bytes, e.lease_generation, e.next_seq
    INTO v_rest, generation, v_next
    FROM executions e
    WHERE e.tenant_id = p_tenant AND e.execution_id = p_id
      AND (e.expires_at IS NULL OR e.expires_at > p_now)
    FOR UPDATE;
  IF p_fence IS NOT NULL AND generation IS DISTINCT FROM p_fence THEN
    outcome := 'fenced';
    RETURN;
  END IF;

  IF v_next IS NULL THEN
    IF NOT p_full THEN
      outcome := 'absent';
      RETURN;
    END IF;
    -- A new execution, or one replacing an expired row (whose lease and cancel request go),
    -- and its node results, renumbered; any other stored result goes.
    WITH put_row AS (
      INSERT INTO executions AS e (tenant_id, execution_id, flow_id, flow_version, flow_hash,
        status, version, created_at, updated_at, ended_at, expires_at, header, header_bytes,
        summary, state_bytes, next_seq)
      VALUES (p_tenant, p_id, p_flow_id, p_flow_version, p_flow_hash, p_status, p_version,
        p_created_at, p_updated_at, p_ended_at, p_expires_at, p_header, p_header_bytes,
        p_summary, p_header_bytes + p_written, cardinality(p_keys))
      ON CONFLICT (tenant_id, execution_id) DO UPDATE SET
        (flow_id, flow_version, flow_hash, status, version, created_at, updated_at, ended_at,
         expires_at, header, header_bytes, summary, state_bytes, next_seq) =
        (excluded.flow_id, excluded.flow_version, excluded.flow_hash, excluded.status,
         excluded.version, excluded.created_at, excluded.updated_at, excluded.ended_at,
         excluded.expires_at, excluded.header, excluded.header_bytes, excluded.summary,
         excluded.state_bytes, excluded.next_seq),
        lease_owner = CASE WHEN e.expires_at IS NOT NULL AND e.expires_at <= p_now
          THEN NULL ELSE e.lease_owner END,
        lease_expires_at = CASE WHEN e.expires_at IS NOT NULL AND e.expires_at <= p_now
          THEN NULL ELSE e.lease_expires_at END,
        cancel_requested = e.cancel_requested
          AND NOT (e.expires_at IS NOT NULL AND e.expires_at <= p_now)),
    gone AS (
      DELETE FROM node_results n WHERE n.tenant_id = p_tenant AND n.execution_id = p_id
        AND NOT (n.node_id = ANY(p_keys)))
    INSERT INTO node_results AS n (tenant_id, execution_id, node_id, seq, value, bytes)
      SELECT p_tenant, p_id, u.k, u.o::integer - 1, u.v, u.b
      FROM unnest(p_keys, p_values, p_bytes) WITH ORDINALITY AS u(k, v, b, o)
    ON CONFLICT (tenant_id, execution_id, node_id) DO UPDATE SET
      (seq, value, bytes) = (excluded.seq, excluded.value, excluded.bytes);
    outcome := 'saved';
    RETURN;
  END IF;

  IF p_full THEN
    -- A live row rewritten whole: its total is what it writes (checked by the caller), the
    -- results it does not name go, and the ones it names are renumbered.
    WITH put_row AS (
      UPDATE executions e SET
        (flow_id, flow_version, flow_hash, status, version, created_at, updated_at, ended_at,
         expires_at, header, header_bytes, summary, state_bytes, next_seq) =
        (p_flow_id, p_flow_version, p_flow_hash, p_status, p_version, p_created_at,
         p_updated_at, p_ended_at, p_expires_at, p_header, p_header_bytes, p_summary,
         p_header_bytes + p_written, cardinality(p_keys))
      WHERE e.tenant_id = p_tenant AND e.execution_id = p_id),
    gone AS (
      DELETE FROM node_results n WHERE n.tenant_id = p_tenant AND n.execution_id = p_id
        AND NOT (n.node_id = ANY(p_keys)))
    INSERT INTO node_results AS n (tenant_id, execution_id, node_id, seq, value, bytes)
      SELECT p_tenant, p_id, u.k, u.o::integer - 1, u.v, u.b
      FROM unnest(p_keys, p_values, p_bytes) WITH ORDINALITY AS u(k, v, b, o)
    ON CONFLICT (tenant_id, execution_id, node_id) DO UPDATE SET
      (seq, value, bytes) = (excluded.seq, excluded.value, excluded.bytes);
    outcome := 'saved';
    RETURN;
  END IF;

  -- An incremental save moves the stored total by the header's change and by what the written
  -- results weigh minus what the ones they replace or drop weighed, and writes nothing at all
  -- when that is over the limit. New results take the next seqs in order; a stored one keeps
  -- the seq of its first recording.
  WITH old AS (
    SELECT v_rest + p_header_bytes + p_written - coalesce(sum(n.bytes), 0) AS total
    FROM node_results n
    WHERE n.tenant_id = p_tenant AND n.execution_id = p_id
      AND n.node_id = ANY(p_removed || p_keys)),
  put_row AS (
    UPDATE executions e SET
      (flow_id, flow_version, flow_hash, status, version, created_at, updated_at, ended_at,
       expires_at, header, header_bytes, summary, state_bytes, next_seq) =
      (p_flow_id, p_flow_version, p_flow_hash, p_status, p_version, p_created_at, p_updated_at,
       p_ended_at, p_expires_at, p_header, p_header_bytes, p_summary, old.total,
       v_next + cardinality(p_keys))
    FROM old
    WHERE e.tenant_id = p_tenant AND e.execution_id = p_id AND old.total <= p_max_bytes
    RETURNING 1),
  gone AS (
    DELETE FROM node_results n
    WHERE n.tenant_id = p_tenant AND n.execution_id = p_id AND n.node_id = ANY(p_removed)
      AND EXISTS (SELECT FROM put_row)),
  put AS (
    INSERT INTO node_results AS n (tenant_id, execution_id, node_id, seq, value, bytes)
      SELECT p_tenant, p_id, u.k, v_next + u.o::integer - 1, u.v, u.b
      FROM unnest(p_keys, p_values, p_bytes) WITH ORDINALITY AS u(k, v, b, o)
      WHERE EXISTS (SELECT FROM put_row)
    ON CONFLICT (tenant_id, execution_id, node_id) DO UPDATE SET
      (value, bytes) = (excluded.value, excluded.bytes))
  SELECT count(*) INTO v_saved FROM put_row;
  IF v_saved = 1 THEN
    outcome := 'saved';
  ELSE
    outcome := 'too_large';
    SELECT array_agg(n.node_id), array_agg(n.bytes) INTO node_keys, node_bytes
      FROM node_results n WHERE n.tenant_id = p_tenant AND n.execution_id = p_id;
  END IF;
END
$$;
