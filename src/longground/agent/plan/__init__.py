"""Step 1: the query's plan (rule grammar, word lists, explicit time windows)."""
