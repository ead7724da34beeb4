"""Where in the frame, and which one: boxes of a named target per frame (`localise`), tracks
across frames (`follow`), and per-object counts (`count_objects`). See docs/tracks.md."""
