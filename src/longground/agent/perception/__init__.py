"""What the encoder and the pixels say about the graph's nodes, on any footage: presence,
visibility, decisions relative to the video, motion, episodes, conditions, and the filter that
keeps the event nodes worth a closer look (Step 2)."""
