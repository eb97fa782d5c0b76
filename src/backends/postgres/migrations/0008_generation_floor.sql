-- A claim's fencing generation goes up to at least the server's clock in microseconds, as
-- acquireLease's does: an execution deleted and made anew under the same id starts its count
-- at 0 again, and handed out generation 1 a second time, so a worker of the old execution,
-- stalled while it was deleted, could still write over the new one. (Milliseconds would not
-- do: delete, create and claim fit in one.)
-- The function is otherwise 0006's.
CREATE OR REPLACE FUNCTION claim_execution(
  p_tenant text, p_id text, p_owner text, p_now bigint, p_expires_at bigint
) RETURNS TABLE (o_part integer, o_seq integer, o_key text, o_text text, o_generation bigint,
  o_cancel boolean)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_generation bigint;
  v_header text;
  v_cancel boolean;
BEGIN
  UPDATE executions e SET lease_owner = p_owner,
      lease_generation = GREATEST(e.lease_generation + 1,
        (extract(epoch from clock_timestamp()) * 1000000)::bigint),
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
