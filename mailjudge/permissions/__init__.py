"""Who may do what: actors and one table of (action, condition, decision with a reason)."""
