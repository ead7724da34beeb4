"""Step 2: the two-level temporal graph: event and action nodes, edges, and their cache."""
