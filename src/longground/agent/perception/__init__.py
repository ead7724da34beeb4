"""What the encoder sees in the graph: presence, visibility, regions, colours, conditions,
and the filter that keeps the event nodes worth a closer look (Step 2)."""
