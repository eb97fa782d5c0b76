-- One claim = one call (docs/durable-contract.md §3): what a worker does first with a message
-- (take the execution's lease, read its state and its cancel mark) in one round trip instead
-- of three, like the Redis store's claim-execution.lua. The lease is taken exactly as the
-- store's acquireLease statement takes it (free, expired, or already this owner's; the
-- generation always goes up).
--
-- The results are read by a statement of their own, after the UPDATE holds the row lock: in a
-- VOLATILE function each statement takes a fresh snapshot, so a save that committed while the
-- UPDATE waited for its lock is read whole (its header and its results), never half.
--
-- Rows: none = no such live execution; one row with o_part -1 = another owner holds an
-- unexpired lease (nothing changed); else o_part 0 (the header, the new lease, the cancel
-- mark) followed by o_part 1 rows, one per node result in seq order.
CREATE FUNCTION claim_execution(
  p_tenant text, p_id text, p_owner text, p_now bigint, p_expires_at bigint
) RETURNS TABLE (o_part integer, o_seq integer, o_key text, o_text text, o_generation bigint,
  o_cancel boolean)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_generation bigint;
  v_header text;
  v_cancel boolean;
BEGIN
  UPDATE executions e SET lease_owner = p_owner, lease_generation = e.lease_generation + 1,
      lease_expires_at = p_expires_at
    WHERE e.tenant_id = p_tenant AND e.execution_id = p_id
      AND (e.expires_at IS NULL OR e.expires_at > p_now)
      AND (e.lease_owner IS NULL OR e.lease_owner = p_owner OR e.lease_expires_at <= p_now)
    RETURNING e.lease_generation, e.header::text, e.cancel_requested
    INTO v_generation, v_header, v_cancel;
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM executions e WHERE e.tenant_id = p_tenant AND e.execution_id = p_id
        AND (e.expires_at IS NULL OR e.expires_at > p_now)) THEN
      RETURN QUERY SELECT -1, 0, NULL::text, NULL::text, NULL::bigint, NULL::boolean;
    END IF;
    RETURN;
  END IF;
  RETURN QUERY SELECT 0, 0, NULL::text, v_header, v_generation, v_cancel;
  RETURN QUERY SELECT 1, n.seq, n.node_id::text, n.value::text, NULL::bigint, NULL::boolean
    FROM node_results n WHERE n.tenant_id = p_tenant AND n.execution_id = p_id ORDER BY n.seq;
END $$;
