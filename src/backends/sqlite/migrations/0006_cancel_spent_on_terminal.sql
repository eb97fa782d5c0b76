-- A cancel request is for the run it was made against: once the execution is terminal it is
-- spent. It was kept, and an operator's later `retry` of an `error` execution (a cancel that
-- lost the race against the node's failure) was cancelled at once. Every write that leaves a
-- row terminal with the mark set (the save that ends it, a cancel request landing after)
-- clears the mark instead, whichever statement makes it.
CREATE TRIGGER cancel_spent_on_terminal
  AFTER UPDATE ON executions
  FOR EACH ROW
  WHEN NEW.cancel_requested = 1 AND NEW.status IN ('completed', 'error', 'cancelled')
BEGIN
  UPDATE executions SET cancel_requested = 0
    WHERE tenant_id = NEW.tenant_id AND execution_id = NEW.execution_id;
END;
