"""The `longground` command line: one file per command group, registered in `main.py`."""
