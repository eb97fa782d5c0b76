-- A cancel request is for the run it was made against: once the execution is terminal it is
-- spent. It was kept, and an operator's later `retry` of an `error` execution (a cancel that
-- lost the race against the node's failure) was cancelled at once. Every write that leaves a
-- row terminal with the mark set (the save that ends it, a cancel request landing after)
-- clears the mark instead, whichever statement or function makes it.
CREATE FUNCTION cancel_spent_on_terminal() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  NEW.cancel_requested := false;
  RETURN NEW;
END $$;

CREATE TRIGGER cancel_spent_on_terminal
  BEFORE INSERT OR UPDATE ON executions
  FOR EACH ROW
  WHEN (NEW.cancel_requested AND NEW.status IN ('completed', 'error', 'cancelled'))
  EXECUTE FUNCTION cancel_spent_on_terminal();
